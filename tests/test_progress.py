"""Progress bars: standard error only, off when it is not a terminal or with --quiet,
counts and the time left when drawn; the same significance markers in the CLI and in Python."""

from __future__ import annotations

import inspect
import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics._progress import progress
from polars_rankmetrics.cli import main
from polars_rankmetrics.comparisons import report
from polars_rankmetrics.comparisons.output import DEFAULT_MARKERS, MARKERS
from polars_rankmetrics.trec.cli import without_quiet

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def frames(text: str) -> list[str]:
    """The distinct lines a bar drew (carriage returns separate redraws)."""
    return list(dict.fromkeys(ANSI.sub("", text).replace("\n", "\r").split("\r")))


def test_forced_on_it_shows_the_step_the_counts_and_the_time_left() -> None:
    stream = io.StringIO()  # not a terminal: drawn only because show=True
    with progress("Evaluating runs", 4, stream=stream, delay=0.0, show=True) as bar:
        for _ in range(4):
            time.sleep(0.15)
            bar.advance()
        time.sleep(0.15)
    drawn = frames(stream.getvalue())
    counted = [line for line in drawn if "rankmetrics: Evaluating runs" in line]
    assert counted, drawn
    done = sorted({int(m) for line in counted for m in re.findall(r" (\d)/4 ", line)})
    assert done[-1] == 4 and len(done) >= 2  # the count moves
    assert all("left" in line for line in counted)  # the time left
    assert any(re.search(r"left \d+:\d\d:\d\d", line) for line in counted)


def test_a_step_without_a_total_shows_no_count() -> None:
    stream = io.StringIO()
    with progress("reading", stream=stream, delay=0.0, show=True) as bar:
        time.sleep(0.15)
        bar.step("testing 3 systems", 2)
        bar.advance()
        time.sleep(0.15)
    drawn = frames(stream.getvalue())
    reading = [line for line in drawn if "rankmetrics: reading" in line]
    assert reading and not any("/" in line or "left" in line for line in reading)
    assert any("testing 3 systems" in line and "1/2" in line for line in drawn)


@pytest.mark.parametrize("show", [None, False])
def test_off_when_not_a_terminal_or_turned_off(show: bool | None) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = io.StringIO() if show is None else Terminal()
    with progress("Evaluating runs", 2, stream=stream, delay=0.0, show=show) as bar:
        bar.advance()
        bar.advance()
    assert stream.getvalue() == ""


def test_the_old_calling_style_still_counts() -> None:
    with progress("Evaluating runs", 2, stream=io.StringIO()) as advance:
        advance()
        advance()
    assert advance.completed == 2


def test_trec_eval_takes_quiet_as_a_whole_word_only() -> None:
    assert without_quiet(["--quiet", "-q", "a", "b"]) == (["-q", "a", "b"], True)
    assert without_quiet(["--q", "a", "b"]) == (["--q", "a", "b"], False)  # --query_eval_wanted
    assert without_quiet(["-q", "--", "--quiet"]) == (["-q", "--", "--quiet"], False)


def _runs(folder: Path, n_runs: int = 3) -> list[str]:
    rng = np.random.default_rng(3)
    qrels = [f"q{q} 0 d{d} {int(rng.random() < 0.3)}" for q in range(12) for d in range(10)]
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    paths = [str(folder / "qrels.txt")]
    for run in range(n_runs):
        lines = [
            f"q{q} Q0 d{d} {d + 1} {rng.random():.6f} r{run}" for q in range(12) for d in range(10)
        ]
        (folder / f"r{run}.txt").write_text("\n".join(lines) + "\n")
        paths.append(str(folder / f"r{run}.txt"))
    return paths


