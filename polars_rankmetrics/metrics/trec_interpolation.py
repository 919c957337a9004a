"""trec_eval's interpolated precision: ``iprec_at_recall`` and ``11pt_avg``.

trec_eval turns a recall level into a number of relevant rows first (rounding
``level·R``), then takes the highest precision from the row that reaches it;
``11pt_avg`` is the mean over levels, walked and added as trec_eval walks them.
The plain interpolated precision, which compares recall with the level, is in
:mod:`polars_rankmetrics.metrics.curves`.
"""

from __future__ import annotations

import functools
import math
import numbers
import operator
from collections.abc import Sequence
from typing import Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import NoRelevant, check_number, choice
from polars_rankmetrics.engine import Ranked, statistic


def _real(value: object, name: str) -> float:
    """Any real number, NaN and infinities included (trec_eval reads its levels with ``atof``)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return check_number(value, name)
    return float(value)


def _reals(values: object, name: str) -> tuple[float, ...]:
    """A non-empty list of real numbers, in the order given."""
    if isinstance(values, str) or not isinstance(values, Sequence) or not values:
        msg = f"`{name}` must be a non-empty list of numbers, got {values!r}"
        raise ValueError(msg)
    return tuple(_real(value, name) for value in values)


TrecVersion: TypeAlias = Literal["10", "9"]
"""Whose rounding of a recall level into relevant rows: trec_eval 10's ``lround``, or
trec_eval 9's ``(long)(level·R + 0.9)`` (bundled in pytrec_eval, used by ir_measures)."""


def _recall_cutoff(level: float, n_relevant: pl.Expr, version: TrecVersion = "10") -> pl.Expr:
    """The number of relevant rows a recall level stands for: C's ``lround(level·R)``.

    Halves round away from 0. trec_eval 9 truncates ``level·R + 0.9`` instead.
    A level that gives no finite count (NaN, an infinity) gives C's value on
    x86, the smallest ``long``: -2**63.
    """
    if not math.isfinite(level):
        return pl.lit(-(2.0**63))
    product = level * n_relevant.cast(pl.Float64)
    if version == "9":
        shifted = product + 0.9
        return pl.when(shifted < 0.0).then(shifted.ceil()).otherwise(shifted.floor())
    rounded = (product.abs() + 0.5).floor()
    return pl.when(product < 0.0).then(-rounded).otherwise(rounded)


def _best_precision(ranked: Ranked, cutoff: pl.Expr) -> pl.Expr:
    """The highest precision at the ranks of the c-th and later relevant retrieved rows.

    For c < 1, the highest over every relevant retrieved row. Without one, the
    precision of the whole ranking, ``0 / n`` (NaN when nothing is retrieved),
    as trec_eval's interpolation starts from it.
    """
    hit = ranked.top_hit(None)
    found = hit.cast(pl.Float64).cum_sum()
    precision = (found / ranked.rank).filter(hit & (found >= cutoff)).max()
    return pl.when(hit.any()).then(precision).otherwise(_empty_precision(ranked))


def _empty_precision(ranked: Ranked) -> pl.Expr:
    """The precision of a ranking without a relevant retrieved row: 0, or NaN (0/0) if empty."""
    n_retrieved = ranked.retrieved.cast(pl.Float64).sum()
    return pl.when(n_retrieved > 0.0).then(0.0).otherwise(n_retrieved / n_retrieved)


_MAX_INDEX = float(2**53)
"""The largest count read as an index (above it, the value is 0 anyway)."""


def _best_from(ranked: Ranked) -> pl.Expr:
    """Per list, the running maximum from the end of the precisions at the hits (a list).

    Its (c-1)-th value is the highest precision from the c-th relevant retrieved
    row on: :func:`_best_precision` for every cutoff at once. It is one aggregate
    (:meth:`.Ranked.best_precision_from_hits`), so the levels of ``iprec_at_recall``
    that read it share it (the engine computes each distinct aggregate once per list).
    """
    return ranked.best_precision_from_hits()


