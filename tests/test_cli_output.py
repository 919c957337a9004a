"""Command-line output: exact decimals, -o/--output formats, progress; how an Evaluation prints."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics._progress import status
from polars_rankmetrics.cli import main

N_QUERIES = 60


def _hits(query: int) -> int:
    """Relevant documents in the top 10 of a query: 0..10, every count several times."""
    return (query * 7) % 11


def _extra(query: int) -> int:
    """Relevant documents that were not retrieved (R = hits + extra; at least one relevant)."""
    return (query % 3) + (1 if _hits(query) == 0 else 0)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """60 queries of 10 documents; the first ``_hits(q)`` are relevant, plus unretrieved ones."""
    directory = tmp_path_factory.mktemp("exact")
    qrels, run = [], []
    for q in range(N_QUERIES):
        for rank in range(10):
            relevant = int(rank < _hits(q))
            qrels.append(f"q{q:02d} 0 d{rank} {relevant}\n")
            run.append(f"q{q:02d} Q0 d{rank} {rank + 1} {10 - rank} exact-run\n")
        qrels += [f"q{q:02d} 0 x{i} 1\n" for i in range(_extra(q))]
    (directory / "qrels").write_text("".join(qrels))
    (directory / "run").write_text("".join(run))
    return str(directory / "qrels"), str(directory / "run")


def _cli(args: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[bytes, str, int]:
    status_code = main(["trec-eval", *args])
    captured = capsysbinary.readouterr()
    return captured.out, captured.err.decode(), status_code


# --- exact decimals ---------------------------------------------------------------------------


def test_json_values_are_the_true_quotients(
    files: tuple[str, str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """P_10 = hits / 10 and recall_10 = hits / R, divided (7 * 0.1 is 0.7000000000000001)."""
    assert 7 * (1 / 10) != 0.7  # the noise a reciprocal multiplication makes
    out, err, code = _cli(
        ["-q", "-m", "P.10", "-m", "recall.10", "--format", "json", *files], capsysbinary
    )
    assert code == 0, err
    rows = {row["query"]: row for row in json.loads(out)}
    for q in range(N_QUERIES):
        row = rows[f"q{q:02d}"]
        assert row["P_10"] == _hits(q) / 10
        assert row["recall_10"] == _hits(q) / (_hits(q) + _extra(q))
    assert {rows[f"q{q:02d}"]["P_10"] for q in range(N_QUERIES)} >= {0.3, 0.7}
    assert b'"P_10":0.7,' in out and b"0.7000000000000001" not in out
    # The summary: trec_eval's double (the per-query values added in query order, divided).
    total = 0.0
    for q in range(N_QUERIES):
        total += _hits(q) / 10
    assert rows["all"]["P_10"] == total / N_QUERIES


def test_csv_prints_the_shortest_repr_of_each_double(
    files: tuple[str, str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    out, err, code = _cli(["-q", "-m", "P.10", "--format", "csv", *files], capsysbinary)
    assert code == 0, err
    frame = pl.read_csv(io.BytesIO(out), schema_overrides={"P_10": pl.String})
    for query, text in frame.filter(pl.col("query") != "all").iter_rows():
        hits = _hits(int(query[1:]))
        assert text == repr(hits / 10), (query, text)


def test_python_per_query_values_are_true_quotients(files: tuple[str, str]) -> None:
    result = rm.evaluate(files[0], files[1], ["P_10", "recall_10"])
    total = 0.0
    for query, precision, recall in result.per_query.iter_rows():
        hits = _hits(int(query[1:]))
        assert precision == hits / 10
        assert recall == hits / (hits + _extra(int(query[1:])))
        total += precision
    assert result.aggregate["P_10"][0] == total / N_QUERIES  # added in order, then divided


# --- --output and --format --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "kind"),
    [
        (".json", "json"),
        (".csv", "csv"),
        (".parquet", "parquet"),
        (".tsv", "trec"),
        (".txt", "trec"),
        ("", "trec"),
        (".JSON", "json"),
    ],
)
def test_output_format_follows_the_extension(
    files: tuple[str, str],
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    suffix: str,
    kind: str,
) -> None:
    target = tmp_path / f"eval{suffix}"
    out, err, code = _cli(["-m", "P.10", "--output", str(target), *files], capsysbinary)
    assert (code, out, err) == (0, b"", "")
    data = target.read_bytes()
    text, _, _ = _cli(["-m", "P.10", *files], capsysbinary)
    expected_value = float(text.split(b"\t")[-1])
    if kind == "trec":
        assert data == text
    elif kind == "json":
        assert json.loads(data) == [
            {"query": "all", "P_10": pytest.approx(expected_value, abs=5e-5)}
        ]
    elif kind == "csv":
        assert pl.read_csv(io.BytesIO(data))["query"].to_list() == ["all"]
    else:
        assert pl.read_parquet(io.BytesIO(data)).columns == ["query", "P_10"]
    assert list(tmp_path.iterdir()) == [target]  # no temporary file left behind


def test_an_unwritable_output_is_one_line_and_status_2(
    files: tuple[str, str], tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    target = tmp_path / "missing-folder" / "eval.json"
    out, err, code = _cli(["-m", "P.10", "--output", str(target), *files], capsysbinary)
    assert (code, out) == (2, b"")
    assert err == f"rankmetrics trec-eval: cannot write {target}: No such file or directory\n"


def _pty_run(
    args: list[str], *, stdout_tty: bool, delay: float | None = None
) -> tuple[bytes, bytes, int]:
    """Run the command line in a subprocess with stdout or stderr on a pseudo-terminal."""
    import pty  # POSIX only

    master, slave = pty.openpty()
    # With a delay, the line's timer thread starts the line; the work must not end
    # (and stop it) before it has: ``stop`` waits for ``start`` (5 s at most).
    setup = (
        ""
        if delay is None
        else (
            "import threading; import polars_rankmetrics._progress as p; "
            f"p.DELAY = {delay}; started = threading.Event(); "
            "start, stop = p.Progress.start, p.Progress.stop; "
            "p.Progress.start = lambda self: (start(self), started.set())[0]; "
            "p.Progress.stop = lambda self: (started.wait(5), stop(self))[1]; "
        )
    )
    code = (
        f"import sys; {setup}from polars_rankmetrics.cli import main; "
        f"sys.exit(main({['trec-eval', *args]!r}))"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=slave if stdout_tty else subprocess.PIPE,
        stderr=subprocess.PIPE if stdout_tty else slave,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    stdout, stderr = process.communicate()
    other = stderr if stdout_tty else stdout
    status_code = process.returncode
    os.close(master)
    return b"".join(chunks), other, status_code


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_parquet_to_a_terminal_is_refused(files: tuple[str, str]) -> None:
    terminal, err, code = _pty_run(["-m", "P.10", "--format", "parquet", *files], stdout_tty=True)
    assert code == 2
    assert terminal == b""
    assert err.decode().startswith("rankmetrics trec-eval: parquet output is binary")
    assert b"Traceback" not in err


# --- progress ---------------------------------------------------------------------------------


def test_progress_is_silent_when_stderr_is_not_a_terminal() -> None:
    stream = io.StringIO()
    with status("reading", stream=stream, delay=0.0) as step:
        time.sleep(0.2)
        step("evaluating")
        time.sleep(0.1)
    assert stream.getvalue() == ""


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_progress_shows_on_a_terminal_and_leaves_stdout_alone(files: tuple[str, str]) -> None:
    args = ["-q", "-m", "P.10", *files]
    plain = subprocess.run(
        [sys.executable, "-m", "polars_rankmetrics.cli", "trec-eval", *args],
        capture_output=True,
        check=True,
    )
    assert plain.stderr == b""  # not a terminal: silent
    terminal, out, code = _pty_run(args, stdout_tty=False, delay=0.0)
    assert code == 0
    assert b"rankmetrics: " in terminal  # the status line, on stderr
    assert out == plain.stdout


def test_progress_waits_for_its_delay() -> None:
    import pty

    master, slave = pty.openpty()
    os.set_blocking(master, False)
    with os.fdopen(slave, "w") as stream:
        with status("quick", stream=stream, delay=5.0):
            pass
        stream.flush()
        with pytest.raises(BlockingIOError):  # nothing was written
            os.read(master, 100)
    os.close(master)


# --- Evaluation prints well -------------------------------------------------------------------


def test_evaluation_repr_shows_run_counts_measures_and_aggregate() -> None:
    qrels = pl.DataFrame(
        {"query": ["q1", "q1", "q2", "q4"], "doc": ["a", "b", "c", "z"], "relevance": [1, 0, 1, 1]}
    )
    run = pl.DataFrame(
        {
            "query": ["q1", "q1", "q2", "q2", "q3"],
            "doc": ["a", "b", "d", "c", "e"],
            "score": [2.0, 1.0, 2.0, 1.0, 1.0],
            "run_id": ["my-run"] * 5,
        }
    )
    result = rm.evaluate(qrels, run, ["P@2", "recip_rank", "num_q", "num_rel_ret"])
    text = repr(result)
    assert str(result) == text
    lines = text.split("\n")
    assert lines[0] == (
        "Evaluation of run 'my-run': 2 queries evaluated (queries='run'); "
        "1 in the run only (ignored); "
        "1 in the qrels only (missing from the run)"
    )
    assert lines[1] == "measures (4): P@2, recip_rank, num_q, num_rel_ret"
    # q1: a relevant at 1; q2: c relevant at 2. P@2 = (1/2 + 1/2) / 2, RR = (1 + 1/2) / 2.
    assert lines[2:7] == [
        "aggregate (.aggregate):",
        "  P@2          0.5000",
        "  recip_rank   0.7500",
        "  num_q        2",
        "  num_rel_ret  2",
    ]
    assert lines[7] == "per query (.per_query): 2 rows x 4 columns"  # num_q: summary only
    assert "Measure(" not in text and " at 0x" not in text
    html = result._repr_html_()
    assert "my-run" in html and "<td>recip_rank</td><td>0.7500</td>" in html
    assert "Measure(" not in html


def test_evaluation_repr_elides_long_measure_lists(files: tuple[str, str]) -> None:
    text = repr(rm.evaluate(files[0], files[1], ["all_trec"]))
    assert "more: see .aggregate)" in text
    assert len(text.split("\n")) < 50
    assert "Measure(" not in text


# --- error paths without tracebacks -----------------------------------------------------------


@pytest.mark.parametrize("subcommand", ["trec-eval", "compare"])
def test_a_closed_pipe_ends_quietly(files: tuple[str, str], subcommand: str) -> None:
    """`rankmetrics ... | head -1`: no BrokenPipeError traceback, SIGPIPE's status 141."""
    args = ["-q", "-m", "all_trec"] if subcommand == "trec-eval" else ["-m", "AP", "-m", "P@5"]
    if subcommand == "compare":
        args += ["--format", "json"]
    script = (
        "import sys; from polars_rankmetrics.cli import main; "
        "sys.stdout.write(''); sys.exit(main(sys.argv[1:]))"
    )
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    done = subprocess.run(
        [sys.executable, "-c", script, subcommand, *args, *files],
        stdout=write,
        stderr=subprocess.PIPE,
        check=False,
    )
    os.close(write)
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    assert done.returncode == 141


def test_an_unwritable_chart_is_one_line(
    files: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "nowhere" / "chart.svg"
    assert main(["plot", *files, "-o", str(target)]) == 2
    assert capsys.readouterr().err == (
        f"rankmetrics: error: cannot write {target}: No such file or directory\n"
    )