def _on_a_terminal(args: list[str]) -> tuple[bytes, bytes, int]:
    """``rankmetrics ARGS`` with stderr on a pseudo-terminal and no delay; (stdout, stderr)."""
    import pty  # POSIX only

    master, slave = pty.openpty()
    code = (
        "import sys; import polars_rankmetrics._progress as p; p.DELAY = 0.0; "
        f"from polars_rankmetrics.cli import main; sys.exit(main({args!r}))"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    stdout, _ = process.communicate()
    os.close(master)
    return stdout, b"".join(chunks), process.returncode


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_compare_counts_runs_and_tests_on_stderr_and_quiet_turns_it_off(tmp_path: Path) -> None:
    paths = _runs(tmp_path)
    args = ["compare", *paths, "-m", "map", "-m", "P_5", "--baseline", "r0"]
    plain = subprocess.run(
        [sys.executable, "-m", "polars_rankmetrics.cli", *args], capture_output=True, check=True
    )
    out, err, code = _on_a_terminal(args)
    assert code == 0
    assert out == plain.stdout  # standard output is the same table
    drawn = " ".join(frames(err.decode()))
    assert re.search(r"Evaluating runs .*[0-3]/3", drawn), drawn
    assert re.search(r"Testing 3 systems .*[0-2]/2", drawn), drawn
    out, err, code = _on_a_terminal([*args, "--quiet"])
    assert (code, out, err) == (0, plain.stdout, b"")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_trec_eval_names_its_steps_on_stderr_and_quiet_turns_it_off(tmp_path: Path) -> None:
    qrels, run = _runs(tmp_path, 1)
    args = ["trec-eval", "-q", "-m", "map", qrels, run]
    plain = subprocess.run(
        [sys.executable, "-m", "polars_rankmetrics.cli", *args], capture_output=True, check=True
    )
    out, err, code = _on_a_terminal(args)
    assert (code, out) == (0, plain.stdout)
    assert b"rankmetrics: " in err
    out, err, code = _on_a_terminal([*args, "--quiet"])
    assert (code, out, err) == (0, plain.stdout, b"")


def test_compare_one_measure_at_a_time_is_one_call(tmp_path: Path) -> None:
    """The CLI tests the measures one by one (to count them): the same rows as one call."""
    rng = np.random.default_rng(5)
    per_query = pl.DataFrame(
        {
            "system": np.repeat(["a", "b", "c"], 15),
            "query": np.tile([f"q{i}" for i in range(15)], 3),
            "AP": rng.random(45),
            "nDCG": rng.random(45),
        }
    )
    options = {"baseline": "a", "test": "randomization", "n_resamples": 500}
    whole = rm.compare(per_query, **options)
    parts = pl.concat([rm.compare(per_query, metrics=[m], **options) for m in ("AP", "nDCG")])
    assert parts.equals(whole)


def test_evaluate_parquet_counts_its_passes() -> None:
    df = pl.DataFrame(
        {"query": [1, 1, 2, 2, 3], "score": [3, 2, 1, 2, 1], "relevance": [1, 0, 1, 1, 0]}
    )
    stream = io.StringIO()
    original = sys.stderr
    sys.stderr = stream
    try:
        import polars_rankmetrics._progress as p

        delay, p.DELAY = p.DELAY, 0.0
        try:
            forced = rm.evaluate_parquet(df, ["AP"], partitions=3, show_progress=True)
        finally:
            p.DELAY = delay
    finally:
        sys.stderr = original
    assert forced.equals(rm.evaluate_parquet(df, ["AP"], partitions=3, show_progress=False))
    assert "evaluating parquet: passes" in ANSI.sub("", stream.getvalue())
    with pytest.raises(ValueError, match="`show_progress` must be True, False or None"):
        rm.evaluate_parquet(df, ["AP"], show_progress="yes")  # type: ignore[arg-type]


def test_the_markers_default_alike_in_the_cli_and_in_python(
    capsys: pytest.CaptureFixture[str],
) -> None:
    markers = MARKERS[DEFAULT_MARKERS]
    for function, gain, loss in (
        (report.markdown_table, markers.gain, markers.loss),
        (report.latex_table, markers.latex_gain, markers.latex_loss),
    ):
        parameters = inspect.signature(function).parameters
        assert (parameters["marker"].default, parameters["loss_marker"].default) == (gain, loss)
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert f"(default: {DEFAULT_MARKERS})" in " ".join(capsys.readouterr().out.split())
