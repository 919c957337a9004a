"""evaluate()'s one-query path (``evaluation/one_pass.py``) against its eager path.

Under the query sets ``'run'`` and ``'trec_eval'`` without ``max_per_query``,
``judged_only`` or diversity levels, ``evaluate()`` computes the measures, the
query counts and the duplicate checks in one query; every other option takes
the eager path (restrict the qrels, filter the run, then the measures), which
``tests/test_trec_pytrec.py`` and the peer tests check against pytrec_eval,
ir_measures and ranx. ``max_per_query`` larger than every query keeps every
row, so it gives the eager path the same input: the results must be identical,
bit for bit. The sorting network of nDCG@k's ideal, planned from
``NETWORK_MIN_ROWS`` rows, must give the same bits as the sorted ideal.
"""

from __future__ import annotations

import importlib

import numpy as np
import polars as pl
import pytest
import pytrec_eval
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics.engine import entry
from polars_rankmetrics.evaluation import one_pass, topics

evaluate_module = importlib.import_module("polars_rankmetrics.evaluation.evaluate")

MEASURES = [
    "map", "P_10", "ndcg_cut_10", "recip_rank", "Rprec", "recall_100", "bpref", "num_q",
    "gm_map", "num_ret", "relstring", "nDCG@5", "RR@10", "RBP(rel=1)", "AP(rel=2)",
    "ndcg_cut.1,3,20",
]  # fmt: skip
"""trec_eval's and ir_measures' names: tie orders by docno both ways and the run's order."""


