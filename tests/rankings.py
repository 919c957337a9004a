"""Random rankings with everything that makes ranking evaluation go wrong."""

from __future__ import annotations

import numpy as np
import polars as pl


def random_rankings(seed: int, n_queries: int = 40, max_docs: int = 30) -> pl.DataFrame:
    """Queries of 1..max_docs rows: few distinct scores (ties), nulls, NaN, graded labels."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs + 1, n_queries)
    n = int(sizes.sum())
    score = rng.integers(0, 6, n).astype(float)
    score[rng.random(n) < 0.1] = np.nan
    label = rng.choice([-1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0], n)
    frame = pl.DataFrame(
        {
            "query": np.repeat(np.arange(n_queries), sizes),
            "score": score,
            "tiebreak": rng.integers(0, 3, n),
            "relevance": label,
        }
    )
    return frame.with_columns(
        pl.when(pl.int_range(pl.len()) % 7 == 3).then(None).otherwise("score").alias("score"),
        pl.when(pl.int_range(pl.len()) % 5 == 1)
        .then(None)
        .otherwise("relevance")
        .alias("relevance"),
    ).sample(fraction=1.0, shuffle=True, seed=seed)
