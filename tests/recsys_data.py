"""Small random recommender data with tied ranks, for the recsys parity tests."""

from __future__ import annotations

import numpy as np
import polars as pl


def random_reco(seed: int, *, users: int = 40, items: int = 30, longest: int = 12) -> pl.DataFrame:
    """Lists of 0..longest distinct items per user, ranked with ties (min or dense ranks)."""
    rng = np.random.default_rng(seed)
    rows: list[tuple[int, int, int]] = []
    for user in range(users):
        length = int(rng.integers(0, longest + 1))
        chosen = rng.choice(items, size=length, replace=False)
        scores = rng.integers(0, 5, size=length)  # few distinct scores: many ties
        method = "min" if user % 2 else "dense"
        ranks = pl.Series(-scores).rank(method).to_list() if length else []
        rows.extend((user, int(item), int(rank)) for item, rank in zip(chosen, ranks, strict=True))
    return pl.DataFrame(rows, schema=["user", "item", "rank"], orient="row")


def random_interactions(
    seed: int, *, users: int = 45, items: int = 30, rows: int = 150
) -> pl.DataFrame:
    """Distinct (user, item) pairs; some users have none, some are not in the reco."""
    rng = np.random.default_rng(seed + 1000)
    frame = pl.DataFrame(
        {"user": rng.integers(0, users, rows), "item": rng.integers(0, items, rows)}
    )
    return frame.unique(maintain_order=True)


def to_rectools(frame: pl.DataFrame) -> object:
    """The pandas frame RecTools reads (``user_id``, ``item_id``, ``rank``)."""
    return frame.rename({"user": "user_id", "item": "item_id"}).to_pandas()
