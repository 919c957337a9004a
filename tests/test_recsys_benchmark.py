"""bench_recsys runs end to end at a tiny size, and both sides agree."""

from __future__ import annotations

import re

import pytest

from benchmarks.bench_recsys import main


def test_bench_recsys_runs_and_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("rectools.metrics")
    main(
        [
            "--users",
            "300",
            "--items",
            "120",
            "--train",
            "3000",
            "--ild-users",
            "100",
            "--repeat",
            "1",
            "--threads",
            "1",
        ]
    )
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| 1 |")]
    assert len(rows) == 6
    differences = [float(x) for x in re.findall(r"\| (\d\.\de[-+]\d+) \|$", out, re.M)]
    assert len(differences) == 2 and max(differences) < 1e-9
