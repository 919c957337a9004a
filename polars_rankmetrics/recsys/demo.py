"""A small synthetic recommender data set with popularity skew, and four models' top-k lists.

:func:`demo_data` draws it deterministically (numpy's PCG64 from ``seed``), so
the docs and tests can use it without a committed file: users and items have
latent tastes, items a Zipf-like popularity, and each user picks items with
probability growing with taste match and popularity. The last picks of each
user are the test set. Four models recommend ``k`` unseen items each:
``popular`` (most picked in training), ``random``, ``taste`` (the latent
match, no popularity) and ``blend`` (match plus popularity).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class RecsysDemo:
    """The tables of :func:`demo_data`."""

    train: pl.DataFrame
    """``user, item``: the training picks."""
    test: pl.DataFrame
    """``user, item``: the held-out picks."""
    reco: pl.DataFrame
    """``model, user, item, rank``: each model's top ``k`` unseen items per user."""
    genres: pl.DataFrame
    """``item, genre``: one genre per item (its strongest latent dimension)."""
    embeddings: pl.DataFrame
    """``item, embedding``: the items' latent vectors (a list column)."""


def demo_data(
    *, users: int = 600, items: int = 300, picks: int = 20, k: int = 10, seed: int = 0
) -> RecsysDemo:
    """
    Draw the demo data set (needs numpy).

    Examples
    --------
    >>> from polars_rankmetrics.recsys.demo import demo_data
    >>> data = demo_data(users=50, items=40)
    >>> data.reco.group_by("model").len().sort("model")
    shape: (4, 2)
    ┌─────────┬─────┐
    │ model   ┆ len │
    │ ---     ┆ --- │
    │ str     ┆ u32 │
    ╞═════════╪═════╡
    │ blend   ┆ 500 │
    │ popular ┆ 500 │
    │ random  ┆ 500 │
    │ taste   ┆ 500 │
    └─────────┴─────┘
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    dims = 6
    taste_u = rng.normal(size=(users, dims))
    taste_i = rng.normal(size=(items, dims))
    popularity = np.log(1.0 / np.arange(1, items + 1))  # a Zipf-like head
    popularity = popularity - popularity.mean()
    affinity = 2.0 * taste_u @ taste_i.T / np.sqrt(dims)
    logits = affinity + popularity[None, :]
    # Gumbel top-k: `picks` distinct items per user, drawn without replacement from softmax(logits)
    noisy = logits + rng.gumbel(size=logits.shape)
    chosen = np.argsort(-noisy, axis=1)[:, :picks]
    held_out = max(1, picks // 5)
    train_items, test_items = chosen[:, held_out:], chosen[:, :held_out]

    def pairs(matrix: np.ndarray) -> pl.DataFrame:
        owner = np.repeat(np.arange(users), matrix.shape[1])
        return pl.DataFrame(
            {"user": owner.astype(np.int64), "item": matrix.ravel().astype(np.int64)}
        )

    train, test = pairs(train_items), pairs(test_items)
    seen = np.zeros((users, items), dtype=bool)
    seen[np.arange(users)[:, None], train_items] = True
    counts = np.bincount(train_items.ravel(), minlength=items).astype(float)
    scores = {
        "popular": np.broadcast_to(counts, (users, items)) + rng.random((users, items)) * 1e-3,
        "random": rng.random((users, items)),
        "taste": affinity,
        "blend": affinity + popularity[None, :],
    }
    frames = []
    for name, score in scores.items():
        masked = np.where(seen, -np.inf, score)
        top = np.argsort(-masked, axis=1, kind="stable")[:, :k]
        frame = pairs(top).with_columns(
            pl.lit(name).alias("model"),
            pl.Series("rank", np.tile(np.arange(1, k + 1), users).astype(np.int64)),
        )
        frames.append(frame.select("model", "user", "item", "rank"))
    genre_names = np.array(["action", "comedy", "drama", "horror", "romance", "scifi"])
    genres = pl.DataFrame(
        {"item": np.arange(items, dtype=np.int64), "genre": genre_names[taste_i.argmax(axis=1)]}
    )
    embeddings = pl.DataFrame(
        {"item": np.arange(items, dtype=np.int64), "embedding": taste_i.tolist()}
    )
    return RecsysDemo(train, test, pl.concat(frames), genres, embeddings)