def _interpolated_at(ranked: Ranked, cutoff: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """trec_eval's interpolated precision at a count of relevant rows, and ``empty``.

    ``empty`` is the precision without a relevant retrieved row. The value is
    read from :func:`_best_from`: the highest precision over the hits with
    ``found >= c`` (:func:`_best_precision`) is the running maximum from the end
    at the c-th hit (at the first for ``c < 1``); 0 for a count above the
    relevant retrieved rows. Every part is a per-list aggregate, so a statistic
    built on it is staged.
    """
    n_found = ranked.aggregate(ranked.top_hit(None).sum()).cast(pl.Float64)
    any_hit = ranked.aggregate(ranked.top_hit(None).any())
    n_retrieved = ranked.aggregate(ranked.retrieved.sum()).cast(pl.Float64)
    empty = pl.when(n_retrieved > 0.0).then(0.0).otherwise(n_retrieved / n_retrieved)
    # Clipped above too, so that a huge level (1e300·R) still casts: any count
    # above the relevant retrieved rows reads 0 below, whatever it gathers.
    index = (cutoff.clip(lower_bound=1.0, upper_bound=_MAX_INDEX) - 1.0).cast(pl.Int64)
    best = _best_from(ranked).list.get(index, null_on_oob=True)
    found_one = pl.when(any_hit).then(best).otherwise(empty)
    return pl.when(cutoff > n_found).then(0.0).otherwise(found_one), empty


def _shared_terms(ranked: Ranked, cutoffs: list[pl.Expr]) -> list[pl.Expr]:
    """The terms of :func:`eleven_point_statistic` for ascending levels, in walking order.

    Walked from the largest level down, the counts never rise: each level takes
    its own interpolated precision (0 above the relevant retrieved rows).
    """
    return [_interpolated_at(ranked, cutoff)[0] for cutoff in cutoffs]


def _trec_interpolated(
    ranked: Ranked, level: float, no_relevant: NoRelevant, version: TrecVersion = "10"
) -> pl.Expr:
    """trec_eval's interpolated precision at ``level`` (see :func:`_interpolated_at`)."""
    cutoff = _recall_cutoff(level, ranked.n_relevant, version)
    value, empty = _interpolated_at(ranked, cutoff)
    # Without a relevant row there is no hit: the value is the precision `empty`.
    fallback = empty if no_relevant == "zero" else None
    return pl.when(ranked.n_relevant > 0).then(value).otherwise(fallback)


@statistic(level=_real, trec_version=choice(TrecVersion))
def trec_interpolated_precision_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, level: float, trec_version: TrecVersion = "10"
) -> pl.Expr:
    """Interpolated precision at a recall level, as trec_eval 10 computes it.

    The level is first turned into a number of relevant rows,
    ``c = lround(level·R)`` (``(long)(level·R + 0.9)`` with ``trec_version='9'``,
    as pytrec_eval and ir_measures compute it): 0 when c exceeds the relevant
    retrieved rows, otherwise the highest precision at the rank of the m-th
    relevant retrieved row, over every m >= max(c, 1). Any level is taken, as
    trec_eval takes it: above 1 it usually gives 0, below 0 (or NaN) the
    highest precision. Without a relevant retrieved row the value is the
    precision of the ranking, 0 (NaN when nothing is retrieved, trec_eval's 0/0).
    """
    return _trec_interpolated(ranked, level, no_relevant, trec_version)


def _unsorted_terms(ranked: Ranked, cutoffs: list[pl.Expr], n_found: pl.Expr) -> list[pl.Expr]:
    """The terms of :func:`eleven_point_statistic` for levels not in ascending order.

    ``cutoffs`` are in walking order. The first ones above the relevant
    retrieved rows add nothing (skipped); from the first one that is not, each
    takes its own value while the counts do not rise and stay >= 1; after that
    every level takes the highest precision of the ranking. Written without
    recursion (the conditions of each step are spelled out), as the expression
    would otherwise double in size at each level.
    """
    skipped: list[pl.Expr] = []
    for index, cutoff in enumerate(cutoffs):
        above = cutoff > n_found
        skipped.append(above if index == 0 else above & skipped[index - 1])
    steady = []
    for index, cutoff in enumerate(cutoffs):
        not_rising = (
            pl.lit(True) if index == 0 else skipped[index - 1] | (cutoff <= cutoffs[index - 1])
        )
        steady.append(skipped[index] | ((cutoff >= 1.0) & not_rising))
    final = _best_precision(ranked, pl.lit(0.0))
    terms = []
    for index, cutoff in enumerate(cutoffs):
        matched = pl.all_horizontal(~skipped[index], *steady[: index + 1])
        value = pl.when(matched).then(_best_precision(ranked, cutoff)).otherwise(final)
        terms.append(pl.when(skipped[index]).then(0.0).otherwise(value))
    return terms


@statistic(levels=_reals)
def eleven_point_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, levels: tuple[float, ...]
) -> pl.Expr:
    """The mean of trec_eval's interpolated precision over recall levels (``11pt_avg``).

    As trec_eval computes it: levels are taken in the order given (not
    sorted), walked from the last one down, and added in that order; a level
    whose count of relevant rows the walk down the ranking has already passed
    (an unsorted list) takes the highest precision of the ranking, and a level
    above the relevant retrieved rows adds nothing. The sum is divided by the
    number of levels.
    """
    cutoffs = [_recall_cutoff(level, ranked.n_relevant) for level in reversed(levels)]
    if list(levels) == sorted(levels):
        # Each level's term is iprec_at_recall's value (staged, see _shared_terms),
        # added in walking order, left to right.
        total = functools.reduce(operator.add, _shared_terms(ranked, cutoffs))
    else:
        n_found = ranked.top_hit(None).cast(pl.Float64).sum()
        total = functools.reduce(operator.add, _unsorted_terms(ranked, cutoffs, n_found))
    value = ranked.divide(total, len(levels))
    if no_relevant == "zero":
        return value
    return pl.when(ranked.n_relevant > 0).then(value).otherwise(None)
