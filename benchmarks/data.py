"""Seeded synthetic rankings, written to parquet.

Each of ``n_queries`` queries has ``docs`` rows ``(query, doc, score, relevance)``
in shuffled order. About 30% of the rows are judged: 15% of all rows carry a
graded label 1-3 and 15% a 0; the rest are unjudged (null label). 10% of the
judged rows were not retrieved (null score), so R counts documents that are not
in the ranking. Scores are continuous (no ties, so that every tool ranks the
same way) and favour relevant documents.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl

SCHEMA = {"query": pl.Int32, "doc": pl.Int32, "score": pl.Float64, "relevance": pl.Int8}


def parse_size(text: str) -> tuple[int, int]:
    """``'100000x100'`` -> 100,000 queries of 100 documents."""
    try:
        queries, docs = (int(part.replace("_", "")) for part in text.lower().split("x"))
    except ValueError:
        msg = f"size {text!r} must be QUERIESxDOCS, for example 100000x100"
        raise argparse.ArgumentTypeError(msg) from None
    return queries, docs


def chunk(n_queries: int, docs: int, first_query: int, seed: int) -> pl.DataFrame:
    """The rows of queries ``first_query .. first_query + n_queries - 1``, shuffled."""
    rng = np.random.default_rng([seed, first_query])
    n = n_queries * docs
    query = np.repeat(np.arange(first_query, first_query + n_queries, dtype=np.int32), docs)
    doc = np.tile(np.arange(docs, dtype=np.int32), n_queries)
    draw = rng.random(n)
    label = np.where(draw < 0.15, rng.integers(1, 4, n), 0).astype(np.int8)
    judged = draw < 0.30
    score = rng.random(n) + 0.25 * label
    retrieved = ~judged | (rng.random(n) >= 0.10)
    order = rng.permutation(n)
    frame = pl.DataFrame(
        {
            "query": query[order],
            "doc": doc[order],
            "score": score[order],
            "relevance": label[order],
            "retrieved": retrieved[order],
            "judged": judged[order],
        }
    )
    return frame.select(
        "query",
        "doc",
        pl.when("retrieved").then("score").alias("score"),
        pl.when("judged").then("relevance").alias("relevance"),
    ).cast(SCHEMA)  # type: ignore[arg-type]


def write_dataset(
    directory: Path, n_queries: int, docs: int, *, seed: int = 0, rows_per_file: int = 10_000_000
) -> Path:
    """Write the dataset as parquet files under ``directory`` (once); return its glob.

    Files are written in chunks of whole queries, so datasets larger than memory
    can be generated. Rows are shuffled within each file.
    """
    target = directory / f"q{n_queries}_d{docs}_s{seed}"
    done = target / "_complete"
    if not done.exists():
        target.mkdir(parents=True, exist_ok=True)
        per_file = max(1, rows_per_file // docs)
        for index, first in enumerate(range(0, n_queries, per_file)):
            count = min(per_file, n_queries - first)
            chunk(count, docs, first, seed).write_parquet(
                target / f"part-{index:05d}.parquet", row_group_size=1_000_000
            )
        done.touch()
    return target / "*.parquet"
