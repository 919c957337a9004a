"""Random runs for the fusion parity tests, and ranx's fused runs as frames."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

Nested = dict[str, dict[str, float]]


def random_runs(
    seed: int, *, n_queries: int = 100, depths: tuple[int, ...] = (20, 30, 40, 50), pool: int = 60
) -> list[Nested]:
    """Runs of different depths and score scales; each misses some documents of the others.

    Scores are continuous and distinct within a run (no ties), so ranks are the
    same whatever the tie-breaking rule.
    """
    rng = np.random.default_rng(seed)
    scales = [(0.0, 30.0), (0.0, 1.0), (-5.0, 5.0), (-3.0, -1.0), (100.0, 101.0)]
    runs: list[Nested] = []
    for system, depth in enumerate(depths):
        low, high = scales[system % len(scales)]
        run: Nested = {}
        for q in range(n_queries):
            docs = rng.choice(pool, size=depth, replace=False)
            scores = rng.uniform(low, high, size=depth)
            run[f"q{q:03d}"] = {f"d{d:03d}": float(s) for d, s in zip(docs, scores, strict=True)}
        runs.append(run)
    return runs


def nested_frame(nested: Nested) -> pl.DataFrame:
    """``{query: {doc: score}}`` as ``query, doc, score``, in the dict's order."""
    rows = [(q, d, s) for q, docs in nested.items() for d, s in docs.items()]
    return pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row")


def ranx_frame(run: Any) -> pl.DataFrame:
    """A ranx Run (sorted) as ``query, doc, score, position`` (its order within each query)."""
    frame = nested_frame(run.to_dict())
    return frame.with_columns(position=pl.int_range(pl.len()).over("query"))


def assert_same_fusion(ours: pl.DataFrame, theirs: pl.DataFrame, *, rtol: float = 1e-9) -> None:
    """The same (query, doc) rows, scores equal to ``rtol``, and ours in ranx's order up to ties."""
    joined = ours.join(theirs, on=["query", "doc"], how="full", coalesce=True, suffix="_ranx")
    missing = joined.filter(pl.col("score").is_null() | pl.col("score_ranx").is_null())
    assert missing.height == 0, f"rows in only one of the two:\n{missing}"
    ours_scores = joined.get_column("score").to_numpy()
    ranx_scores = joined.get_column("score_ranx").to_numpy()
    np.testing.assert_allclose(ours_scores, ranx_scores, rtol=rtol, atol=1e-12)
    # Order: walking our ranking, ranx's scores never increase (up to rounding),
    # and ranx's ranking of the strictly-ordered documents is ours.
    in_our_order = ours.join(
        theirs, on=["query", "doc"], how="left", maintain_order="left", suffix="_ranx"
    )
    steps = in_our_order.select(
        step=pl.col("score_ranx").diff().over("query"), scale=pl.col("score_ranx").abs()
    ).drop_nulls()
    assert (steps["step"] <= 1e-9 * (1 + steps["scale"])).all(), "our order differs from ranx's"


def transitive_runs(seed: int, *, n_queries: int = 100, n_docs: int = 20) -> list[Nested]:
    """Three runs retrieving the same documents, whose majority order has no cycle.

    Each run is a noisy copy of one ranking; a query is redrawn until every pair
    of documents has a majority and the majority relation is a total order (each
    document beats a different number of others), so CondorcetFuse's result
    does not depend on the sort that ranx uses.
    """
    rng = np.random.default_rng(seed)
    runs: list[Nested] = [{}, {}, {}]
    for q in range(n_queries):
        while True:
            base = rng.normal(size=n_docs)
            scores = [base + rng.normal(scale=0.7, size=n_docs) for _ in runs]
            positions = np.array([np.argsort(np.argsort(-s)) for s in scores])
            beats = (positions[:, :, None] < positions[:, None, :]).sum(axis=0) >= 2
            np.fill_diagonal(beats, False)
            if sorted(beats.sum(axis=1)) == list(range(n_docs)):
                break
        for run, s in zip(runs, scores, strict=True):
            run[f"q{q:03d}"] = {f"d{d:03d}": float(v) for d, v in enumerate(s)}
    return runs


def random_qrels(seed: int, queries: list[str], *, pool: int = 60) -> dict[str, dict[str, int]]:
    """Qrels with a third of each query's pool judged, about half of those relevant (1 or 2)."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    for query in queries:
        docs = rng.choice(pool, size=pool // 3, replace=False)
        labels = rng.integers(0, 3, size=docs.size)
        labels[0] = 1  # every query has a relevant document
        qrels[query] = {f"d{d:03d}": int(v) for d, v in zip(docs, labels, strict=True)}
    return qrels


def overlapping_runs(
    seed: int, *, n_queries: int = 50, n_docs: int = 30, n_runs: int = 3
) -> list[Nested]:
    """Runs that all retrieve the same documents, no two with the same ranks in every run.

    Fused scores then do not tie (a document retrieved by only some runs, or two
    documents whose ranks are a permutation of each other's, would tie under
    the rank-based methods), so evaluating a fused run does not depend on how
    equal scores are ordered, which ranx leaves to its unstable sort.
    """
    rng = np.random.default_rng(seed)
    runs: list[Nested] = [{} for _ in range(n_runs)]
    for q in range(n_queries):
        while True:
            scores = rng.uniform(size=(n_runs, n_docs))
            ranks = np.argsort(np.argsort(-scores, axis=1), axis=1)
            patterns = {tuple(sorted(ranks[:, d])) for d in range(n_docs)}
            if len(patterns) == n_docs:
                break
        for run, row in zip(runs, scores, strict=True):
            run[f"q{q:03d}"] = {f"d{d:03d}": float(v) for d, v in enumerate(row)}
    return runs
