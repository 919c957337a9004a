"""`rankmetrics trec-eval` prints trec_eval 10.0's bytes and exits with its status, case by case.

tests/data/trec_eval_cases.json holds small synthetic inputs and what trec_eval
10.0 printed on standard output, and its exit status, for each command line:
every flag (short and long, attached and separate values), every measure alone,
parameter forms good and bad, file-format details (tabs, CRLF, comments, a BOM,
headers, bytes that are not UTF-8, NUL), missing topics and duplicates (status
4 after the topics before them), ``-c``, ``-l`` values, ``-J``, ``-N``, ``-M``,
``-D``, ``-Z``, ``-R qrels_jg``, and half-way values (x.xxxx5) of every measure
family, where the printed digit depends on trec_eval's exact arithmetic. The
expected outputs were recorded from trec_eval itself; the tests do not need it.

The cases where this library deliberately differs are tested at the end of
this file, for the library's documented behaviour (README, "TREC evaluation").
"""

from __future__ import annotations

import base64
import io
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from polars_rankmetrics.cli import main
from polars_rankmetrics.measures.registry import BY_KEY
from polars_rankmetrics.measures.trec_names import FAMILIES

DATA = json.loads((Path(__file__).parent / "data" / "trec_eval_cases.json").read_text())
CASES: list[dict[str, Any]] = DATA["cases"]


def decoded(text: str) -> bytes:
    """The bytes a stored string stands for (``base64:`` marks bytes that are not UTF-8)."""
    if text.startswith("base64:"):
        return base64.b64decode(text.removeprefix("base64:"))
    return text.encode()


def materialise(case: dict[str, Any], folder: Path) -> bytes | None:
    """Write the case's input files into ``folder``; return what its standard input holds."""
    stdin = None
    for name, key in case["files"].items():
        data = decoded(DATA["inputs"][key])
        if name == "stdin":
            stdin = data
        else:
            (folder / name).write_bytes(data)
    return stdin


