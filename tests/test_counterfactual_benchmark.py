"""bench_counterfactual runs end to end at a tiny size, and agrees with obp's arithmetic."""

from __future__ import annotations

import pytest

from benchmarks.bench_counterfactual import main


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
def test_bench_counterfactual_runs_and_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--slates", "100", "--positions", "4", "--obp-slates", "20"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    body = rows[1:]
    assert len(body) == 7
    assert all(line.endswith("| True |") for line in body)


def test_bench_counterfactual_streaming(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--streaming", "4000", "--positions", "4", "--em-iterations", "2", "--expressions"])
    out = capsys.readouterr().out
    assert (
        "estimate(scan_parquet)" in out
        and "one select" in out
        and "fit_pbm, 2 iterations" in out
        and "per iteration" in out
    )
