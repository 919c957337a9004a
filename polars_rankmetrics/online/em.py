"""The E- and M-steps of the click models fitted by EM: PBM, UBM and DBN.

Each model is its parameter vectors (indexed by a dense id of their key: the
query-document pair, the rank, the rank and previous click) and one step: the
E-step is a ``with_columns`` over the log that reads each row's parameters with
``gather`` and computes the posterior of every hidden variable; the M-step is a
``group_by`` of those posteriors per key. The loop over iterations is the only
Python loop. Every update is the book's (Chuklin, Markov and de Rijke 2015,
section 4.3) with pseudo-counts: a parameter is ``(clicks + sum of posteriors) /
(views + number of rows)``, the ``prior`` ``(clicks, views)`` (PyClick's
``(1, 2)`` by default), and starts at ``clicks / views``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import polars as pl

from polars_rankmetrics.online.log import CLICK, RANK
from polars_rankmetrics.online.windows import product_above, sum_above, sum_from_here_down, value_at

PAIR = "_pair"
"""The dense id of a row's query-document pair."""
LAST = "_last"
"""The rank of the session's last click (0: none)."""
CELL = "_cell"
"""UBM: the dense id of a row's (rank, previous click)."""


Step: TypeAlias = Callable[[dict[str, pl.Series], pl.DataFrame], dict[str, pl.LazyFrame]]
"""An EM iteration over a part of the log: the current parameter vectors and the rows to
each parameter's M-step sums (``key, num, den``: its id, the sum of the posteriors and of
their weights)."""

Loader: TypeAlias = Callable[[], pl.DataFrame]
"""A part of the prepared log (whole sessions), read when an iteration needs it."""


@dataclass(frozen=True)
class Estimate:
    """What an estimator returns: each parameter's values by key id, and a scalar or two."""

    vectors: dict[str, pl.Series]
    scalars: dict[str, float]


def m_step(
    rows: pl.LazyFrame, key: pl.Expr, posterior: pl.Expr, weight: pl.Expr | None = None
) -> pl.LazyFrame:
    """The sums of one M-step per key id: ``num = sum(posterior)``, ``den = sum(weight)``.

    ``weight`` is 1 per row by default. The update, ``(clicks + num) / (views + den)``
    over every part of the log, is :func:`run_em`'s: the sums are additive over sessions.
    """
    count = pl.len() if weight is None else weight.sum()
    return rows.group_by(key.alias("key")).agg(
        posterior.sum().cast(pl.Float64).alias("num"), count.cast(pl.Float64).alias("den")
    )


def run_em(
    iterations: int,
    start: dict[str, pl.Series],
    step: Step,
    parts: Sequence[Loader],
    prior: tuple[float, float],
) -> dict[str, pl.Series]:
    """Iterate ``step`` over every part of the log ``iterations`` times.

    Each iteration adds up the M-step sums of the parts, then sets every parameter
    to ``(clicks + num) / (views + den)``: an id no row informs gets ``clicks / views``.
    A ``prior`` of ``(0, 0)`` is plain maximum likelihood (``num / den``: then every
    id must be informed by some row).
    """
    clicks, views = prior
    values = dict(start)
    for _ in range(iterations):
        sums = {name: [pl.zeros(len(v), pl.Float64, eager=True)] * 2 for name, v in values.items()}
        for load in parts:
            queries = step(values, load())
            results = pl.collect_all(list(queries.values()))
            for name, result in zip(queries, results, strict=True):
                keys = result.get_column("key")
                for i, column in enumerate(("num", "den")):
                    total = sums[name][i]  # the keys of one result are distinct: add by scatter
                    added = total.gather(keys) + result.get_column(column)
                    sums[name][i] = total.clone().scatter(keys, added)
        values = {
            name: ((clicks + num) / (views + den)).alias(name) for name, (num, den) in sums.items()
        }
    return values


def clicked() -> pl.Expr:
    """Whether the row was clicked."""
    return pl.col(CLICK) == 1


def pbm_step(depth: int) -> Step:
    """PBM's EM step: ``P(A=1|C)`` and ``P(E=1|C)`` of each row, then their sums.

    With ``alpha`` the attractiveness and ``gamma`` the examination of rank ``r``:
    a click means ``A = E = 1``; without one, ``P(A=1|C=0) = (1 - gamma) alpha /
    (1 - gamma alpha)`` and ``P(E=1|C=0) = gamma (1 - alpha) / (1 - gamma alpha)``.
    UBM's step is the same with ``gamma`` per (rank, previous click) cell.
    """
    return position_step(pl.col(RANK) - 1)


def ubm_step(depth: int) -> Step:
    """UBM's EM step: PBM's posteriors, the examination of ``(r, r')`` (last click above at r')."""
    return position_step(pl.col(CELL))


