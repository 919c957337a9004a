"""Runs in memory grouped by query take integer keys (fusion/blocks.py): the same fused frames.

The reference is the same fusion keyed on the strings: lazy runs never take
the block path, so ``fuse(lazy runs)`` is the string-keyed pipeline itself.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rankmetrics.fusion import fuse
from polars_rankmetrics.fusion.blocks import find_blocks
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
