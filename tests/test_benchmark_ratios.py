"""``python -m benchmarks.ratios`` runs its parts on tiny data and prints its table (no timing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import ratios


def test_interleaved_keeps_the_best_of_each() -> None:
    calls: list[str] = []
    best = ratios.interleaved([lambda: calls.append("a"), lambda: calls.append("b")], 3)
    assert calls == ["a", "b"] * 3
    assert len(best) == 2 and all(seconds >= 0.0 for seconds in best)


def test_the_parts_run_and_agree_with_the_peers(tmp_path: Path) -> None:
    pytest.importorskip("pytrec_eval")
    rows = ratios.evaluate_rows(tmp_path, 1, [(20, 30)])  # asserts the means agree
    rows += ratios.diversity_rows(1, [30])
    table = ratios.markdown(rows)
    assert table.count("\n") == 3  # header, rule, two rows
    assert "pytrec_eval" in table and "alpha-nDCG@20" in table


def test_markdown_shows_differences_and_missing_peers() -> None:
    rows = [
        ratios._row("a", 0.5, 0.2, "<= +0.1 s", "diff"),
        ratios._row("b", 0.5, None, "<= 1.5x", "x"),
    ]
    lines = ratios.markdown(rows).splitlines()
    assert "+0.300 s" in lines[2]
    assert lines[3].endswith("| 0.500 |  |  | <= 1.5x |")