def position_step(cell: pl.Expr, counts: tuple[pl.Expr, pl.Expr] | None = None) -> Step:
    """The EM step of a model whose click is ``A = 1`` and ``E = 1``, ``E`` keyed by ``cell``.

    ``alpha`` is read per row at its pair's id (``_pair``), ``gamma`` at ``cell``
    (an id expression). A row is one impression, clicked or not by the log's
    click column; or, with ``counts = (views, clicks)``, ``views`` impressions of
    one pair at one cell of which ``clicks`` were clicked: its M-step sums are
    then ``clicks + (views - clicks) P(.=1|C=0)`` and ``views`` (0 / 0 is not
    read where every impression was clicked). This step is the PBM of
    :func:`~polars_rankmetrics.online.fit` and of
    :func:`polars_rankmetrics.counterfactual.fit_pbm` (on a table of counts).
    """
    if counts is None:
        views, clicks, weight = pl.lit(1.0), clicked().cast(pl.Float64), None
    else:
        views, clicks = counts
        weight = views
    unclicked = views - clicks

    def posterior(unclicked_posterior: pl.Expr) -> pl.Expr:
        return clicks + pl.when(unclicked > 0).then(unclicked * unclicked_posterior).otherwise(0.0)

    def step(values: dict[str, pl.Series], log: pl.DataFrame) -> dict[str, pl.LazyFrame]:
        alpha = pl.lit(values["attractiveness"]).gather(pl.col(PAIR))
        gamma = pl.lit(values["examination"]).gather(cell)
        rows = log.lazy().with_columns(alpha.alias("a"), gamma.alias("g"))
        a, g = pl.col("a"), pl.col("g")
        no_click = 1 - a * g
        attractive = posterior((1 - g) * a / no_click)
        examined = posterior((1 - a) * g / no_click)
        return {
            "attractiveness": m_step(rows, pl.col(PAIR), attractive, weight),
            "examination": m_step(rows, cell, examined, weight),
        }

    return step


def dbn_posteriors(rows: pl.LazyFrame, depth: int) -> pl.LazyFrame:
    """DBN's posteriors of each row, given its ``a`` (alpha), ``s`` (sigma) and ``g`` (gamma).

    Rows above the last click ``l`` were examined; the rows below it (the tail,
    every row when there is no click) were examined up to an unknown rank. With
    ``e = P(E_{l+1} = 1 | C_{<=l})`` (``gamma (1 - sigma_l)``, or 1 without a
    click), ``B_r`` the product of ``(1 - alpha_k) gamma`` over the tail above
    ``r``, ``R_r`` the sum of ``alpha_j B_j`` over the tail from ``r`` down and
    ``T`` that sum over the whole tail, the probability of the observed tail is
    ``D = 1 - e T``, and for a tail row ``P(E_r = 1 | C) = e (B_r - R_r) / D``,
    ``P(A_r = 1 | C) = alpha_r (D + e R_r - e B_r) / D`` (the book's
    ``alpha (1 - eps_r) / (1 - eps_r X_r)`` with ``eps_r = P(E_r = 1 | C_{<r})``),
    and at the last click ``P(S_l = 1 | C) = sigma_l / D``. No quotient but the
    one by ``D``: a document with attractiveness 1 does not divide by 0.
    """
    a, s, g = pl.col("a"), pl.col("s"), pl.col("g")
    last, rank = pl.col(LAST), pl.col(RANK)
    tail = rank > last
    at_last = rank == last
    sigma_last = pl.when(at_last).then(s).otherwise(value_at(s, last, depth))
    rows = rows.with_columns(
        pl.when(last == 0).then(1.0).otherwise(g * (1 - sigma_last)).alias("e"),
        product_above((1 - a) * g, depth, since=last).alias("B"),
    )
    rows = rows.with_columns(pl.when(tail).then(a * pl.col("B")).otherwise(0.0).alias("w"))
    weight = pl.col("w")
    rows = rows.with_columns(sum_from_here_down(weight, depth).alias("R"))
    rows = rows.with_columns((pl.col("R") + sum_above(weight, depth)).alias("T"))
    e, b, r, t = pl.col("e"), pl.col("B"), pl.col("R"), pl.col("T")
    d = 1 - e * t
    return rows.with_columns(
        pl.when(clicked())
        .then(1.0)
        .when(tail)
        .then(a * (d + e * r - e * b) / d)
        .otherwise(0.0)
        .alias("post_a"),
        pl.when(at_last).then(s / d).otherwise(0.0).alias("post_s"),
        # P(E_r = 1, S_r = 0, E_{r+1} = 1 | C) and P(E_r = 1, S_r = 0 | C): gamma's update
        pl.when(rank < last)
        .then(1.0)
        .when(at_last)
        .then((1 - s) * g * (1 - t) / d)
        .otherwise(e * (b * (1 - a) * g - (r - a * b)) / d)
        .alias("post_g"),
        pl.when(rank < last)
        .then(1.0)
        .when(at_last)
        .then((1 - s) * (1 - g * t) / d)
        .otherwise(e * (b - r) / d)
        .alias("weight_g"),
    )


def dbn_step(depth: int) -> Step:
    """DBN's EM step (:func:`dbn_posteriors`), then the sums per pair and gamma's."""

    def step(values: dict[str, pl.Series], log: pl.DataFrame) -> dict[str, pl.LazyFrame]:
        rows = log.lazy().with_columns(
            pl.lit(values["attractiveness"]).gather(pl.col(PAIR)).alias("a"),
            pl.lit(values["satisfaction"]).gather(pl.col(PAIR)).alias("s"),
            pl.lit(values["continuation"][0], pl.Float64).alias("g"),
        )
        rows = dbn_posteriors(rows, depth)
        return {
            "attractiveness": m_step(rows, pl.col(PAIR), pl.col("post_a")),
            "satisfaction": m_step(rows.filter(clicked()), pl.col(PAIR), pl.col("post_s")),
            "continuation": m_step(rows, pl.lit(0), pl.col("post_g"), pl.col("weight_g")),
        }

    return step
