"""The demo's evaluation: its columns mean what their names mean in trec_eval and ir_measures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest

from polars_rankmetrics import demo
from tests import reference as ref

REFERENCES: dict[str, Callable[[list[tuple[float, float]]], Any]] = {
    "map": ref.average_precision,
    "AP@10": lambda rows: ref.ap_at_k(rows, 10, denominator="r"),  # not min(10, R)
    "P@10": lambda rows: ref.precision_at_k(rows, 10),
    "R@100": lambda rows: ref.recall_at_k(rows, 100),
    "nDCG@10": lambda rows: ref.ndcg_at_k(rows, 10),
    "RR": ref.reciprocal_rank,
    "Rprec": ref.r_precision,
}


def test_demo_measures_against_references() -> None:
    """On rankings shaped as the demo's (query, doc, score, relevance, digit)."""
    rng = np.random.default_rng(0)
    n_queries, n_docs = 30, 150
    query = np.repeat(np.arange(n_queries), n_docs)
    relevance = (rng.random(n_queries * n_docs) < 0.1).astype(np.int8)
    rankings = pl.DataFrame(
        {
            "query": query.astype(np.int32),
            "doc": np.tile(np.arange(n_docs), n_queries).astype(np.int32),
            "score": rng.normal(size=n_queries * n_docs) + relevance,
            "relevance": relevance,
            "digit": (query % 10).astype(np.int8),
        }
    )
    per_query = demo.evaluate(rankings)
    assert per_query.columns == ["query", "digit", *demo.MEASURES]
    assert set(demo.MEASURES) == set(REFERENCES)
    for (q,), group in rankings.group_by("query"):
        rows = list(group.select("score", "relevance").iter_rows())
        got = per_query.filter(pl.col("query") == q).row(0, named=True)
        for name, reference in REFERENCES.items():
            assert got[name] == pytest.approx(reference(rows)), (q, name)
