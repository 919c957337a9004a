"""Seeded clicks from a click model: :func:`simulate`.

Each row gets independent uniform draws, made from a hash of ``(session,
rank)`` and the seed (so the same rows and seed give the same clicks, whatever
their order or the batches polars splits them into), one per hidden variable:
attracted (``A``), examined (PBM, UBM), satisfied (DCM, SDBN, DBN) and going on
(DBN). In a cascade, whether rank ``r`` is examined depends only on the draws
above it, so the clicks are one cumulative product per session. UBM's
examination depends on the last click above, a loop over ranks.
"""

from __future__ import annotations

import polars as pl

from polars_rankmetrics.online.log import CLICK, RANK, SESSION, read_rankings
from polars_rankmetrics.online.model import (
    ATTRACTIVENESS,
    CONTINUATION,
    EXAMINATION,
    PREVIOUS_CLICK,
    SATISFACTION,
    ClickModel,
    attach,
)
from polars_rankmetrics.online.probabilities import ubm_examination

_DRAWS = {"attracted": 1, "examined": 2, "satisfied": 3, "going_on": 4}


def uniform(seed: int, draw: str) -> pl.Expr:
    """A uniform draw in [0, 1) per row, from a hash of its session, its rank and the seed."""
    hashed = pl.struct(SESSION, RANK).hash((seed * 16 + _DRAWS[draw]) % 2**64)
    return (hashed // 2048).cast(pl.Float64) * 2.0**-53


def _check_seed(seed: object) -> int:
    if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**63:
        return seed
    msg = f"`seed` must be a non-negative int, got {seed!r}"
    raise ValueError(msg)


def simulate(
    model: ClickModel, rankings: pl.DataFrame | pl.LazyFrame, *, seed: int = 0
) -> pl.DataFrame:
    """
    Seeded clicks of simulated users on some rankings, drawn from a click model.

    Each session of ``rankings`` is one user shown that ranking. The user
    behaves as the model says (the book's chapter 3): PBM examines rank ``r``
    with probability ``gamma_r``; a cascade (CM, DCM, SDBN, DBN) examines from
    the top and goes on after a skip (DBN: with probability gamma) or after an
    unsatisfying click (CM never goes on after a click; DCM with probability
    lambda_r); UBM examines ``r`` with probability ``gamma_{r,r'}``, ``r'`` the
    last click above. An examined document is clicked with probability its
    attractiveness.

    Parameters
    ----------
    model
        A fitted or hand-built :class:`ClickModel`; unseen pairs get its
        ``default``.
    rankings
        The model's columns but the click: session, query, document and rank
        1..n; other columns are kept.
    seed
        The seed of the draws: the same rows and seed give the same clicks.

    Returns
    -------
    polars.DataFrame
        ``rankings`` sorted by session and rank, with ``click`` (Int8, 0/1).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> model = online.ClickModel(
    ...     "cm",
    ...     attractiveness=pl.DataFrame(
    ...         {"query": "q", "document": ["a", "b"], "attractiveness": [0.0, 1.0]}
    ...     ),
    ... )
    >>> ranking = pl.DataFrame({"session": 1, "query": "q", "document": ["a", "b"], "rank": [1, 2]})
    >>> online.simulate(model, ranking, seed=7)
    shape: (2, 5)
    ┌─────────┬───────┬──────────┬──────┬───────┐
    │ session ┆ query ┆ document ┆ rank ┆ click │
    │ ---     ┆ ---   ┆ ---      ┆ ---  ┆ ---   │
    │ i32     ┆ str   ┆ str      ┆ i32  ┆ i8    │
    ╞═════════╪═══════╪══════════╪══════╪═══════╡
    │ 1       ┆ q     ┆ a        ┆ 1    ┆ 0     │
    │ 1       ┆ q     ┆ b        ┆ 2    ┆ 1     │
    └─────────┴───────┴──────────┴──────┴───────┘
    """
    if not isinstance(model, ClickModel):
        msg = f"`model` must be a ClickModel, got {type(model).__name__}"
        raise ValueError(msg)
    seed = _check_seed(seed)
    rows = read_rankings(rankings, model.columns)
    original = rows.columns
    lazy = attach(rows.lazy(), model)
    attracted = uniform(seed, "attracted") < pl.col(ATTRACTIVENESS)
    if model.model == "ubm":
        clicked = _simulate_ubm(lazy.with_columns(attracted.alias("_attracted")), model, seed)
    else:
        if model.model == "pbm":
            click = attracted & (uniform(seed, "examined") < pl.col(EXAMINATION))
        else:
            click = attracted & _cascade_examined(model, seed, attracted)
        clicked = lazy.with_columns(click.cast(pl.Int8).alias(CLICK)).collect()
    outside = model.columns.to_outside()
    return clicked.select(*original, CLICK).rename(outside)


def _cascade_examined(model: ClickModel, seed: int, attracted: pl.Expr) -> pl.Expr:
    """Whether each rank is examined: every rank above it let the user go on."""
    satisfied = uniform(seed, "satisfied")
    if model.model == "cm":
        going_on = ~attracted
    elif model.model == "dcm":
        going_on = ~attracted | (satisfied < pl.col(CONTINUATION))
    else:  # SDBN, DBN: an unsatisfying click or a skip
        going_on = ~attracted | (satisfied >= pl.col(SATISFACTION))
        if model.model == "dbn":
            going_on = going_on & (uniform(seed, "going_on") < pl.col(CONTINUATION))
    stopped_above = (~going_on).cast(pl.Int32).cum_sum().shift(1, fill_value=0).over(SESSION)
    return stopped_above == 0


def _simulate_ubm(lazy: pl.LazyFrame, model: ClickModel, seed: int) -> pl.DataFrame:
    """UBM's clicks, one rank at a time: examination depends on the last click above."""
    frame = lazy.with_columns(
        uniform(seed, "examined").alias("_examined"),
        pl.lit(0, pl.Int8).alias(CLICK),
    ).collect()
    depth = int(frame.get_column(RANK).max() or 0)  # type: ignore[arg-type]
    for r in range(1, depth + 1):
        last = (
            pl.when((pl.col(CLICK) == 1) & (pl.col(RANK) < r))
            .then(pl.col(RANK))
            .max()
            .over(SESSION)
        )
        step = frame.lazy().with_columns(last.fill_null(0).cast(pl.Int32).alias(PREVIOUS_CLICK))
        step = ubm_examination(step, model, PREVIOUS_CLICK)
        now = (
            (pl.col(RANK) == r) & pl.col("_attracted") & (pl.col("_examined") < pl.col(EXAMINATION))
        )
        frame = (
            step.with_columns(
                pl.when(now).then(pl.lit(1, pl.Int8)).otherwise(pl.col(CLICK)).alias(CLICK)
            )
            .drop(PREVIOUS_CLICK, EXAMINATION)
            .collect()
        )
    return frame
