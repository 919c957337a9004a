"""Each peer's measure names mean what the peer computes: per-query values against the tool.

One test per name family, on random data with tied scores, graded and negative
labels, unjudged retrieved documents, judged documents never retrieved, queries
without relevant documents and queries on one side only:

- ir_measures' names against ir_measures itself (its default providers:
  pytrec_eval, msmarco, judged, gdeval, cwl_eval), with ties: ``evaluate()``
  breaks them as each name's provider does (``tie_break='tool'``);
- ranx's names against ranx, on data without ties (ranx leaves their order
  unspecified);
- pytrec_eval's measure strings against pytrec_eval.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import ir_measures
import numpy as np
import polars as pl
import pytest
import pytrec_eval
import ranx

import polars_rankmetrics as rm


def collection(
    seed: int, *, ties: bool = True, n_queries: int = 14
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Qrels and a run (numeric query ids, for gdeval). Labels -1..3; query 3 has no
    relevant document, query 4 is only in the run (so every qrels query is in the run)."""
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for q in range(n_queries):
        query = str(100 + q)
        docs = [f"d{i:03d}" for i in rng.choice(400, size=40, replace=False)]
        retrieved = docs[: int(rng.integers(1, 30))]
        if ties:
            scores = rng.integers(0, 6, size=len(retrieved)) / 2.0
        else:
            scores = rng.permutation(len(retrieved)) + rng.random()
        run_rows += [(query, doc, float(s)) for doc, s in zip(retrieved, scores, strict=True)]
        if q == 4:
            continue
        judged = rng.choice(docs, size=int(rng.integers(5, 35)), replace=False)
        for doc in judged:
            label = int(rng.choice([-1, 0, 0, 1, 2, 3]))
            qrels_rows.append((query, str(doc), 0 if q == 3 and label > 0 else label))
    run = pl.DataFrame(run_rows, schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query", "doc", "relevance"], orient="row")
    return qrels, run


def nested(frame: pl.DataFrame) -> dict[str, dict[str, Any]]:
    """``{query: {doc: value}}``, as pytrec_eval and ranx take runs and qrels."""
    result: dict[str, dict[str, Any]] = {}
    for query, doc, value in frame.iter_rows():
        result.setdefault(query, {})[doc] = value
    return result


def assert_per_query(
    ours: pl.DataFrame, theirs: dict[tuple[str, str], float], names: list[str], tol: float
) -> None:
    checked = 0
    for row in ours.iter_rows(named=True):
        for name in names:
            expected = theirs[(row["query"], name)]
            assert math.isclose(row[name], expected, rel_tol=tol, abs_tol=tol), (
                row["query"],
                name,
                row[name],
                expected,
            )
            checked += 1
    assert checked >= len(names) * 10


# ------------------------------------------------------------------ ir_measures

IR_MEASURES_NAMES = [
    # pytrec_eval provider (ties: document id descending)
    "AP", "AP@10", "AP(rel=2)", "AP(rel=2)@10", "MAP", "MAP(cutoff=5)",
    "P@5", "P(rel=2)@10", "Precision@3", "R@10", "R(rel=2)@20", "Recall@5",
    "nDCG", "nDCG@10", "NDCG@5", "nDCG(gains={0:0,1:1,2:3})@10",
    "nDCG(gains={0:0,1:1,2:3,3:10})", "nDCG(judged_only=True)@10", "nDCG(judged_only=True)",
    "AP(judged_only=True)", "P(judged_only=True)@5", "RR(judged_only=True)",
    "RR", "RR(rel=2)", "Rprec", "Rprec(rel=2)", "RPrec", "Success@5", "Success(rel=2)@10",
    "Bpref", "Bpref(rel=2)", "BPref", "infAP",
    "IPrec@0.3", "IPrec@0.5", "IPrec(rel=2)@0.2", "IPrec@0.8",
    "SetP", "SetP(rel=2)", "SetP(relative=True)", "SetRelP", "SetR", "SetR(rel=2)",
    "SetF", "SetF(beta=2.0)", "SetF(beta=0.5,rel=2)", "SetAP", "SetAP(rel=2)",
    "NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRel", "NumRelRet",
    # msmarco provider (ties: document id ascending)
    "RR@10", "RR(rel=2)@5", "MRR@3",
    # judged provider (ties: document id ascending)
    "Judged", "Judged@5", "Judged@40",
    # cwl_eval provider (ties: the run's order)
    "RBP(rel=1)", "RBP(p=0.5,rel=2)", "RBP(p=0.95,rel=1)",
    # gdeval provider (ties: document id descending; prints 5 decimals)
    "nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@3",
]  # fmt: skip


def ir_measures_run(
    names: list[str], qrels: pl.DataFrame, run: pl.DataFrame
) -> tuple[dict[tuple[str, str], float], dict[str, float]]:
    parsed = {name: ir_measures.parse_measure(name) for name in names}
    # One call per measure: ir_measures 0.4.3's pytrec_eval provider puts a measure that
    # "doesn't matter where it goes" (NumRet, NumRel, NumQ, nDCG without gains) in
    # whichever pytrec_eval invocation it built first, so NumRet may count judged documents
    # only (a judged_only invocation) and nDCG may use custom gains, depending on the
    # order of a set of measures, which follows the hash seed.
    qrel_rows = [ir_measures.Qrel(*row) for row in qrels.iter_rows()]
    run_rows = [ir_measures.ScoredDoc(*row) for row in run.iter_rows()]
    values: dict[tuple[str, str], float] = {}
    means: dict[str, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for measure in {str(m): m for m in parsed.values()}.values():  # AP and MAP are one
            values |= {
                (metric.query_id, str(metric.measure)): float(metric.value)
                for metric in ir_measures.iter_calc([measure], qrel_rows, run_rows)
            }
            means |= {
                str(m): float(v)
                for m, v in ir_measures.calc_aggregate([measure], qrel_rows, run_rows).items()
            }
    per_query = {
        (query, name): value
        for name, measure in parsed.items()
        for (query, spelled), value in values.items()
        if spelled == str(measure)
    }
    return per_query, {name: means[str(measure)] for name, measure in parsed.items()}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ir_measures_names_equal_ir_measures(seed: int) -> None:
    qrels, run = collection(seed)
    ours = rm.evaluate(qrels, run, [*IR_MEASURES_NAMES, "NumQ"])
    theirs, aggregate = ir_measures_run([*IR_MEASURES_NAMES, "NumQ"], qrels, run)
    gdeval = [name for name in IR_MEASURES_NAMES if "exp-log2" in name]
    exact = [name for name in IR_MEASURES_NAMES if name not in gdeval]
    assert_per_query(ours.per_query, theirs, exact, 1e-9)
    assert_per_query(ours.per_query, theirs, gdeval, 6e-6)  # gdeval prints %.5f
    for name in [*exact, "NumQ"]:  # every qrels query is in the run: the same queries
        assert ours.aggregate.item(0, name) == pytest.approx(aggregate[name], abs=1e-9), name


@pytest.mark.parametrize(
    ("name", "neighbour"),
    [("NumRet", "AP(judged_only=True)"), ("nDCG", "nDCG(gains={0:0,1:1,2:3})@10")],
)
def test_a_name_means_the_same_in_any_list(name: str, neighbour: str) -> None:
    # ir_measures 0.4.3 may answer these two differently beside their neighbour (its
    # pytrec_eval provider may run them in the neighbour's invocation, depending on the
    # hash seed: docs/coming-from.md); a name here does not depend on the list it is in.
    qrels, run = collection(0)
    alone, _ = ir_measures_run([name], qrels, run)
    by_itself = rm.evaluate(qrels, run, [name]).per_query
    in_a_list = rm.evaluate(qrels, run, [neighbour, name]).per_query
    assert by_itself.get_column(name).to_list() == in_a_list.get_column(name).to_list()
    for query, value in by_itself.iter_rows():
        assert value == pytest.approx(alone[(query, name)], abs=1e-12), query


def test_ties_follow_each_provider() -> None:
    # Two tied documents, only the second by id relevant: trec_eval ranks "b" first.
    qrels = pl.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "relevance": [0, 1]})
    run = pl.DataFrame({"query": ["1", "1"], "doc": ["b", "a"], "score": [1.0, 1.0]})
    names = ["RR", "RR@10", "RBP(rel=1)", "recip_rank"]
    by_tool = rm.evaluate(qrels, run, names).per_query.row(0, named=True)
    assert by_tool == {
        "query": "1",
        "RR": 1.0,
        "RR@10": 0.5,
        "RBP(rel=1)": pytest.approx(0.2),
        "recip_rank": 1.0,
    }
    theirs, _ = ir_measures_run(names[:3], qrels, run)
    assert {name: theirs[("1", name)] for name in names[:3]} == pytest.approx(
        {"RR": 1.0, "RR@10": 0.5, "RBP(rel=1)": 0.2}
    )
    trec = rm.evaluate(qrels, run, names, tie_break="doc_descending").per_query
    assert trec.row(0)[1:] == (1.0, 1.0, pytest.approx(0.2), 1.0)
    ascending = rm.evaluate(qrels, run, names, tie_break="doc_ascending").per_query
    assert ascending.row(0)[1:] == (0.5, 0.5, pytest.approx(0.16), 0.5)


