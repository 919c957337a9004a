"""Click probabilities of a model on rows: conditional on the clicks above, or not.

Both take a frame with the names used inside (sorted by session and rank) and
the model's parameters attached (:func:`.model.attach`), and add one column:

- :func:`conditional_probabilities`: ``P(C_r = c_r | C_{<r})``, the probability
  of the observed click or skip given the clicks above it, whose log summed is
  the session's log-likelihood;
- :func:`click_probabilities`: ``P(C_r = 1)``, the click probability of each
  result before anything is observed, which perplexity and ``predict`` read.

CM, DCM, SDBN and DBN are cascades: a user examines results top down and, after
examining rank ``r``, goes on with probability ``g`` (DBN's gamma, else 1) if she
did not click and ``after_r`` if she did (CM: 0; DCM: lambda_r; SDBN: 1 -
sigma; DBN: gamma (1 - sigma)). Their probabilities are cumulative products and
sums within each session, or within each run of rows between two clicks.
"""

from __future__ import annotations

import polars as pl

from polars_rankmetrics.online.log import CLICK, RANK, SESSION, previous_click_rank
from polars_rankmetrics.online.model import (
    ATTRACTIVENESS,
    CONTINUATION,
    EXAMINATION,
    PREVIOUS_CLICK,
    SATISFACTION,
    ClickModel,
)

PROBABILITY = "probability"
CLICK_PROBABILITY = "click_probability"


def cascade_steps(model: ClickModel) -> tuple[pl.Expr, pl.Expr]:
    """A cascade's ``(g, after)``: the probabilities of going on after a skip and after a click."""
    if model.model == "cm":
        return pl.lit(1.0), pl.lit(0.0)
    if model.model == "dcm":
        return pl.lit(1.0), pl.col(CONTINUATION)
    if model.model == "sdbn":
        return pl.lit(1.0), 1 - pl.col(SATISFACTION)
    gamma = pl.col(CONTINUATION)  # DBN
    return gamma, gamma * (1 - pl.col(SATISFACTION))


def ubm_examination(frame: pl.LazyFrame, model: ClickModel, previous: str) -> pl.LazyFrame:
    """``frame`` with UBM's examination of ``(rank, previous)`` joined, unseen cells the default."""
    assert model.examination is not None
    outside = model.columns.to_outside()
    table = (
        model.examination.lazy()
        .rename({outside[RANK]: RANK})
        .select(
            pl.col(RANK).cast(pl.Int32),
            pl.col(PREVIOUS_CLICK).cast(pl.Int32).alias(previous),
            pl.col(EXAMINATION).cast(pl.Float64),
        )
        .unique(subset=[RANK, previous], keep="first")
    )
    return frame.join(table, on=[RANK, previous], how="left", maintain_order="left").with_columns(
        pl.col(EXAMINATION).fill_null(model.default)
    )


def conditional_probabilities(frame: pl.LazyFrame, model: ClickModel) -> pl.LazyFrame:
    """``frame`` with ``probability``, ``P(C_r = c_r | C_{<r})`` of each row's observed click."""
    alpha, click = pl.col(ATTRACTIVENESS), pl.col(CLICK) == 1
    if model.model == "pbm":
        frame = frame.with_columns((alpha * pl.col(EXAMINATION)).alias("_p"))
    elif model.model == "ubm":
        frame = frame.with_columns(previous_click_rank().alias(PREVIOUS_CLICK))
        frame = ubm_examination(frame, model, PREVIOUS_CLICK)
        frame = frame.with_columns((alpha * pl.col(EXAMINATION)).alias("_p"))
    else:
        frame = _cascade_examination(frame, model)
        frame = frame.with_columns((pl.col("_epsilon") * alpha).alias("_p"))
    probability = pl.when(click).then(pl.col("_p")).otherwise(1 - pl.col("_p"))
    return frame.with_columns(probability.alias(PROBABILITY))


