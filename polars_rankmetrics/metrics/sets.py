"""Counts and set measures: what was retrieved, whatever its order.

The counts (``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_nonrel_judged_ret``)
and the measures of the retrieved set as a whole (set precision, recall,
relative precision, set MAP, set F and trec_eval's utility). None depends on
the order of the ranking, so each is exact under every ``ties`` mode.

Definitions follow trec_eval 10 (``m_<name>.c``).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import polars as pl

from polars_rankmetrics._validate import NoRelevant, check_number
from polars_rankmetrics.engine import Ranked, statistic


def _count(ranked: Ranked, mask: pl.Expr) -> pl.Expr:
    """How many rows ``mask`` holds, as Float64: an aggregate (see ``Ranked.aggregate``).

    So each count is computed once per list however many measures read it, and the
    set measures (arithmetic over counts) take the engine's staged path.
    """
    return ranked.aggregate(mask.cast(pl.Float64).sum())


def _hits(ranked: Ranked) -> pl.Expr:
    """The number of relevant retrieved rows, as Float64."""
    return _count(ranked, ranked.top_hit(None))


def _safe_ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator``, or 0 where the denominator is 0."""
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(0.0)


@statistic(exact_average=True)
def num_queries_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """1 for each query: summed over queries, the number of queries (``num_q``)."""
    return pl.lit(1.0)


@statistic(exact_average=True)
def num_ret_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Return the number of retrieved rows."""
    return _count(ranked, ranked.retrieved)


@statistic(exact_average=True)
def num_rel_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """R: the number of relevant rows, retrieved or not."""
    return _count(ranked, ranked.relevant)


@statistic(exact_average=True)
def num_rel_ret_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Return the number of relevant retrieved rows."""
    return _hits(ranked)


@statistic()
def num_nonrel_judged_ret_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Return the number of retrieved rows judged (label >= 0) but not relevant."""
    return _count(ranked, ranked.retrieved & ranked.nonrelevant_judged)


@statistic(exact_average=True)
def set_p_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Precision of the whole retrieved set."""
    return _safe_ratio(_hits(ranked), _count(ranked, ranked.retrieved))


@statistic(exact_average=True)
def set_recall_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Recall of the whole retrieved set."""
    return ranked.if_relevant(_hits(ranked) / ranked.n_relevant, no_relevant)


@statistic(exact_average=True)
def set_relative_p_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Relevant retrieved over min(retrieved, R)."""
    smaller = pl.min_horizontal(
        _count(ranked, ranked.retrieved), ranked.n_relevant.cast(pl.Float64)
    )
    return ranked.if_relevant(_safe_ratio(_hits(ranked), smaller), no_relevant)


@statistic(exact_average=True)
def set_map_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Set precision times set recall."""
    hits = _hits(ranked)
    value = _safe_ratio(hits * hits, _count(ranked, ranked.retrieved) * ranked.n_relevant)
    return ranked.if_relevant(value, no_relevant)


def _beta(value: object, name: str) -> float:
    return check_number(value, name, low=0.0)


@statistic(exact_average=True, beta=_beta)
def set_f_statistic(ranked: Ranked, no_relevant: NoRelevant, *, beta: float = 1.0) -> pl.Expr:
    """F of set precision and set recall; ``beta`` weighs recall (trec_eval's x)."""
    hits = _hits(ranked)
    precision = hits / _count(ranked, ranked.retrieved)
    recall = hits / ranked.n_relevant
    value = (beta + 1.0) * precision * recall / (beta * precision + recall)
    return ranked.if_relevant(pl.when(hits > 0).then(value).otherwise(0.0), no_relevant)


def _coefficients(value: object, name: str) -> tuple[float, float, float, float]:
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 4:
        msg = f"`{name}` must be 4 numbers a, b, c, d, got {value!r}"
        raise ValueError(msg)
    a, b, c, d = (check_number(number, name) for number in value)
    return a, b, c, d


def _collection_size(value: object, name: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    msg = f"`{name}` must be an int, got {value!r}"
    raise ValueError(msg)


@statistic(exact_average=True, coefficients=_coefficients, collection_size=_collection_size)
def utility_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    coefficients: tuple[float, float, float, float],
    collection_size: int = 0,
) -> pl.Expr:
    """``a·(rel ret) + b·(nonrel ret) + c·(rel not ret) + d·(nonrel not ret)``.

    The last cell is ``N - ret - R + rel ret`` for a collection of N documents
    (trec_eval's ``-N``, default 0 as in trec_eval, which makes it negative).
    """
    a, b, c, d = coefficients
    hits = _hits(ranked)
    retrieved = _count(ranked, ranked.retrieved)
    relevant = ranked.n_relevant.cast(pl.Float64)
    return (
        a * hits
        + b * (retrieved - hits)
        + c * (relevant - hits)
        + d * (collection_size + hits - retrieved - relevant)
    )
