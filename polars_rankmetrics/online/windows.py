"""Cumulative products and sums down each session, as sums of shifted columns.

The logs are sorted by session and rank, and every session's ranks are 1..n
(:func:`.log.read_log` checks it), so the row ``k`` places above a row is in its
session exactly when ``rank > k``, and the row ``k`` places below when ``rank +
k <= length``. A cumulative product over a session is then the product of at
most ``depth - 1`` shifted columns, each masked: plain column arithmetic,
several times quicker than polars' cumulative window expressions (``.over``) on
millions of small sessions, and exact (no logarithms, no division). ``depth`` is
the longest session of the log; the work grows with it.
"""

from __future__ import annotations

import functools
import operator

import polars as pl

from polars_rankmetrics.online.log import RANK

LENGTH = "_length"
"""The session's number of rows (its last rank), a column of the log."""


def product_above(value: pl.Expr, depth: int, *, since: pl.Expr | None = None) -> pl.Expr:
    """The product of ``value`` over the rows above each row in its session (1 for the top).

    With ``since``, only over the rows ranked below ``since`` (rank > since).
    """
    floor = pl.lit(0) if since is None else since
    factors = [
        pl.when(pl.col(RANK) - k > floor).then(value.shift(k)).otherwise(1.0)
        for k in range(1, depth)
    ]
    return functools.reduce(operator.mul, factors, pl.lit(1.0))


def sum_above(value: pl.Expr, depth: int, *, since: pl.Expr | None = None) -> pl.Expr:
    """The sum of ``value`` over the rows above each row in its session (0 for the top)."""
    floor = pl.lit(0) if since is None else since
    terms = [
        pl.when(pl.col(RANK) - k > floor).then(value.shift(k)).otherwise(0.0)
        for k in range(1, depth)
    ]
    return functools.reduce(operator.add, terms, pl.lit(0.0))


def sum_from_here_down(value: pl.Expr, depth: int) -> pl.Expr:
    """The sum of ``value`` over each row and the rows below it in its session."""
    terms = [
        pl.when(pl.col(RANK) + k <= pl.col(LENGTH)).then(value.shift(-k)).otherwise(0.0)
        for k in range(1, depth)
    ]
    return functools.reduce(operator.add, terms, value)


def value_at(value: pl.Expr, rank: pl.Expr, depth: int) -> pl.Expr:
    """``value`` at rank ``rank`` above each row of its session (null where ``rank`` is 0)."""
    picks = [pl.when(pl.col(RANK) - k == rank).then(value.shift(k)) for k in range(1, depth)]
    return pl.coalesce(picks) if picks else pl.lit(None, pl.Float64)
