"""Generated TREC files parse as a plain reader would, or fail naming their first bad line.

The reference reader below is the plainest one: decode UTF-8 (a byte order
mark at the start is dropped), split lines on ``\\n`` and fields on runs of C's
white space (``bytes.split()``: space, tab, CR, LF, VT, FF; trec_eval splits
the same way, so an NBSP belongs to its field), skip blank lines and lines
whose first field starts with ``#``, then take six fields of a run line (more
are ignored) or exactly four of a qrels line, with an integer rank or
relevance and a decimal score.

Generated files mix every layout that occurs in practice and every fault:
runs of spaces and tabs, CR/VT/FF, CRLF line ends, a BOM, comments, blank
lines, headers, bad numbers, missing and extra fields, bytes that are not
UTF-8, NUL bytes and very long lines. ``read_trec_run``/``read_trec_qrels``
must return exactly the reference's rows or raise a one-line ``ValueError``
naming the file, the reference's first bad line and the reason; the command
line must never show a traceback and must exit with one of trec_eval's
statuses.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.cli import main

_FLOAT = re.compile(
    rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)", re.I
)
_INT = re.compile(rb"[+-]?[0-9]+")


class Bad(Exception):
    def __init__(self, number: int) -> None:
        self.number = number


def reference(data: bytes, fields: int, *, rest: bool) -> list[tuple[str, ...]]:
    """The plain reader: rows of strings, or :class:`Bad` with the first bad line's number."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    rows = []
    for number, line in enumerate(lines, start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            raise Bad(number) from None
        if b"\0" in line:
            raise Bad(number)
        tokens = line.split()
        if not tokens or tokens[0].startswith(b"#"):
            continue
        if len(tokens) < fields or (not rest and len(tokens) > fields):
            raise Bad(number)
        numbers = [3, 4] if rest else [3]
        for index in numbers:
            grammar = _FLOAT if (rest and index == 4) else _INT
            if not grammar.fullmatch(tokens[index]):
                raise Bad(number)
            if grammar is _INT and not -(2**63) <= int(tokens[index]) < 2**63:
                raise Bad(number)
        rows.append(tuple(token.decode() for token in tokens[:fields]))
    return rows


SPACES = [b" ", b"  ", b"\t", b"\t\t", b" \t ", b"\r", b"\x0b", b"\x0c"]
FAULTS = ["missing", "extra", "number", "utf8", "nul", "header"]
SHAPES = ["plain"] * 8 + ["long", "nbsp"]


def _line(rng: random.Random, tokens: list[bytes]) -> bytes:
    gaps = [rng.choice(SPACES) for _ in tokens[1:]]
    start = rng.choice([b"", b"", b"", b" ", b"\t"])
    end = rng.choice([b"", b"", b"", b" ", b"\r", b"\t"])
    return start + b"".join(t + g for t, g in zip(tokens, [*gaps, b""], strict=True)) + end


def generate(rng: random.Random, *, run: bool) -> bytes:
    """A TREC file with random layout and at most a few faults."""
    lines = []
    faulty = rng.random() < 0.5
    for index in range(rng.randint(0, 12)):
        topic = rng.choice([b"1", b"2", b"301", b"q" + str(index).encode()])
        doc = rng.choice([b"d1", b"d2", b"doc-3", b"D\xc3\xa9", b"x#4"])
        if run:
            tokens = [
                topic,
                b"Q0",
                doc,
                str(index).encode(),
                rng.choice([b"0.5", b"-1", b"2e3", b".25"]),
                b"r",
            ]
            tokens += [b"extra"] * rng.randint(0, 1)
        else:
            tokens = [topic, b"0", doc, rng.choice([b"0", b"1", b"2", b"-1"])]
        fault = rng.choice(FAULTS) if faulty and rng.random() < 0.25 else rng.choice(SHAPES)
        if fault == "missing":
            tokens.pop(rng.randrange(len(tokens)))
        elif fault == "extra":
            tokens.append(b"more")
        elif fault == "number":
            tokens[3 if not run else rng.choice([3, 4])] = rng.choice(
                [b"abc", b"1.5", b"0x1", b"1e"]
            )
        elif fault == "utf8":
            tokens[2] += b"\xff"
        elif fault == "nul":
            tokens[2] += b"\0"
        elif fault == "header":
            tokens = [b"topic", b"Q0", b"docno", b"rank", b"score", b"tag"][: len(tokens)]
        elif fault == "long":
            tokens[2] = b"d" * 20000
        elif fault == "nbsp":
            tokens[2] = b"a\xc2\xa0b"
        lines.append(_line(rng, tokens))
        if rng.random() < 0.15:
            lines.append(rng.choice([b"", b"   ", b"# a comment", b"\t# indented comment"]))
    ending = rng.choice([b"\n", b"\r\n"])
    data = ending.join(lines) + (ending if lines and rng.random() < 0.8 else b"")
    return (b"\xef\xbb\xbf" if rng.random() < 0.1 else b"") + data


SEEDS = range(160)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_generated_file_parses_as_the_plain_reader_or_names_its_first_bad_line(
    tmp_path: Path, seed: int, kind: str
) -> None:
    rng = random.Random(seed * 2 + (kind == "run"))
    run = kind == "run"
    data = generate(rng, run=run)
    path = tmp_path / f"file.{kind}"
    path.write_bytes(data)
    reader = rm.read_trec_run if run else rm.read_trec_qrels
    try:
        expected = reference(data, 6 if run else 4, rest=run)
    except Bad as bad:
        with pytest.raises(ValueError) as error:
            reader(path)
        message = str(error.value)
        assert "\n" not in message, message
        assert message.startswith(f"{path}:{bad.number}: malformed line ("), message
        assert len(message) < 400
        return
    frame = reader(path)
    if not expected:
        assert frame.height == 0
        return
    strings = frame.select(frame.columns[:3] + ([frame.columns[5]] if run else []))
    got = [tuple(row) for row in strings.rows()]
    want = [(r[0], r[1], r[2], r[5]) if run else r[:3] for r in expected]
    assert got == want
    numbers = [float(r[4]) if run else int(r[3]) for r in expected]
    column = "score" if run else "relevance"
    assert frame.get_column(column).to_list() == pytest.approx(numbers, nan_ok=True)


@pytest.mark.parametrize("seed", range(60))
def test_the_command_line_never_shows_a_traceback(
    tmp_path: Path,
    seed: int,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    rng = random.Random(1000 + seed)
    (tmp_path / "qrels").write_bytes(generate(rng, run=False))
    (tmp_path / "run").write_bytes(generate(rng, run=True))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", None)
    status = main(["trec-eval", "-q", "-m", "all_trec", "qrels", "run"])
    err = capsysbinary.readouterr().err
    assert status in (0, 2, 4, 7), err
    assert b"Traceback" not in err
    if status == 2:
        assert len(err.strip().splitlines()) == 1, err


def test_a_directory_and_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError, match="is a directory"):
        rm.read_trec_run(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such TREC file"):
        rm.read_trec_qrels(tmp_path / "nothing")


def test_a_long_malformed_line_is_quoted_short(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_text("1 Q0 " + "d" * 10_000_000 + "\n")
    with pytest.raises(ValueError, match=r"\(10000005 characters\)") as error:
        rm.read_trec_run(path)
    assert len(str(error.value)) < 400


def test_a_leading_tab_and_a_tab_inside_a_field(tmp_path: Path) -> None:
    # The CSV fast path must not keep a tab in a topic or a document id.
    run = tmp_path / "run"
    run.write_text("\t302 Q0 d1 1 0.5 r\n302 Q0 d2 2 0.4 r\n")
    assert rm.read_trec_run(run).get_column("query").to_list() == ["302", "302"]
    qrels = tmp_path / "qrels"
    qrels.write_text("302 0 d1 1\n302 0 d2\t 1\n")
    assert rm.read_trec_qrels(qrels).get_column("doc").to_list() == ["d1", "d2"]
    assert rm.evaluate(qrels, run, "map").aggregate.item() == 1.0  # trec_eval: 1.0000
