"""evaluate() against pytrec_eval (an independent build of trec_eval) on random data."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
import pytrec_eval

import polars_rankmetrics as rm

# Measures pytrec_eval shares with us and computes like trec_eval 10. Its bundled
# trec_eval rounds the recall cut-offs of iprec_at_recall and 11pt_avg
# differently, so those are checked against ../shared/trec_eval instead.
SHARED_MEASURES = [
    "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
    "P.1,3,5,10", "recall.1,5,10,50", "infAP", "Rprec_mult.0.5,1.0,1.5,2.0",
    "utility", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut.3,10",
    "map_cut.3,10", "relative_P.3,10", "success.1,5", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
]  # fmt: skip


def random_case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run and qrels with ties, graded and negative labels, unjudged rows,
    relevant rows not retrieved, queries without relevant rows, and queries
    on one side only."""
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for query in range(12):
        docs = [f"d{i:03d}" for i in rng.choice(300, size=40, replace=False)]
        retrieved = docs[: int(rng.integers(1, 30))]
        # Few distinct scores, so ties are common and broken by docno.
        scores = rng.integers(0, 6, size=len(retrieved)) / 2.0
        if query != 11:  # query 11 exists only in the qrels
            run_rows += [
                (f"q{query}", doc, float(s)) for doc, s in zip(retrieved, scores, strict=True)
            ]
        if query == 10:  # query 10 exists only in the run
            continue
        judged = rng.choice(docs, size=int(rng.integers(5, 35)), replace=False)
        no_relevant = query == 3
        for doc in judged:
            label = int(rng.choice([-1, 0, 0, 1, 2, 3]))
            qrels_rows.append((f"q{query}", str(doc), 0 if no_relevant and label > 0 else label))
    run = pl.DataFrame(run_rows, schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query", "doc", "relevance"], orient="row")
    return run, qrels


def pytrec_values(
    run: pl.DataFrame, qrels: pl.DataFrame, level: int
) -> dict[str, dict[str, float]]:
    qrel_dict: dict[str, dict[str, int]] = {}
    for query, doc, label in qrels.iter_rows():
        qrel_dict.setdefault(query, {})[doc] = label
    run_dict: dict[str, dict[str, float]] = {}
    for query, doc, score in run.iter_rows():
        run_dict.setdefault(query, {})[doc] = score
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrel_dict, set(SHARED_MEASURES), relevance_level=level
    )
    result: dict[str, dict[str, float]] = evaluator.evaluate(run_dict)
    return result


@pytest.mark.parametrize(("seed", "level"), [(0, 1), (1, 1), (2, 2), (3, 1)])
def test_per_query_equals_pytrec_eval(seed: int, level: int) -> None:
    run, qrels = random_case(seed)
    ours = rm.evaluate(qrels, run, SHARED_MEASURES, relevance_level=level)
    theirs = pytrec_values(run, qrels, level)
    assert sorted(theirs) == ours.per_query.get_column("query").to_list()
    checked = 0
    for row in ours.per_query.iter_rows(named=True):
        expected = theirs[row["query"]]
        for name, value in row.items():
            if name == "query":
                continue
            assert math.isclose(value, expected[name], rel_tol=1e-9, abs_tol=1e-9), (
                row["query"],
                name,
                value,
                expected[name],
            )
            checked += 1
    assert checked > 300


def test_queries_counted_like_trec_eval() -> None:
    run, qrels = random_case(0)
    ours = rm.evaluate(qrels, run, ["map"])
    assert ours.ignored_queries == 1  # q10: run only
    assert ours.missing_queries == 1  # q11: qrels only
    assert ours.no_relevant_queries == 1  # q3
    assert "q10" not in ours.per_query.get_column("query")
    complete = rm.evaluate(qrels, run, ["map", "num_rel", "num_q"], complete=True)
    missing = complete.per_query.filter(pl.col("query") == "q11").row(0, named=True)
    assert missing["map"] == 0.0
    assert (
        missing["num_rel"]
        == qrels.filter((pl.col("query") == "q11") & (pl.col("relevance") >= 1)).height
    )
    assert complete.aggregate.item(0, "num_q") == ours.n_queries + 1
    assert complete.aggregate.item(0, "map") == pytest.approx(
        ours.aggregate.item(0, "map") * ours.n_queries / (ours.n_queries + 1)
    )