def test_rbp_needs_a_level_as_in_ir_measures() -> None:
    with pytest.raises(ValueError, match=r"only with a relevance level, as in RBP\(rel=1\)"):
        rm.metrics("relevance", ["RBP"], by="score")
    with pytest.raises(ValueError, match="takes no cutoff"):
        rm.metrics("relevance", ["RBP(rel=1)@10"], by="score")


# ------------------------------------------------------------------------ ranx

RANX_NAMES = [
    "hits@5", "hits", "hit_rate@5", "hit_rate", "precision@5", "precision", "recall@10",
    "recall-l1", "f1@5", "f1", "r-precision", "mrr", "mrr@5", "map", "map@10", "dcg@5",
    "dcg", "dcg_burges@5", "ndcg@10", "ndcg", "ndcg_burges@10", "ndcg_burges", "bpref-l1",
    "rbp.8", "rbp.95", "rbp@5",
    "ndcg@10-l2", "ndcg-l3", "ndcg_burges@5-l2", "map-l2", "map@5-l2", "precision@5-l2",
    "mrr-l2", "recall@10-l2", "r-precision-l2", "hit_rate@5-l2", "dcg@5-l2", "f1@5-l2",
    "hits@5-l2", "precision-l2", "rbp.9-l2", "bpref-l2",
]  # fmt: skip


