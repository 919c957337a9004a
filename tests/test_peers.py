"""Per-query agreement with pytrec_eval, scikit-learn and ranx on random data.

The data include relevant rows that were not retrieved, unjudged retrieved rows,
graded and negative labels, tied scores, and queries without relevant rows.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
import pytrec_eval
from sklearn.metrics import average_precision_score, precision_recall_curve

import polars_rankmetrics as rm


def random_collection(seed: int, n_queries: int = 40) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run (query, doc, score) and qrels (query, doc, relevance), TREC style."""
    rng = np.random.default_rng(seed)
    run_rows, qrel_rows = [], []
    for q in range(n_queries):
        query = f"q{q}"
        n_docs = int(rng.integers(1, 60))
        docs = [f"d{d:03d}" for d in rng.choice(200, size=n_docs, replace=False)]
        n_retrieved = int(rng.integers(1, n_docs + 1))
        scores = rng.integers(0, 30, size=n_retrieved) / 10  # coarse: many ties
        run_rows += [
            (query, doc, float(s)) for doc, s in zip(docs[:n_retrieved], scores, strict=True)
        ]
        no_relevant = q % 7 == 0
        for doc in docs:
            if rng.random() < 0.3:  # unjudged
                continue
            label = 0 if no_relevant else int(rng.choice([-1, 0, 0, 1, 2, 3]))
            qrel_rows.append((query, doc, label))
        qrel_rows.append((query, f"x{q}", 0 if no_relevant else 1))  # judged, never retrieved
    run = pl.DataFrame(run_rows, schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame(qrel_rows, schema=["query", "doc", "relevance"], orient="row")
    return run, qrels


def joined(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """Run and qrels on the queries they share; judged-but-unretrieved rows get a null score."""
    shared = run.select("query").unique().join(qrels.select("query").unique(), on="query")
    return run.join(qrels, on=["query", "doc"], how="full", coalesce=True).join(shared, on="query")


def nested_dict(frame: pl.DataFrame) -> dict[str, dict[str, float]]:
    """``{query: {doc: value}}`` from (query, doc, value) rows."""
    nested: dict[str, dict[str, float]] = {}
    for query, doc, value in frame.iter_rows():
        nested.setdefault(query, {})[doc] = value
    return nested


def pytrec_per_query(run: pl.DataFrame, qrels: pl.DataFrame, measures: set[str]) -> dict:
    evaluator = pytrec_eval.RelevanceEvaluator(nested_dict(qrels), measures)
    return evaluator.evaluate(nested_dict(run))


TREC_ORDER = {"by": ["score", "doc"], "descending": [True, True], "no_relevant": "zero"}


@pytest.mark.parametrize("seed", range(3))
def test_against_pytrec_eval(seed: int) -> None:
    run, qrels = random_collection(seed)
    k = 5
    ours = (
        joined(run, qrels)
        .group_by("query")
        .agg(
            map=rm.average_precision("relevance", **TREC_ORDER),
            P_5=rm.precision_at_k("relevance", k, by=["score", "doc"], descending=[True, True]),
            recall_5=rm.recall_at_k("relevance", k, **TREC_ORDER),
            recip_rank=rm.reciprocal_rank("relevance", **TREC_ORDER),
            Rprec=rm.r_precision("relevance", **TREC_ORDER),
            ndcg_cut_5=rm.ndcg_at_k("relevance", k, **TREC_ORDER),
            success_5=rm.hit_rate_at_k(
                "relevance", k, by=["score", "doc"], descending=[True, True]
            ),
            map_cut_5=rm.ap_at_k("relevance", k, denominator="r", **TREC_ORDER),
        )
    )
    measures = {
        "map",
        "P_5",
        "recall_5",
        "recip_rank",
        "Rprec",
        "ndcg_cut_5",
        "success_5",
        "map_cut_5",
    }
    reference = pytrec_per_query(run, qrels, measures)
    assert set(ours["query"]) == set(reference)
    for row in ours.iter_rows(named=True):
        expected = reference[row["query"]]
        for measure in measures:
            assert row[measure] == pytest.approx(expected[measure], abs=1e-12), (
                row["query"],
                measure,
            )


@pytest.mark.parametrize("seed", range(5))
def test_pr_curve_against_scikit_learn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    truth = rng.random(n) < 0.3
    truth[0] = True
    scores = rng.integers(0, 40, size=n) / 4  # ties form single thresholds
    df = pl.DataFrame({"score": scores, "truth": truth})
    points = df.select(rm.pr_curve("truth", by="score").explode()).unnest("truth")
    precision, recall, thresholds = precision_recall_curve(truth, scores, drop_intermediate=False)
    # scikit-learn: ascending thresholds and a final (precision 1, recall 0) point,
    # and it may stop once full recall is reached; ours runs down every distinct score.
    sk = pl.DataFrame(
        {"threshold": thresholds, "precision": precision[:-1], "recall": recall[:-1]}
    ).reverse()
    ours = points.select("threshold", "precision", "recall").head(sk.height)
    assert ours["threshold"].to_list() == sk["threshold"].to_list()
    np.testing.assert_allclose(ours["precision"], sk["precision"], rtol=1e-12)
    np.testing.assert_allclose(ours["recall"], sk["recall"], rtol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_average_precision_against_scikit_learn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 500))
    truth = rng.random(n) < 0.2
    truth[-1] = True
    scores = rng.permutation(n) / n  # distinct: scikit-learn's AP treats ties as one step
    df = pl.DataFrame({"score": scores, "truth": truth})
    ours = df.select(rm.average_precision("truth", by="score")).item()
    assert ours == pytest.approx(average_precision_score(truth, scores), rel=1e-12)


def test_against_ranx() -> None:
    ranx = pytest.importorskip("ranx")
    run, qrels = random_collection(11, n_queries=25)
    # ranx breaks ties its own way; compare on distinct scores.
    run = run.with_columns(score=pl.col("score") + pl.int_range(pl.len()) * 1e-6)
    # ranx counts only positive labels as relevant and ignores the rest.
    ranx_qrels = ranx.Qrels(nested_dict(qrels.filter(pl.col("relevance") > 0)))
    ranx_run = ranx.Run(nested_dict(run))
    metrics = [
        "map",
        "map@5",
        "mrr",
        "ndcg@5",
        "precision@5",
        "recall@5",
        "hit_rate@5",
        "r-precision",
    ]
    with warnings.catch_warnings():  # numba's own type-safety chatter inside ranx
        warnings.simplefilter("ignore")
        reference = ranx.evaluate(
            ranx_qrels, ranx_run, metrics, return_mean=False, make_comparable=True
        )
    order = {"by": "score", "no_relevant": "zero"}
    ours = (
        joined(run, qrels)
        .group_by("query")
        .agg(
            rm.average_precision("relevance", **order).alias("map"),
            rm.ap_at_k("relevance", 5, denominator="r", **order).alias("map@5"),
            rm.reciprocal_rank("relevance", **order).alias("mrr"),
            rm.ndcg_at_k("relevance", 5, **order).alias("ndcg@5"),
            rm.precision_at_k("relevance", 5, by="score").alias("precision@5"),
            rm.recall_at_k("relevance", 5, **order).alias("recall@5"),
            rm.hit_rate_at_k("relevance", 5, by="score").alias("hit_rate@5"),
            rm.r_precision("relevance", **order).alias("r-precision"),
        )
    )
    # ranx evaluates the run's queries that have a relevant document.
    query_ids = list(ranx_run.keys())
    ours = ours.filter(pl.col("query").is_in(query_ids))
    for metric in metrics:
        expected = dict(zip(query_ids, reference[metric], strict=True))
        for query, value in ours.select("query", metric).iter_rows():
            assert value == pytest.approx(expected[query], abs=1e-9), (metric, query)