def run_cli(
    arguments: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    stdin: bytes | None = None,
) -> tuple[bytes, bytes, int]:
    stream = io.TextIOWrapper(io.BytesIO(stdin or b""))
    monkeypatch.setattr(sys, "stdin", stream)
    status = main(["trec-eval", *arguments])
    captured = capsysbinary.readouterr()
    return captured.out, captured.err, status


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_trec_eval_case(
    case: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    stdin = materialise(case, tmp_path)
    monkeypatch.chdir(tmp_path)
    out, err, status = run_cli(case["args"], monkeypatch, capsysbinary, stdin)
    assert (status, out) == (case["status"], decoded(case["stdout"])), case["note"]
    assert b"Traceback" not in err
    if status != 0 or case["name"].startswith("flag_v"):
        assert err.strip(), "a failure says why on standard error"


def test_the_cases_cover_every_difference_of_the_issue() -> None:
    names = {case["name"] for case in CASES}
    prefixes = ["d01", "d03", "d04", "d05", "d06", "d07", "d09", "d10", "flag", "half"]
    prefixes += ["jg", "meas", "param", "parse", "z"]
    for prefix in prefixes:
        assert any(name.startswith(prefix + "_") for name in names), prefix
    assert len(CASES) >= 300


# ------------------------------------------- where the library differs, on purpose


GRADED = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n"
RUN = "1 Q0 a 1 0.9 r\n1 Q0 b 2 0.8 r\n1 Q0 c 3 0.7 r\n2 Q0 e 1 0.9 r\n2 Q0 d 2 0.8 r\n"
EXPECTED = b"map                   \tall\t0.6667\n"  # trec_eval's output: (0.8333 + 0.5) / 2


def write_pair(folder: Path) -> None:
    (folder / "qrels").write_text(GRADED)
    (folder / "run").write_text(RUN)


def test_run_from_a_named_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # trec_eval 10 refuses a pipe ("Cannot read results file"); <(zcat run.gz) is one.
    write_pair(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(RUN))
    writer.start()
    out, _, status = run_cli(
        ["-m", "map", str(tmp_path / "qrels"), str(fifo)], monkeypatch, capsysbinary
    )
    writer.join()
    assert (status, out) == (0, EXPECTED)


def test_run_from_gzip_and_parquet_and_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    import gzip

    write_pair(tmp_path)
    (tmp_path / "run.gz").write_bytes(gzip.compress(RUN.encode()))
    rows = [line.split() for line in RUN.splitlines()]
    frame = pl.DataFrame(
        {
            "query": [r[0] for r in rows],
            "doc": [r[2] for r in rows],
            "score": [float(r[4]) for r in rows],
        }
    )
    frame.write_parquet(tmp_path / "run.parquet")
    qrels = str(tmp_path / "qrels")
    for run in ("run.gz", "run.parquet"):
        out, _, status = run_cli(
            ["-m", "map", qrels, str(tmp_path / run)], monkeypatch, capsysbinary
        )
        assert (status, out) == (0, EXPECTED), run
    out, _, status = run_cli(["-m", "map", qrels, "-"], monkeypatch, capsysbinary, RUN.encode())
    assert (status, out) == (0, EXPECTED)


def test_levels_below_zero_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # trec_eval counts unjudged documents as relevant there, but not in R.
    write_pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    out, err, status = run_cli(["-l", "-1", "qrels", "run"], monkeypatch, capsysbinary)
    assert (status, out) == (2, b"")
    assert b"-l -1" in err and b"not supported" in err


def test_preference_formats_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    write_pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    for form in ("prefs", "qrels_prefs"):
        out, err, status = run_cli(["-R", form, "qrels", "run"], monkeypatch, capsysbinary)
        assert (status, out) == (2, b"") and b"not supported" in err
    # On plain qrels a preference measure fails as in trec_eval (status 4).
    out, err, status = run_cli(["-m", "prefs_simp", "qrels", "run"], monkeypatch, capsysbinary)
    assert (status, out) == (4, b"") and b"prefs_simp" in err


def test_help_lists_every_flag_and_measure(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    out, _, status = run_cli(["-h"], monkeypatch, capsysbinary)
    assert status == 0
    text = out.decode()
    for flag in "-h -v -q -m -c -l -n -D -J -N -M -R -T -o -Z --output --format".split():
        assert f"  {flag}" in text or f", {flag}" in text, flag
    for family in FAMILIES:
        assert f"  {family.name} " in text, family.name
        if family.key is not None:
            assert BY_KEY[family.key].description in text
    assert "prefs" in text and "not supported" in text
    # trec_eval checks the measure names first: -h with a bad one is status 1.
    assert run_cli(["-h", "-m", "nosuch"], monkeypatch, capsysbinary)[2] == 1


def test_debug_level_prints_no_traces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    write_pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    out, _, status = run_cli(["-D", "1", "-m", "map", "qrels", "run"], monkeypatch, capsysbinary)
    assert (status, out) == (0, EXPECTED)
    out, _, status = run_cli(
        ["-D", "0.2", "-q", "-m", "map", "qrels", "run"], monkeypatch, capsysbinary
    )
    assert out == b"map                   \t2\t0.5000\nmap                   \tall\t0.5000\n"


def test_huge_cutoffs_are_sorted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # trec_eval's cutoff comparison overflows for cutoffs 2**31 apart and leaves
    # them unsorted; here they are sorted, so P_5 is P@5.
    write_pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    out, _, status = run_cli(
        ["-m", "P.9223372036854775807,2", "qrels", "run"], monkeypatch, capsysbinary
    )
    assert status == 0
    assert out == b"P_2                   \tall\t0.5000\nP_9223372036854775807 \tall\t0.0000\n"


def test_zscores_of_a_topic_missing_from_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # trec_eval's binary search reads past the file's topics (it crashed); here
    # a topic after them is missing: -1000000, as trec_eval gives a topic before them.
    write_pair(tmp_path)
    (tmp_path / "z").write_text("1 map 0.5 0.25\n")
    monkeypatch.chdir(tmp_path)
    out, _, status = run_cli(
        ["-q", "-Z", "z", "-m", "map", "qrels", "run"], monkeypatch, capsysbinary
    )
    assert status == 0
    assert out.splitlines()[1] == b"Zmap                   \t2\t-1000000.0000"


@pytest.mark.parametrize("family", [f for f in FAMILIES if f.key is not None], ids=lambda f: f.name)
def test_no_trec_eval_family_reads_subtopics(family: Any) -> None:
    """The CLI probes only extension names for subtopics (``topic_measures.compute``)."""
    from polars_rankmetrics.evaluation.subtopics import reads_subtopics
    from polars_rankmetrics.measures.trec_names import family_columns

    columns = family_columns(family, None)
    assert columns, family
    assert not reads_subtopics([column.bind("zero") for column in columns])


def test_the_subtopic_probe_sees_a_diversity_measure() -> None:
    """The check above can fail: a diversity name reads subtopics."""
    from polars_rankmetrics.evaluation.subtopics import reads_subtopics
    from polars_rankmetrics.measures import parse_measures

    assert reads_subtopics([column.bind("zero") for column in parse_measures("alpha_nDCG@20")])
