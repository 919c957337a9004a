"""The thread-scaling runner runs offline at a tiny size and prints one table (no timing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.contenders import CONTENDERS
from benchmarks.scaling import DEFAULT_CONTENDERS, FLOOR, SHORT, main, markdown


def test_scaling_runner_tiny(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "scaling.md"
    argv = ["--threads", "1", "2", "--sizes", "30x10", "--repeat", "1"]
    argv += ["--contenders", "metrics", "metrics_1", "metrics_10", "passes"]
    assert main([*argv, "--data-dir", str(tmp_path / "data"), "--output", str(output)]) == 0
    text = output.read_text()
    assert text.strip().endswith(capsys.readouterr().out.strip().rsplit("\n\n", 1)[-1].strip())
    rows = [line for line in text.splitlines() if line.startswith("| 30×10 |")]
    # The floor always runs, first, and every ratio is taken against it in the same run.
    assert [row.split(" | ")[1] for row in rows] == [
        SHORT[name] for name in (FLOOR, "metrics", "metrics_1", "metrics_10", "passes")
    ]
    floor = rows[0].split(" | ")
    assert floor[3] == floor[5] == floor[7] == floor[9] == "1.00"
    assert "failed" not in text
    assert "ten measures ÷ one, 30×10, wall: 1T" in text


def test_default_contenders_exist() -> None:
    assert DEFAULT_CONTENDERS[0] == FLOOR
    assert set(DEFAULT_CONTENDERS) <= set(CONTENDERS) & set(SHORT)


def test_markdown_marks_failures() -> None:
    best = {("1×1", 1, FLOOR): {"wall": 2.0, "cpu": 4.0}}
    text = markdown(best, ["1×1"], [1], [FLOOR, "metrics"])
    assert "| 1×1 | metrics(), 6 measures | failed |" in text
