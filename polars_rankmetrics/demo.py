"""A demo evaluation: nearest-neighbour retrieval over scikit-learn's digits.

Each of the 1,797 handwritten digits is a query; the other 1,796 digits are its
candidates, scored by negative Euclidean distance between their 8x8 images. A
candidate is relevant when it shows the same digit. That is 3.2 million scored
(query, document) rows, evaluated with one ``group_by().agg(rm.metrics(...))``:
one sort per query for every measure, each name meaning what it means in
trec_eval or ir_measures (``AP@10`` is divided by R, as ``map_cut_10``).

Run it with ``python -m polars_rankmetrics.demo`` (needs the ``demo`` extra).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import polars as pl

import polars_rankmetrics as rm


def digits_rankings(queries: int | None = None) -> pl.DataFrame:
    """Score every digit against every other one: one row per (query, document).

    ``queries``: only the first that many digits as queries (each still against
    every other digit), the same rows as filtering on ``query < queries``.
    """
    try:  # the demo extra's dependencies, imported here so the CLI does not need them
        import numpy as np
        from sklearn.datasets import load_digits  # type: ignore[import-untyped]
    except ImportError as error:  # pragma: no cover - depends on the environment
        msg = 'the demo needs scikit-learn: pip install ".[demo]" from the clone'
        raise SystemExit(msg) from error
    images, digits = load_digits(return_X_y=True)
    squared = (images**2).sum(axis=1)
    n = len(digits)
    m = n if queries is None else max(0, min(queries, n))
    cross = squared[:m, None] + squared[None, :] - 2 * images[:m] @ images.T
    distance = np.sqrt(np.maximum(cross, 0))
    query, doc = np.nonzero(~np.eye(m, n, dtype=bool))  # every pair but a digit with itself
    return pl.DataFrame(
        {
            "query": query.astype(np.int32),
            "doc": doc.astype(np.int32),
            "score": -distance[query, doc],
            "relevance": (digits[query] == digits[doc]).astype(np.int8),
            "digit": digits[query].astype(np.int8),
        }
    )


MEASURES = {
    "map": "average precision over every relevant candidate (trec_eval's map)",
    "AP@10": "the top 10's share of AP, still divided by R (ir_measures' AP@10)",
    "P@10": "the fraction of the top 10 that is relevant",
    "R@100": "the fraction of the relevant candidates found in the top 100",
    "nDCG@10": "discounted gain of the top 10 over the ideal ranking's",
    "RR": "1 / the rank of the first relevant candidate",
    "Rprec": "precision at rank R, R = the number of relevant candidates",
}


def evaluate(rankings: pl.DataFrame) -> pl.DataFrame:
    """Per-query measures, lazily, from one sort per query (``rm.metrics``)."""
    return (
        rankings.lazy()
        .group_by("query", "digit")
        .agg(rm.metrics("relevance", list(MEASURES), by="score").alias("measures"))
        .unnest("measures")
        .collect()
    )


def row_order_ndcg(rankings: pl.DataFrame) -> float:
    """Mean nDCG@10 when ``by=`` is forgotten: each query's rows ranked in their order."""
    ndcg = rm.ndcg_at_k("relevance", 10)  # no by=: the rows are taken as ranked
    means = rankings.lazy().group_by("query").agg(ndcg).select(pl.mean("relevance")).collect()
    return float(means.item())


def run(args: argparse.Namespace | None = None) -> int:
    """Build the rankings, evaluate them, and print what was computed."""
    started = time.perf_counter()
    rankings = digits_rankings()
    built = time.perf_counter()
    per_query = evaluate(rankings)
    evaluated = time.perf_counter()

    rows, queries = rankings.height, per_query.height
    seconds = evaluated - built
    print(
        f"Nearest-neighbour search over scikit-learn's {queries:,} handwritten digits "
        f"(8x8 images).\nEach digit is a query; the other {queries - 1:,} digits are its "
        "candidates, ranked by\nEuclidean distance between the images, nearest first. "
        "A candidate is relevant\nwhen it shows the same digit (about 180 per query). "
        f"That makes {rows:,} scored\n(query, candidate) rows, evaluated with one "
        'group_by("query").agg(rm.metrics(...)).\n'
    )
    print("Columns (each the mean over the queries of a row):")
    width = max(map(len, MEASURES))
    for name, meaning in MEASURES.items():
        print(f"  {name:<{width}}  {meaning}")
    print()

    measure_columns = pl.col(list(MEASURES))
    overall = per_query.select(pl.lit("all").alias("digit"), measure_columns.mean())
    by_digit = (
        per_query.group_by("digit")
        .agg(measure_columns.mean())
        .sort("digit")
        .with_columns(pl.col("digit").cast(pl.String))
    )
    with pl.Config(tbl_rows=20, tbl_hide_dataframe_shape=True, float_precision=3):
        print(pl.concat([by_digit, overall]))
    print(
        f"\nScored the {rows:,} rows in {built - started:.2f} s; evaluated "
        f"{len(MEASURES)} measures over {queries:,} queries in {seconds:.2f} s: "
        f"{rows / seconds / 1e6:.1f}M rows/s."
    )
    by_score = float(per_query.select(pl.mean("nDCG@10")).item())
    print(
        f'\nAlways pass by="score": without it the rows are ranked in their order (here by\n'
        f"document id), and mean nDCG@10 is {row_order_ndcg(rankings):.3f} instead of "
        f"{by_score:.3f}. Nothing warns:\nrow order is the ranking for data already sorted."
    )
    return 0


def add_subcommand(subcommands: Any) -> None:
    """Register ``rankmetrics demo``."""
    parser = subcommands.add_parser("demo", help="evaluate nearest-neighbour search on digits")
    parser.set_defaults(run=run)


if __name__ == "__main__":
    raise SystemExit(run())