def ranx_values(
    names: list[str], qrels: pl.DataFrame, run: pl.DataFrame
) -> dict[tuple[str, str], float]:
    qrel_dict, run_dict = nested(qrels), nested(run)
    ranx_run = ranx.Run(run_dict)
    with warnings.catch_warnings():  # numba's own type-safety chatter inside ranx
        warnings.simplefilter("ignore")
        values = ranx.evaluate(ranx.Qrels(qrel_dict), ranx_run, names, return_mean=False)
    return {
        (query, name): float(value)
        for name in names
        for query, value in zip(ranx_run.keys(), values[name], strict=True)
    }


@pytest.mark.parametrize("seed", [0, 1])
def test_ranx_names_equal_ranx(seed: int) -> None:
    qrels, run = collection(seed, ties=False)
    # ranx needs the same queries on both sides; its bpref divides 0 by 0 without a
    # judged non-relevant document (and then zeroes later queries), so those go too.
    shared = qrels.group_by("query").agg(
        nonrelevant=(pl.col("relevance") < 2).sum() > 0, relevant=(pl.col("relevance") >= 2).any()
    )
    keep = shared.filter("nonrelevant", "relevant").select("query")
    qrels, run = qrels.join(keep, on="query"), run.join(keep, on="query")
    ours = rm.evaluate(qrels, run, RANX_NAMES)
    assert ours.n_queries >= 8
    theirs = ranx_values(RANX_NAMES, qrels, run)
    assert_per_query(ours.per_query, theirs, RANX_NAMES, 1e-9)


def test_ranx_names_without_ties_and_with_queries_lacking_relevant_documents() -> None:
    qrels, run = collection(3, ties=False)
    names = [name for name in RANX_NAMES if not name.startswith("bpref")]
    qrels = qrels.join(run.select("query").unique(), on="query")
    run = run.join(qrels.select("query").unique(), on="query")
    ours = rm.evaluate(qrels, run, names)
    assert ours.no_relevant_queries == 1
    assert_per_query(ours.per_query, ranx_values(names, qrels, run), names, 1e-9)


# ----------------------------------------------------------------- pytrec_eval

PYTREC_NAMES = ["P_5,10", "ndcg_cut_20,4", "recall_5,100", "map_cut_3,10", "success_1,5"]


@pytest.mark.parametrize("level", [1, 2])
def test_pytrec_eval_measure_strings_equal_pytrec_eval(level: int) -> None:
    qrels, run = collection(5)
    qrel_dict, run_dict = nested(qrels), nested(run)
    evaluator = pytrec_eval.RelevanceEvaluator(qrel_dict, set(PYTREC_NAMES), relevance_level=level)
    result: dict[str, dict[str, Any]] = evaluator.evaluate(run_dict)
    ours = rm.evaluate(qrels, run, PYTREC_NAMES, relevance_level=level).per_query
    keys = [name for name in ours.columns if name != "query"]
    assert sorted(keys) == sorted(next(iter(result.values())))  # pytrec_eval's own keys
    theirs = {(query, key): value for query, row in result.items() for key, value in row.items()}
    assert_per_query(ours, theirs, keys, 1e-12)


def test_iprec_names_follow_their_trec_eval_version() -> None:
    # R = 3 relevant, retrieved at ranks 1 and 3. At level 0.4, trec_eval 10 needs
    # lround(1.2) = 1 relevant document (precision 1.0); trec_eval 9 (pytrec_eval,
    # ir_measures) (long)(1.2 + 0.9) = 2 (precision 2/3).
    qrels = pl.DataFrame({"query": ["1"] * 3, "doc": ["a", "c", "x"], "relevance": [1, 1, 1]})
    run = pl.DataFrame({"query": ["1"] * 3, "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    result = rm.evaluate(qrels, run, ["iprec_at_recall_0.40", "IPrec@0.4"])
    assert result.per_query.row(0)[1:] == (1.0, pytest.approx(2 / 3))
    theirs, _ = ir_measures_run(["IPrec@0.4"], qrels, run)
    assert theirs[("1", "IPrec@0.4")] == pytest.approx(2 / 3)
