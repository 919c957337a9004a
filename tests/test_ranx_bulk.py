"""Ranx objects read in bulk (compiled: `evaluation.ranx_bulk`) against entry by entry.

The entry-by-entry reader walks ranx's typed dicts from Python, the obvious way;
the compiled one must give the same frame (ids, values, order), also for ids
beyond ASCII, and fall back where an id holds its separator.
"""

from __future__ import annotations

import math
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


def _trec_places(nested: dict[str, dict[str, float]]) -> list[int]:
    """Each entry's place in trec_eval's order, the obvious way: per query, by score
    descending, then doc id descending as UTF-8 bytes (Python's sort is stable)."""
    places: list[int] = []
    start = 0
    for docs in nested.values():
        entries = list(docs.items())
        by_doc = sorted(range(len(entries)), key=lambda i: entries[i][0].encode(), reverse=True)
        ranked = sorted(by_doc, key=lambda i: -entries[i][1])
        place = [0] * len(entries)
        for position, i in enumerate(ranked):
            place[i] = start + position
        places.extend(place)
        start += len(entries)
    return places


def test_trec_positions_are_trec_evals_order_of_the_entries() -> None:
    # Unsorted typed dicts (as `Run()` + `add_score` keep them), many ties,
    # 0.0 tying -0.0, ids that are prefixes of others, NULs, wide code points.
    rng = random.Random(7)
    odd = ["a", "ab", "abc", "a\x00", "b", "é", "e", "€", "𝄞", "z" * 12, ""]
    nested = {
        f"q{q}": {
            doc: rng.choice([0.0, -0.0, 0.5, 1.0, -1.0, float("inf"), rng.random()])
            for doc in [*odd, *(f"d{rng.randrange(10**4)}" for _ in range(rng.randrange(1, 90)))]
        }
        for q in range(40)
    }
    frame = _ranx.ranx_positioned(_typed(nested), "place")
    assert frame is not None
    assert_frame_equal(frame.drop("place"), _python(nested, "score", pl.Float64))
    assert frame.get_column("place").to_list() == _trec_places(nested)
    # ranx's own sorted Run: the same places of the same entries.
    run = ranx.Run(nested)
    frame = _ranx.ranx_positioned(run.run, "place")
    assert frame is not None
    ordered = run.to_dict()
    assert frame.get_column("place").to_list() == _trec_places(ordered)


def test_no_trec_positions_for_a_nan_score_or_a_small_run() -> None:
    nested = {f"q{q}": {f"d{d}": d / 7 for d in range(60)} for q in range(30)}
    nested["q3"]["d5"] = float("nan")
    assert _ranx.ranx_positioned(_typed(nested), "place") is None
    assert _ranx.ranx_positioned(_typed({"q": {"d": 1.0}}), "place") is None


def test_evaluate_of_a_ranx_run_equals_the_frames_and_pytrec_eval_on_ties() -> None:
    # rm.evaluate reads a ranx Run's places in trec_eval's order (one sort key);
    # the values must be the frames' path (a sort by score, then doc) and
    # pytrec_eval's (trec_eval's order of tied scores), bit for bit and to 1e-12.
    import math

    import pytrec_eval

    import polars_rankmetrics as rm
    from polars_rankmetrics.evaluation.inputs import positioned_run

    rng = random.Random(11)
    scores = {
        str(q): {f"d{rng.randrange(500)}": round(rng.random(), 1) for _ in range(90)}
        for q in range(40)
    }
    labels = {
        query: {doc: rng.randrange(-1, 4) for doc in docs if rng.random() < 0.4}
        for query, docs in scores.items()
    }
    for q in range(5):  # judged documents the run lacks, and queries it lacks
        labels[str(q)].update({f"x{d}": rng.randrange(0, 3) for d in range(6)})
        labels[f"only{q}"] = {"d1": 1}
    qrels, run = ranx.Qrels(labels), ranx.Run(scores)
    assert positioned_run(run, "place") is not None
    names = ["map", "P_5", "ndcg_cut_10", "recall_20", "recip_rank", "Rprec", "bpref", "ndcg"]
    pytrec = pytrec_eval.RelevanceEvaluator(labels, set(names) - {"recall_20"} | {"recall"})
    theirs = pytrec.evaluate(scores)
    for level in (1, 0, 2):
        ours = rm.evaluate(qrels, run, names, relevance_level=level)
        frames = rm.evaluate(read_qrels(qrels), read_run(run), names, relevance_level=level)
        assert_frame_equal(ours.per_query, frames.per_query, check_exact=True)
        assert_frame_equal(ours.aggregate, frames.aggregate, check_exact=True)
        if level != 1:
            continue
        for row in ours.per_query.iter_rows(named=True):
            for name in names:
                assert math.isclose(row[name], theirs[row["query"]][name], rel_tol=1e-12), name


def _python_join(
    labels: dict[str, dict[str, int]], scores: dict[str, dict[str, float]]
) -> list[tuple[str, float | None, int | None, int | None, bool]]:
    """The full join of qrels and run in trec_eval's order, the obvious way.

    The run's judged queries in its order, each: its entries by score descending
    then id descending (UTF-8 bytes), then the query's judged ids the run lacks
    by id descending; then the qrels queries the run lacks, ids descending.
    A row: (query, score, label, qrels row, in the run).
    """
    row_of = {}
    for query, docs in labels.items():
        for doc in docs:
            row_of[query, doc] = len(row_of)
    rows: list[tuple[str, float | None, int | None, int | None, bool]] = []

    def unretrieved(query: str, docs: set[str]) -> None:
        for doc in sorted(docs, key=str.encode, reverse=True):
            rows.append((query, None, labels[query][doc], row_of[query, doc], False))

    for query, docs in scores.items():
        if query not in labels:
            continue
        by_doc = sorted(docs, key=str.encode, reverse=True)
        for doc in sorted(by_doc, key=lambda d: -docs[d]):
            judged = doc in labels[query]
            label = labels[query][doc] if judged else None
            rows.append((query, docs[doc], label, row_of[query, doc] if judged else None, True))
        unretrieved(query, set(labels[query]) - set(docs))
    for query, docs in labels.items():
        if query not in scores:
            unretrieved(query, set(docs))
    return rows


