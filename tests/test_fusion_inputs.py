"""fuse's inputs: every run shape fuses alike; bad inputs raise errors that name the problem."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics.fusion import fuse
from tests.fusion_data import nested_frame, random_runs

Nested = dict[str, dict[str, float]]


@pytest.fixture(scope="module")
def runs() -> list[Nested]:
    return random_runs(3, n_queries=20, depths=(8, 12, 5))


def _write_trec(run: Nested, path: Path) -> None:
    lines = [
        f"{q} Q0 {d} {i + 1} {s!r} sys"
        for q, docs in run.items()
        for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]))
    ]
    path.write_text("\n".join(lines) + "\n")


def test_every_input_shape_fuses_alike(runs: list[Nested], tmp_path: Path) -> None:
    expected = fuse(runs, method="rrf")
    assert isinstance(expected, pl.DataFrame)
    frames = [nested_frame(run) for run in runs]
    for i, (run, frame) in enumerate(zip(runs, frames, strict=True)):
        _write_trec(run, tmp_path / f"r{i}.trec")
        frame.write_parquet(tmp_path / f"r{i}.parquet")
    long = pl.concat([f.with_columns(system=pl.lit(f"s{i}")) for i, f in enumerate(frames)]).sample(
        fraction=1.0, shuffle=True, seed=1
    )
    shapes: list[Any] = [
        {f"s{i}": run for i, run in enumerate(runs)},
        frames,
        [f.to_pandas() for f in frames],
        [f.to_arrow() for f in frames],
        [str(tmp_path / f"r{i}.trec") for i in range(3)],
        long,
    ]
    for shape in shapes:
        assert_frame_equal(fuse(shape, method="rrf"), expected)
    lazy_shapes: list[Any] = [
        [f.lazy() for f in frames],
        [tmp_path / f"r{i}.parquet" for i in range(3)],
        long.lazy(),
    ]
    for shape in lazy_shapes:
        result = fuse(shape, method="rrf")
        assert isinstance(result, pl.LazyFrame)
        assert_frame_equal(result.collect(), expected)


def test_row_order_does_not_change_the_result(runs: list[Nested]) -> None:
    frames = [nested_frame(run) for run in runs]
    shuffled = [f.sample(fraction=1.0, shuffle=True, seed=i) for i, f in enumerate(frames)]
    for method in ["wsum", "rrf", "bordafuse", "condorcet", "med"]:
        weights = [0.2, 0.3, 0.5] if method == "wsum" else None
        assert_frame_equal(
            fuse(shuffled, method=method, weights=weights),  # type: ignore[arg-type]
            fuse(frames, method=method, weights=weights),  # type: ignore[arg-type]
        )


def test_nan_and_null_scores_are_not_retrieved() -> None:
    a = pl.DataFrame({"query": "q", "doc": ["x", "y", "z"], "score": [3.0, float("nan"), None]})
    b = pl.DataFrame({"query": "q", "doc": ["x", "w"], "score": [1.0, 2.0]})
    without = pl.DataFrame({"query": "q", "doc": ["x"], "score": [3.0]})
    assert_frame_equal(fuse([a, b], method="mnz"), fuse([without, b], method="mnz"))
    assert set(fuse([a, b], method="mnz")["doc"]) == {"x", "w"}


@pytest.mark.parametrize("shape", ["frames", "lazy frames", "long", "long lazy"])
@pytest.mark.parametrize("dtype", [pl.Float64, pl.Float32, pl.Int64])
def test_missing_scores_are_dropped_in_every_input_shape(shape: str, dtype: pl.DataType) -> None:
    # Eager runs are filtered only when they hold a null or NaN score: every shape
    # (and a run without any, next to one with) must give the fusion without those rows.
    nan = None if dtype == pl.Int64 else float("nan")
    a = pl.DataFrame(
        {"query": ["q", "q", "q", "r"], "doc": ["x", "y", "z", "x"], "score": [3, nan, None, 1]},
        schema_overrides={"score": dtype},
        strict=False,
    )
    b = pl.DataFrame({"query": ["q", "r"], "doc": ["w", "y"], "score": [2, 5]})
    b = b.cast({"score": dtype})
    kept = a.filter(pl.col("score").is_not_null() & pl.col("score").cast(pl.Float64).is_not_nan())

    def shaped(first: pl.DataFrame) -> object:
        if shape.startswith("long"):
            parts = [first.with_columns(system=pl.lit("a")), b.with_columns(system=pl.lit("b"))]
            long = pl.concat(parts)
            return long.lazy() if shape == "long lazy" else long
        return [first.lazy(), b.lazy()] if shape == "lazy frames" else [first, b]

    for method in ["mnz", "rrf"]:
        got, want = fuse(shaped(a), method=method), fuse(shaped(kept), method=method)  # type: ignore[arg-type]
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        want = want.collect() if isinstance(want, pl.LazyFrame) else want
        assert_frame_equal(got, want)
        assert got.height == 4


def test_query_missing_from_a_run_is_an_empty_result_list() -> None:
    a = {"q1": {"x": 2.0, "y": 1.0}, "q2": {"z": 1.0}}
    b = {"q1": {"y": 5.0, "x": 1.0}}
    fused = fuse([a, b], method="rrf", norm=None, k=0)
    assert fused.filter(pl.col("query") == "q2")["score"].to_list() == [1.0]
    x = fused.filter(pl.col("doc") == "x")["score"].item()
    assert math.isclose(x, 1 / 1 + 1 / 2)


def test_weights_by_name_equal_weights_in_order(runs: list[Nested]) -> None:
    named = {f"s{i}": run for i, run in enumerate(runs)}
    by_name = fuse(named, method="wsum", weights={"s2": 0.5, "s0": 0.2, "s1": 0.3})
    in_order = fuse(named, method="wsum", weights=[0.2, 0.3, 0.5])
    assert_frame_equal(by_name, in_order)


def test_top_level_exports() -> None:
    frame = pl.DataFrame({"system": 0, "query": "q", "doc": ["a", "b"], "score": [2.0, 1.0]})
    ranked = frame.with_columns(rank=rm.run_rank().over("system", "query"))
    assert ranked.select(rm.rrf_weight(k=0).sum()).item() == 1.5
    assert callable(rm.optimize_fusion)


RUN = {"q": {"a": 1.0, "b": 0.5}}
OTHER = {"q": {"a": 0.2, "c": 0.9}}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "rff"}, "did you mean 'rrf'"),
        ({"method": "combsum"}, "`method` must be one of"),
        ({"norm": "minmax"}, "did you mean 'min-max'"),
        ({"norm": 3}, "`norm` must be one of"),
        ({"method": "wsum"}, "needs `weights`"),
        ({"method": "wsum", "weights": [1.0]}, "1 values for 2 runs"),
        ({"method": "wsum", "weights": {"a": 1.0, "x": 1.0}}, "missing ['b'], unknown ['x']"),
        ({"method": "wsum", "weights": [1.0, -0.5]}, "must be >= 0"),
        ({"method": "wsum", "weights": [1.0, float("nan")]}, "finite numbers"),
        ({"method": "wsum", "weights": [1.0, float("inf")]}, "finite numbers"),
        ({"method": "rrf", "weights": [1.0, 1.0]}, "takes no `weights`"),
        ({"method": "rrf", "k": -1}, "`k` must be >= 0"),
        ({"method": "rrf", "k": float("inf")}, "`k` must be a finite number"),
        ({"method": "rrf", "phi": 0.5}, "takes no parameter 'phi'"),
        ({"method": "rbc"}, "needs the parameter 'phi'"),
        ({"method": "rbc", "phi": 1.5}, "`phi` must be in [0, 1]"),
        ({"method": "logn_isr", "sigma": -0.1}, "`sigma` must be in [0, 1]"),
        ({"method": "gmnz"}, "needs the parameter 'gamma'"),
        ({"method": "probfuse", "n_segments": 2}, "pass `train_qrels`"),
        ({"method": "probfuse", "n_segments": 0, "train_qrels": {"q": {"a": 1}}}, ">= 1"),
        ({"method": "slidefuse", "w": 1.5, "train_qrels": {"q": {"a": 1}}}, "integer >= 0"),
        ({"method": "sum", "train_qrels": {"q": {"a": 1}}}, "is not trained"),
    ],
)
def test_bad_parameters(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as error:
        fuse({"a": RUN, "b": OTHER}, **kwargs)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        ([], "`runs` is empty"),
        ({}, "`runs` is empty"),
        ("run.trec", "`runs` must be a mapping"),
        (
            [pl.DataFrame({"query": ["q", "q"], "doc": ["a", "a"], "score": [1.0, 2.0]}), RUN],
            "duplicate (query, doc) rows, e.g. ('q', 'a')",
        ),
        (
            pl.DataFrame({"system": ["s", "s"], "query": "q", "doc": "a", "score": [1.0, 2.0]}),
            "run 's' has duplicate (query, doc) rows",
        ),
        ([pl.DataFrame({"query": ["q"], "doc": ["a"], "score": ["high"]}), RUN], "numeric"),
        ([pl.DataFrame({"query": ["q"], "doc": ["a"]}), RUN], "no score column"),
    ],
)
def test_bad_runs(runs: Any, message: str) -> None:
    with pytest.raises(ValueError) as error:
        fuse(runs)
    assert message in str(error.value)


def test_training_runs_must_match() -> None:
    with pytest.raises(ValueError, match="`train_runs` has 1 runs and `runs` 2"):
        fuse([RUN, OTHER], method="posfuse", train_qrels={"q": {"a": 1}}, train_runs=[RUN])


@pytest.mark.parametrize("method", ["rrf", "sum", "max", "bordafuse", "condorcet"])
def test_duplicate_rows_found_inside_the_fusion(method: str) -> None:
    # The group-by methods find duplicates in their own group-by; the others before it.
    twice = pl.DataFrame({"query": ["q", "q", "q"], "doc": ["a", "b", "a"], "score": [3.0, 2, 1]})
    with pytest.raises(ValueError, match=r"run 'x' has duplicate \(query, doc\) rows"):
        fuse({"y": RUN, "x": twice}, method=method, norm=None)
    once = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [1.0, 0.5]})
    long = pl.concat(
        [twice.with_columns(system=pl.lit("x")), once.with_columns(system=pl.lit("y"))]
    )
    with pytest.raises(ValueError, match=r"run 'x' has duplicate \(query, doc\) rows"):
        fuse(long, method=method)


@pytest.mark.parametrize("n_runs", [33, 64, 65, 70])
def test_duplicate_rows_found_among_many_runs(n_runs: int) -> None:
    # Up to 64 runs, a duplicate is found by a bit per run (the last run's bit is 2**63);
    # beyond, by counting the distinct runs of each document.
    once = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [1.0, 0.5]})
    twice = pl.DataFrame({"query": ["q", "q", "q"], "doc": ["a", "b", "a"], "score": [3.0, 2, 1]})
    runs = {f"r{i}": once for i in range(n_runs - 1)}
    fused = fuse(runs, method="sum", norm=None)
    assert fused.get_column("score").to_list() == [n_runs - 1.0, (n_runs - 1) * 0.5]
    with pytest.raises(ValueError, match=rf"run 'r{n_runs - 1}' has duplicate \(query, doc\)"):
        fuse({**runs, f"r{n_runs - 1}": twice}, method="sum", norm=None)
