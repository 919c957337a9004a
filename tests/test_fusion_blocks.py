"""Runs in memory grouped by query take integer keys (fusion/blocks.py): the same fused frames.

The reference is the same fusion keyed on the strings: lazy runs never take
the block path, so ``fuse(lazy runs)`` is the string-keyed pipeline itself.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rankmetrics.fusion import fuse, run_rank
from polars_rankmetrics.fusion.blocks import find_blocks
from polars_rankmetrics.fusion.fuse import ranking_order
from polars_rankmetrics.fusion.methods import BY_DOC
from polars_rankmetrics.fusion.runs import read_runs

# Query ids whose lexical order is not their numeric order, an empty id, ties in scores.
QUERIES = ["10", "9", "2", "", "q b", "é"]


def _runs(seed: int) -> list[pl.DataFrame]:
    rng = np.random.default_rng(seed)
    frames = []
    for system, depth in enumerate((6, 9, 4)):
        rows = []
        for query in QUERIES[system % 2 :]:  # run 1 misses the first query
            docs = rng.choice(12, size=depth, replace=False)
            scores = rng.integers(0, 4, size=depth).astype(float)  # many ties
            rows += [(query, f"d{d}", s * (system + 1)) for d, s in zip(docs, scores, strict=True)]
        frames.append(pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row"))
    return frames


PARAMS: dict[str, dict[str, float]] = {"gmnz": {"gamma": 0.5}, "rbc": {"phi": 0.8}}
WEIGHTED = {"wsum", "wmnz", "mixed"}


@pytest.mark.parametrize("method", sorted(BY_DOC))
@pytest.mark.parametrize(
    "norm", ["min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", None]
)
def test_block_keys_fuse_as_string_keys(method: str, norm: str | None) -> None:
    frames = _runs(7)
    weights = [0.5, 0.2, 0.3] if method in WEIGHTED else None
    options = {"method": method, "norm": norm, "weights": weights, **PARAMS.get(method, {})}
    assert find_blocks(read_runs(frames).frame.collect()) is not None
    eager = fuse(frames, **options)  # type: ignore[arg-type]
    lazy = fuse([frame.lazy() for frame in frames], **options)  # type: ignore[arg-type]
    assert isinstance(eager, pl.DataFrame)
    assert_frame_equal(eager, lazy.collect())


def test_runs_not_grouped_by_query_have_no_blocks() -> None:
    frames = _runs(3)
    # Run 0's first query split in two: its rows no longer come together.
    split = pl.concat([frames[0].head(2), frames[0].tail(3), frames[0].slice(2, 5)])
    assert find_blocks(read_runs([split, *frames[1:]]).frame.collect()) is None
    shuffled = [split, *frames[1:]]
    assert_frame_equal(
        fuse(shuffled, method="rrf"),
        fuse([frame.lazy() for frame in shuffled], method="rrf").collect(),
    )


def test_null_query_ids_and_empty_runs_have_no_blocks() -> None:
    frame = pl.DataFrame({"query": ["q", None], "doc": ["a", "b"], "score": [1.0, 2.0]})
    assert find_blocks(read_runs([frame]).frame.collect()) is None
    fused = fuse([frame, frame.with_columns(score=-pl.col("score"))], method="sum")
    assert fused.get_column("query").to_list() == [None, "q"]
    assert find_blocks(read_runs([frame]).frame.collect().clear()) is None


def test_codes_follow_the_sorted_query_ids() -> None:
    blocks = find_blocks(read_runs(_runs(1)).frame.collect())
    assert blocks is not None
    assert blocks.queries.to_list() == sorted(QUERIES)
    decoded = blocks.decode(blocks.frame.lazy()).collect().get_column("query")
    assert decoded.to_list() == read_runs(_runs(1)).frame.collect().get_column("query").to_list()
    assert blocks.frame.get_column("_block").flags["SORTED_ASC"]


def _in_rank_order(frames: list[pl.DataFrame], *, doc_descending: bool) -> list[pl.DataFrame]:
    """Each run sorted by query, then score descending; ties by document id either way."""
    return [
        frame.sort(["query", "score", "doc"], descending=[False, True, doc_descending])
        for frame in frames
    ]


@pytest.mark.parametrize("method", ["rrf", "isr", "log_isr", "logn_isr", "rbc"])
@pytest.mark.parametrize("norm", ["min-max", "max", "rank", None, "min-max-inverted"])
@pytest.mark.parametrize("doc_descending", [True, False])
def test_runs_in_rank_order_take_their_ranks_from_the_order(
    method: str, norm: str | None, doc_descending: bool
) -> None:
    # Many tied scores: with document ids ascending among ties, the order is not the
    # rank order, and the ranks come from the window over the blocks instead.
    frames = _in_rank_order(_runs(11), doc_descending=doc_descending)
    blocks = find_blocks(read_runs(frames).frame.collect())
    assert blocks is not None
    assert (blocks.ranks() is not None) == doc_descending
    options = {"method": method, "norm": norm, **PARAMS.get(method, {})}
    eager = fuse(frames, **options)  # type: ignore[arg-type]
    lazy = fuse([frame.lazy() for frame in frames], **options)  # type: ignore[arg-type]
    assert isinstance(eager, pl.DataFrame)
    assert_frame_equal(eager, lazy.collect())


def test_ranks_from_the_order_are_the_window_ranks() -> None:
    frames = _in_rank_order(_runs(5), doc_descending=True)
    blocks = find_blocks(read_runs(frames).frame.collect())
    assert blocks is not None
    ranks = blocks.ranks()
    assert ranks is not None
    window = blocks.frame.select(run_rank().over("_block")).to_series()
    assert ranks.to_list() == window.to_list()
    # A score above its predecessor in a block: not in rank order.
    swapped = [frames[0].with_columns(pl.col("score").reverse().over("query")), *frames[1:]]
    swapped_blocks = find_blocks(read_runs(swapped).frame.collect())
    assert swapped_blocks is not None
    assert swapped_blocks.ranks() is None


def test_ranking_order_is_the_three_key_sort() -> None:
    # Many ties, NaN (which ties with NaN), infinities and both zeros.
    rng = np.random.default_rng(5)
    values = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 0.5, 2.0])
    fused = pl.DataFrame(
        {
            "query": rng.integers(0, 7, 400).astype(np.uint32),
            "doc": [f"d{i}" for i in rng.permutation(400)],
            "score": rng.choice(values, 400),
        }
    )
    want = fused.sort(["query", "score", "doc"], descending=[False, True, True])
    assert_frame_equal(ranking_order(fused), want)
    assert_frame_equal(ranking_order(fused.head(0)), want.head(0))
    untied = fused.with_columns(score=pl.Series(rng.permutation(400), dtype=pl.Float64))
    assert_frame_equal(
        ranking_order(untied),
        untied.sort(["query", "score", "doc"], descending=[False, True, True]),
    )


@pytest.mark.parametrize("method", ["sum", "rrf", "max", "mnz"])
@pytest.mark.parametrize("norm", ["min-max", None])
def test_infinite_scores_fuse_as_string_keys(method: str, norm: str | None) -> None:
    # inf - inf gives NaN fused scores; -0.0 and 0.0 tie.
    frames = [
        pl.DataFrame(
            {"query": "q", "doc": ["a", "b", "c", "d"], "score": [np.inf, 1.0, 0.0, -0.0]}
        ),
        pl.DataFrame({"query": "q", "doc": ["b", "a", "e"], "score": [np.inf, np.inf, -np.inf]}),
    ]
    eager = fuse(frames, method=method, norm=norm)  # type: ignore[arg-type]
    lazy = fuse([frame.lazy() for frame in frames], method=method, norm=norm)  # type: ignore[arg-type]
    assert isinstance(eager, pl.DataFrame)
    assert_frame_equal(eager, lazy.collect())