def case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Ties, NaN scores, graded and negative labels, more than 10 relevant documents in
    some queries (the network's long lists), queries in the run only and in the qrels only."""
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for query in range(16):
        docs = [f"d{i:03d}" for i in rng.choice(400, size=60, replace=False)]
        retrieved = docs[: int(rng.integers(1, 50))]
        scores = rng.integers(0, 5, size=len(retrieved)) / 2.0
        scores[rng.random(len(retrieved)) < 0.05] = np.nan
        if query != 14:  # only in the qrels
            run_rows += [
                (f"q{query}", doc, float(s)) for doc, s in zip(retrieved, scores, strict=True)
            ]
        if query == 15:  # only in the run
            continue
        for doc in rng.choice(docs, size=int(rng.integers(5, 45)), replace=False):
            label = int(rng.choice([-1, 0, 1, 1, 2, 3])) if query != 3 else 0
            qrels_rows.append((f"q{query}", str(doc), label))
    run = pl.DataFrame(run_rows, schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query", "doc", "relevance"], orient="row")
    return run, qrels


def same(a: rm.Evaluation, b: rm.Evaluation) -> None:
    assert_frame_equal(a.per_query, b.per_query, check_exact=True)
    assert_frame_equal(a.aggregate, b.aggregate, check_exact=True)
    counts = ("n_queries", "ignored_queries", "missing_queries", "no_relevant_queries")
    for name in (*counts, "run_id", "query_set"):
        assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize(
    ("seed", "level", "tie_break"),
    [(0, 1, "tool"), (1, 0, "tool"), (2, 2, "doc_ascending"), (3, 1, "input")],
)
def test_one_pass_equals_the_eager_path(seed: int, level: int, tie_break: str) -> None:
    run, qrels = case(seed)
    options = {"relevance_level": level, "tie_break": tie_break}
    one = rm.evaluate(qrels, run, MEASURES, **options)  # type: ignore[arg-type]
    eager = rm.evaluate(qrels, run, MEASURES, max_per_query=10**6, **options)  # type: ignore[arg-type]
    same(one, eager)
    assert (one.n_queries, one.ignored_queries, one.missing_queries) == (14, 1, 1)


def test_one_pass_equals_pytrec_eval_with_queries_on_one_side() -> None:
    run, qrels = case(4)
    names = ["map", "P_10", "ndcg_cut_10", "recip_rank", "Rprec", "recall_100"]
    ours = rm.evaluate(qrels, run, names)
    run_dict: dict[str, dict[str, float]] = {}
    for query, doc, score in run.iter_rows():
        if score == score:  # pytrec_eval has no NaN: a NaN score is not retrieved here
            run_dict.setdefault(query, {})[doc] = score
    qrels_dict: dict[str, dict[str, int]] = {}
    for query, doc, label in qrels.iter_rows():
        qrels_dict.setdefault(query, {})[doc] = label
    theirs = pytrec_eval.RelevanceEvaluator(qrels_dict, set(names)).evaluate(run_dict)
    assert sorted(theirs) == ours.per_query.get_column("query").to_list()
    for row in ours.per_query.iter_rows(named=True):
        for name in names:
            assert row[name] == pytest.approx(theirs[row["query"]][name], abs=1e-12), name


def test_the_sorting_network_gives_the_same_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    run, qrels = case(5)
    sorted_ideal = rm.evaluate(qrels, run, MEASURES)
    monkeypatch.setattr(topics, "NETWORK_MIN_ROWS", 0)
    network = rm.evaluate(qrels, run, MEASURES)
    same(network, sorted_ideal)


def test_the_plain_paths_are_not_answered_from_the_remembered_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run, qrels = case(6)
    fast = rm.evaluate(qrels, run, MEASURES)
    before = len(topics._STRUCTS)
    monkeypatch.setattr(entry, "FAST_PATHS", False)
    plain = rm.evaluate(qrels, run, MEASURES)
    assert len(topics._STRUCTS) > before  # built afresh for the plain paths
    same(plain, fast)


def test_duplicates_of_an_unjudged_query_are_ignored_and_of_a_judged_one_refused() -> None:
    run, qrels = case(7)
    unjudged = pl.DataFrame({"query": ["q15"], "doc": [run.row(-1)[1]], "score": [1.0]})
    doubled = pl.concat([run, unjudged])
    same(rm.evaluate(qrels, doubled, ["map"]), rm.evaluate(qrels, run, ["map"]))
    judged = pl.concat([run, run.filter(pl.col("query") == "q2").head(1)])
    with pytest.raises(ValueError, match=r"the run lists .* more than once for query 'q2'"):
        rm.evaluate(qrels, judged, ["map"])
    with pytest.raises(ValueError, match=r"the qrels lists document .* more than once"):
        rm.evaluate(pl.concat([qrels, qrels.head(1)]), run, ["map"])


def test_the_query_set_errors() -> None:
    run, qrels = case(8)
    with pytest.raises(ValueError, match="query 'q14' of the qrels is not in the run"):
        rm.evaluate(qrels, run, ["map"], queries="trec_eval")
    elsewhere = run.with_columns(pl.col("query") + "x")
    with pytest.raises(ValueError, match=r"no query is in both .*the run has 15 query ids"):
        rm.evaluate(qrels, elsewhere, ["map"])


def test_may_repeat_a_pair() -> None:
    frame = pl.DataFrame({"query": ["a", "a", "b", "b"], "doc": ["x", "y", "x", "z"]})
    assert not one_pass.may_repeat_a_pair(frame)
    assert not one_pass.may_repeat_a_pair(frame.head(1))
    assert not one_pass.may_repeat_a_pair(frame.clear())
    assert one_pass.may_repeat_a_pair(pl.concat([frame, frame.tail(1)]))
    crossed = pl.DataFrame({"query": ["a", "b"], "doc": ["b", "a"]})
    assert not one_pass.may_repeat_a_pair(crossed)  # the two ids hash differently


def test_a_hash_tie_without_a_repeated_pair_is_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    run, qrels = case(9)
    expected = rm.evaluate(qrels, run, ["map", "P_10"])
    for module in (one_pass, evaluate_module):
        monkeypatch.setattr(module, "may_repeat_a_pair", lambda _: True)
    same(rm.evaluate(qrels, run, ["map", "P_10"]), expected)
    same(rm.evaluate(qrels, run, ["map", "P_10"], max_per_query=10**6), expected)
