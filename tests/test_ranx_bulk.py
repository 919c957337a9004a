"""Ranx objects read in bulk (compiled: `evaluation.ranx_bulk`) against entry by entry.

The entry-by-entry reader walks ranx's typed dicts from Python, the obvious way;
the compiled one must give the same frame (ids, values, order), also for ids
beyond ASCII, and fall back where an id holds its separator.
"""

from __future__ import annotations

import random

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rankmetrics.evaluation import ranx_bulk as _ranx
from polars_rankmetrics.evaluation.inputs import read_qrels, read_run

ranx = pytest.importorskip("ranx")


def _run(n_queries: int, per_query: int, seed: int = 0) -> object:
    rng = random.Random(seed)
    nested = {
        f"q{q}é" if q % 3 == 0 else str(q): {
            f"d{rng.randrange(10**6)}{'€𝄞' if d % 7 == 0 else ''}": rng.random()
            for d in range(per_query)
        }
        for q in range(n_queries)
    }
    return ranx.Run(nested)


def test_the_compiled_reader_equals_entry_by_entry() -> None:
    run = _run(40, 150)  # 6,000 entries: above COMPILED_FROM
    sizes = [len(inner) for inner in run.run.values()]
    assert sum(sizes) >= _ranx.COMPILED_FROM
    assert _ranx._compiled(run.run, sizes, "score", pl.Float64) is not None
    bulk = _ranx.ranx_frame(run.run, "score", pl.Float64)
    assert_frame_equal(bulk, _ranx._entry_by_entry(run.run, "score", pl.Float64))


def test_an_id_holding_the_separator_is_read_entry_by_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = _run(40, 150)
    flatten = _ranx._flatten()

    def with_separator(nested: object) -> tuple[str, str, object]:
        queries, docs, values = flatten(nested)
        return queries, docs.replace("d", "\x00d", 1), values

    monkeypatch.setattr(_ranx, "_flatten", lambda: with_separator)
    sizes = [len(inner) for inner in run.run.values()]
    assert _ranx._compiled(run.run, sizes, "score", pl.Float64) is None
    bulk = _ranx.ranx_frame(run.run, "score", pl.Float64)
    assert_frame_equal(bulk, _ranx._entry_by_entry(run.run, "score", pl.Float64))


def test_qrels_and_run_objects_read_like_their_dicts() -> None:
    rng = random.Random(1)
    labels = {str(q): {f"d{d}": rng.randrange(-1, 4) for d in range(130)} for q in range(45)}
    qrels = ranx.Qrels(labels)
    run = _run(45, 130, seed=2)
    assert_frame_equal(read_qrels(qrels), read_qrels(qrels.to_dict()))
    assert_frame_equal(read_run(run), read_run(run.to_dict()))
    assert read_qrels(qrels).schema["relevance"] == pl.Int64
