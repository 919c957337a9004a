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
    assert sum(len(inner) for inner in run.run.values()) >= _ranx.COMPILED_FROM
    bulk = _ranx._compiled(run.run, "score", pl.Float64)
    assert bulk is not None
    assert_frame_equal(bulk, _ranx._entry_by_entry(run.run, "score", pl.Float64))
    assert_frame_equal(_ranx.ranx_frame(run.run, "score", pl.Float64), bulk)


def _python(nested: dict[str, dict[str, float]], value: str, dtype: pl.DataType) -> pl.DataFrame:
    """The frame of a plain dict, in its order: the obvious way."""
    rows = [(query, doc, number) for query, docs in nested.items() for doc, number in docs.items()]
    return pl.DataFrame(
        rows, schema={"query": pl.String, "doc": pl.String, value: dtype}, orient="row"
    )


def _typed(nested: dict[str, dict[str, float]]) -> object:
    """A typed dict with ``unicode_type`` doc ids (``Run()`` and ``add_score`` make these)."""
    from numba import types
    from numba.typed import Dict

    outer = Dict.empty(types.unicode_type, types.DictType(types.unicode_type, types.float64))
    for query, docs in nested.items():
        inner = Dict.empty(types.unicode_type, types.float64)
        for doc, score in docs.items():
            inner[doc] = score
        outer[query] = inner
    return outer


def test_ids_of_every_utf8_width_nuls_and_empty_queries() -> None:
    # 1 to 4 UTF-8 bytes a code point, NULs inside and at the end of ids (which
    # numpy's own view of a unicode array drops), an empty id, a query without
    # documents; numba's unicode keys (ranx's fixed-width ones: the tests above).
    odd = ["a\x00b", "tail\x00", "", "é", "€uro", "𝄞clef", "\x7f\x80\u07ff\u0800\uffff"]
    nested = {
        "q\x00": {doc: float(i) for i, doc in enumerate(odd)},
        "empty": {},
        **{f"q{q}€": {f"d{d}𝄞": q + d / 1000 for d in range(100)} for q in range(60)},
    }
    bulk = _ranx._compiled(_typed(nested), "score", pl.Float64)
    assert bulk is not None
    assert_frame_equal(bulk, _python(nested, "score", pl.Float64))
    assert set(odd) <= set(bulk.get_column("doc")) and "q\x00" in set(bulk.get_column("query"))
    assert "empty" not in set(bulk.get_column("query"))  # no rows, as read entry by entry


def test_a_lone_surrogate_is_read_entry_by_entry() -> None:
    nested = {"q": {"d\ud800": 1.0, **{f"d{d}": 0.5 for d in range(10)}}}
    assert _ranx._compiled(_typed(nested), "score", pl.Float64) is None


def test_labels_stay_exact_integers() -> None:
    big = 2**53 + 1  # not a float64
    labels = {str(q): {f"d{d}": big if d == 0 else d % 3 for d in range(120)} for q in range(50)}
    bulk = _ranx._compiled(ranx.Qrels(labels).qrels, "relevance", pl.Int64)
    assert bulk is not None
    expected = _python(labels, "relevance", pl.Int64)
    assert_frame_equal(bulk.sort("query", "doc"), expected.sort("query", "doc"))
    assert bulk.get_column("relevance").max() == big


def test_qrels_and_run_objects_read_like_their_dicts() -> None:
    rng = random.Random(1)
    labels = {str(q): {f"d{d}": rng.randrange(-1, 4) for d in range(130)} for q in range(45)}
    qrels = ranx.Qrels(labels)
    run = _run(45, 130, seed=2)
    assert_frame_equal(read_qrels(qrels), read_qrels(qrels.to_dict()))
    assert_frame_equal(read_run(run), read_run(run.to_dict()))
    assert read_qrels(qrels).schema["relevance"] == pl.Int64


def test_the_run_order_of_a_ranx_run_is_ranx_order_of_tied_scores() -> None:
    # ranx ranks tied scores in its Run's order (its own sort, not a documented
    # rule); read in bulk, that order is the frame's, so tie_break="input"
    # reproduces ranx.evaluate on tied scores, where trec_eval's order need not.
    import warnings

    import polars_rankmetrics as rm

    rng = random.Random(5)
    scores = {
        str(q): {f"d{d}": round(rng.random(), 1) for d in range(rng.randrange(40, 80))}
        for q in range(30)
    }  # one decimal: many ties; above COMPILED_FROM entries in all
    labels = {
        query: {doc: rng.randrange(0, 3) for doc in list(docs)[:25] if rng.random() < 0.6}
        for query, docs in scores.items()
    }
    labels = {query: docs for query, docs in labels.items() if any(docs.values())}
    scores = {query: scores[query] for query in labels}
    names = ["map", "ndcg@10", "precision@5", "recall@20", "mrr"]
    qrels, run = ranx.Qrels(labels), ranx.Run(scores)
    assert sum(len(docs) for docs in scores.values()) >= _ranx.COMPILED_FROM
    with warnings.catch_warnings():  # numba's own type-safety chatter inside ranx
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(qrels, run, names, return_mean=False)
    by_row = rm.evaluate(qrels, run, names, tie_break="input").per_query
    by_doc = rm.evaluate(qrels, run, names).per_query
    order = {query: index for index, query in enumerate(run.get_query_ids())}
    for frame, exact in ((by_row, True), (by_doc, False)):
        frame = frame.sort(pl.col("query").replace_strict(order))
        differences = [
            max(abs(a - b) for a, b in zip(frame.get_column(name), theirs[name], strict=True))
            for name in names
        ]
        assert (max(differences) < 1e-12) == exact, differences
