"""The benchmark harness runs, and its agreement check passes on a small dataset."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from benchmarks.__main__ import parse_size, run_contender, table
from benchmarks.check import check
from benchmarks.data import write_dataset


def test_dataset_shape_and_check(tmp_path: Path) -> None:
    glob = str(write_dataset(tmp_path, 40, 25, rows_per_file=300))
    frame = pl.read_parquet(glob)
    assert frame.height == 1000
    assert frame["query"].n_unique() == 40
    assert len(list(tmp_path.glob("*/*.parquet"))) == 4  # written in chunks of whole queries
    assert frame["score"].null_count() > 0 and frame["relevance"].null_count() > 0
    assert "pytrec_eval and ranx" in check(glob)


def test_contenders_run_in_their_own_process(tmp_path: Path) -> None:
    glob = str(write_dataset(tmp_path, 20, 10))
    results = []
    for name in ("sort_floor", "metrics"):
        result = run_contender(name, glob, 1, {})
        result.update(label=name, suffix="", best=min(result["seconds"]))
        results.append(result)
    assert all(r["peak_rss_mib"] > 0 for r in results)
    shown = table(results, 1.0)
    assert shown["x sort floor"][0] == 1.0


def test_parse_size() -> None:
    assert parse_size("100_000x100") == (100_000, 100)
    with pytest.raises(Exception, match="QUERIESxDOCS"):
        parse_size("10M")


def test_the_profile_rebuilds_metrics_from_its_plan(tmp_path: Path) -> None:
    # benchmarks.profile_metrics cuts metrics()' serialised expression into steps:
    # the rebuilt whole must give metrics()' values (bit for bit), each step run.
    import polars_rankmetrics as rm
    from benchmarks.contenders import MEASURES
    from benchmarks.profile_metrics import fixed_costs, profile, steps

    glob = str(write_dataset(tmp_path, 30, 20))
    frame = pl.read_parquet(glob).lazy().group_by("query")
    rebuilt = frame.agg(steps(list(MEASURES))[-1][1].alias("m")).sort("query").collect()
    expected = frame.agg(rm.metrics("relevance", list(MEASURES), by="score").alias("m"))
    assert rebuilt.equals(expected.sort("query").collect())
    rows = profile(glob, 1, list(MEASURES))
    # the floor, the code, the sort stage, the staged frame, each aggregate, the whole
    assert len(rows) == len(steps(list(MEASURES))) >= 6
    assert all(cpu >= 0 for _, cpu, _ in rows)
    fixed = fixed_costs(glob, 1, list(MEASURES))  # building, then planning
    assert len(fixed) == 2 and all(cpu >= 0 for _, cpu in fixed)