def _cascade_examination(frame: pl.LazyFrame, model: ClickModel) -> pl.LazyFrame:
    """``frame`` with ``_epsilon``, ``P(E_r = 1 | C_{<r})`` of a cascade model.

    Within the rows after a click at ``j`` (or from the top, ``j = 0``), with
    ``e`` the probability of going on after that click (1 at the top),
    ``B_r`` the product of ``g (1 - alpha_k)`` for ``j < k < r`` and ``S_r`` the
    sum of ``alpha_i B_i`` for ``j < i < r``: ``e B_r / (1 - e S_r)``, the
    probability of examining ``r`` and skipping every result in between, over
    the probability of skipping them.
    """
    g, after = cascade_steps(model)
    alpha, click = pl.col(ATTRACTIVENESS), pl.col(CLICK) == 1
    run = (pl.col(CLICK).cast(pl.Int64).cum_sum() - pl.col(CLICK).cast(pl.Int64)).over(SESSION)
    e = pl.when(click).then(after).shift(1).forward_fill().over(SESSION).fill_null(1.0)
    frame = frame.with_columns(run.alias("_run"), e.alias("_e"))
    b = ((1 - alpha) * g).cum_prod().shift(1, fill_value=1.0).over(SESSION, "_run")
    frame = frame.with_columns(b.alias("_b"))
    s = (alpha * pl.col("_b")).cum_sum().shift(1, fill_value=0.0).over(SESSION, "_run")
    e, b = pl.col("_e"), pl.col("_b")
    return frame.with_columns((e * b / (1 - e * s)).alias("_epsilon"))


def click_probabilities(frame: pl.LazyFrame, model: ClickModel) -> pl.LazyFrame:
    """``frame`` with ``click_probability``, ``P(C_r = 1)`` of each row, no click observed."""
    alpha = pl.col(ATTRACTIVENESS)
    if model.model == "pbm":
        return frame.with_columns((alpha * pl.col(EXAMINATION)).alias(CLICK_PROBABILITY))
    if model.model == "ubm":
        return _ubm_click_probabilities(frame, model)
    g, after = cascade_steps(model)
    # P(E_r = 1): the product over the ranks above of P(E_{k+1} = 1 | E_k = 1)
    going_on = g * (1 - alpha) + alpha * after
    examined = going_on.cum_prod().shift(1, fill_value=1.0).over(SESSION)
    return frame.with_columns((examined * alpha).alias(CLICK_PROBABILITY))


def _ubm_click_probabilities(frame: pl.LazyFrame, model: ClickModel) -> pl.LazyFrame:
    """UBM's ``P(C_r = 1)``: a forward pass over the rank of the last click above.

    ``pi(j)``, the probability that the last click above ``r`` is at ``j`` (0:
    none), starts at ``pi(0) = 1``; at each rank, ``P(C_r = 1) = sum_j pi(j)
    alpha_r gamma_{r,j}``, then ``pi(j)`` loses the clicks and ``pi(r)`` gets
    them. A loop over ranks, each step over every session at once.
    """
    import numpy as np

    rows = frame.with_columns(
        (pl.col(SESSION).rank("dense") - 1).cast(pl.Int64).alias("_session")
    ).collect()
    depth = int(rows.get_column(RANK).max() or 0)  # type: ignore[arg-type]
    sessions = int(rows.get_column("_session").max() or 0) + 1 if rows.height else 0  # type: ignore[operator]
    session_index = rows.get_column("_session").to_numpy()
    rank_index = rows.get_column(RANK).to_numpy().astype(np.int64) - 1
    alpha = np.zeros((sessions, depth))
    alpha[session_index, rank_index] = rows.get_column(ATTRACTIVENESS).to_numpy()
    gamma = np.full((depth + 1, depth + 1), model.default)  # gamma[r, j], rank r after a click at j
    assert model.examination is not None
    outside = model.columns.to_outside()
    for r, j, value in model.examination.select(
        outside[RANK], PREVIOUS_CLICK, EXAMINATION
    ).iter_rows():
        if 1 <= r <= depth and 0 <= j < r:
            gamma[r, j] = value
    last = np.zeros((sessions, depth + 1))
    last[:, 0] = 1.0
    clicks = np.zeros((sessions, depth))
    for r in range(1, depth + 1):
        given = alpha[:, r - 1 : r] * gamma[r, :r]  # P(C_r = 1 | last click above at j)
        clicks[:, r - 1] = (last[:, :r] * given).sum(axis=1)
        last[:, :r] *= 1 - given
        last[:, r] = clicks[:, r - 1]
    values = pl.Series(CLICK_PROBABILITY, clicks[session_index, rank_index], dtype=pl.Float64)
    return rows.drop("_session").with_columns(values).lazy()