def _joined_rows(
    joined: _ranx.Joined,
) -> list[tuple[str, float | None, int | None, int | None, bool]]:
    frame = joined.frame
    queries = joined.queries.gather(frame.get_column(_ranx.QUERY_CODE)).to_list()
    in_qrels = frame.get_column("in_qrels").to_list()
    return [
        (query, None if math.isnan(score) else score, label if judged else None,
         row if judged else None, in_run)
        for query, score, label, row, in_run, judged in zip(
            queries, frame.get_column("score").to_list(), frame.get_column("relevance").to_list(),
            frame.get_column("qrels_row").to_list(), frame.get_column("in_run").to_list(),
            in_qrels, strict=True,
        )
    ]  # fmt: skip


def test_the_joined_reader_is_the_full_join_in_trec_evals_order() -> None:
    # Ids that are prefixes of others, NULs, wide code points, ties (0.0 and
    # -0.0 too), run queries the qrels lack, qrels queries the run lacks, and
    # both a sorted ranx Run and an unsorted typed dict with unicode keys.
    rng = random.Random(13)
    odd = ["a", "ab", "a\x00", "é", "e", "€", "𝄞", "z" * 12, ""]
    scores = {
        f"q{q}": {
            doc: rng.choice([0.0, -0.0, 0.5, 1.0, rng.random()])
            for doc in [*odd, *(f"d{rng.randrange(300)}" for _ in range(rng.randrange(1, 60)))]
        }
        for q in range(40)
    }
    labels = {
        query: {doc: rng.randrange(-1, 4) for doc in docs if rng.random() < 0.8}
        for query, docs in scores.items()
        if query != "q3"
    }
    for q in range(0, 40, 4):  # judged ids the run lacks; queries the run lacks
        labels[f"q{q}"].update({f"x{d}": rng.randrange(0, 3) for d in range(9)})
        labels[f"only{q}"] = {f"d{d}": 1 for d in range(q + 1)}
    qrels = ranx.Qrels(labels)
    expected_labels = qrels.to_dict()
    for nested, ordered in ((ranx.Run(scores).run, None), (_typed(scores), scores)):
        joined = _ranx.ranx_joined(qrels.qrels, nested)
        assert joined is not None
        assert joined.ignored == 1  # q3
        ordered = ordered or ranx.Run(scores).to_dict()
        assert _joined_rows(joined) == _python_join(expected_labels, ordered)


def test_ranx_objects_hold_each_pair_once() -> None:
    # evaluate() skips the duplicate checks of ranx objects, and the joined
    # reader matches a run row to one qrels row: ranx keys each query's
    # documents in a typed dict (of a typed dict of queries), so writing a pair
    # again replaces its value and never adds a row.
    from numba.typed import Dict

    qrels = ranx.Qrels({"1": {"d1": 1, "d2": 0}, "2": {"d1": 2}})
    assert isinstance(qrels.qrels, Dict) and isinstance(qrels.qrels["1"], Dict)
    inner = qrels.qrels["1"]
    inner["d1"] = 3
    frame = read_qrels(qrels)
    assert frame.height == 3 and frame.select("query", "doc").is_unique().all()
    assert frame.filter(pl.col("query") == "1", pl.col("doc") == "d1")["relevance"].item() == 3


def test_evaluate_of_joined_ranx_objects_equals_the_frames() -> None:
    # The joined path against the frames' path: ignored and missing queries,
    # trec_eval's refusal of a missing query, measures outside trec_eval's
    # order (ascending ties: read the frames' way), every level.
    import polars_rankmetrics as rm

    rng = random.Random(17)
    scores = {
        str(q): {f"d{rng.randrange(400)}": round(rng.random(), 1) for _ in range(60)}
        for q in range(30)
    }
    labels = {query: {doc: rng.randrange(0, 3) for doc in docs} for query, docs in scores.items()}
    labels.pop("4")
    labels["nowhere"] = {"d1": 2}
    qrels, run = ranx.Qrels(labels), ranx.Run(scores)
    assert _ranx.ranx_joined(qrels.qrels, run.run) is not None
    frames = read_qrels(qrels), read_run(run)
    for names, level in ((["map", "ndcg_cut_10", "P_5", "recip_rank"], 1),
                         (["ndcg", "map"], 0), (["RR@10", "nDCG@5"], 2)):  # fmt: skip
        ours = rm.evaluate(qrels, run, names, relevance_level=level)
        theirs = rm.evaluate(*frames, names, relevance_level=level)
        assert_frame_equal(ours.per_query, theirs.per_query, check_exact=True)
        assert_frame_equal(ours.aggregate, theirs.aggregate, check_exact=True)
        counts = ("n_queries", "ignored_queries", "missing_queries", "no_relevant_queries")
        assert [getattr(ours, c) for c in counts] == [getattr(theirs, c) for c in counts]
        assert (ours.ignored_queries, ours.missing_queries) == (1, 1)
    with pytest.raises(ValueError, match="nowhere") as refused:
        rm.evaluate(qrels, run, ["map"], queries="trec_eval")
    with pytest.raises(ValueError) as frames_refused:
        rm.evaluate(*frames, ["map"], queries="trec_eval")
    assert str(refused.value) == str(frames_refused.value)
