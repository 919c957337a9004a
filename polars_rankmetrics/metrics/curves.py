"""Precision-recall curves: exact, per row, binned, and interpolated.

trec_eval's interpolated precision (``iprec_at_recall``, which rounds the
recall level to a number of relevant rows) and ``11pt_avg`` are in
:mod:`polars_rankmetrics.metrics.trec_interpolation`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import polars as pl

from polars_rankmetrics._validate import (
    IntoExpr,
    NoRelevant,
    Ties,
    check_k,
    check_number,
    is_bool,
    is_integral,
)
from polars_rankmetrics.engine import Ranked, Ranking, evaluate_one, statistic
from polars_rankmetrics.engine.ties import expected_hit

ELEVEN_POINTS: tuple[float, ...] = tuple(level / 10 for level in range(11))
"""The standard recall levels 0.0, 0.1, ..., 1.0."""

# Recall is compared as tp >= level * R; the slack absorbs the rounding of
# level * R (0.3 * 10 is 3.0000000000000004) without admitting a smaller count.
_RECALL_SLACK = 1e-9


def _point(
    threshold: pl.Expr,
    tp: pl.Expr,
    pp: pl.Expr,
    n_relevant: pl.Expr,
    tp_dtype: type[pl.DataType] = pl.Int64,
) -> pl.Expr:
    """One curve point: ``{threshold, tp, pp, precision, recall}``."""
    return pl.struct(
        threshold=threshold.cast(pl.Float64),
        tp=tp.cast(tp_dtype),
        pp=pp.cast(pl.Int64),
        precision=pl.when(pp > 0).then(tp / pp),
        recall=pl.when(n_relevant > 0).then(tp / n_relevant),
    )


def pr_curve(
    relevance: IntoExpr,
    *,
    by: IntoExpr | Sequence[IntoExpr],
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
) -> pl.Expr:
    """
    The exact precision-recall curve: one point per distinct score.

    Each point is a struct ``{threshold, tp, pp, precision, recall}`` for the
    rows whose score is at or above ``threshold`` (at or below it when
    ``descending=False``): ``tp`` relevant rows among ``pp`` predicted positive.
    Points run from the highest score down. Rows with equal scores are one
    threshold, so the points are exactly those of scikit-learn's
    ``precision_recall_curve`` (which adds a final ``(1, 0)`` point and orders
    them the other way). Recall counts unretrieved relevant rows (null score) in
    its denominator; it is null for a group with no relevant row.

    Under ``group_by().agg()`` the result is a list of points per group; in
    ``select`` it is one list, which ``.explode()`` turns into rows.

    Ties: the points sit at the ends of the groups of tied scores, where
    ``tp`` and ``pp`` are the same in every ordering of the tied rows, so there
    is no ``ties`` option: every mode of the rank-based metrics passes through
    these points and they differ only between them. Inside a tie group of
    ``n`` rows with ``r`` relevant, ``ties='optimistic'`` first climbs
    ``tp`` by ``r`` then runs flat, ``'pessimistic'`` runs flat then climbs,
    and the expected ``tp`` of ``'average'`` after ``m`` of the ``n`` rows is
    ``r·m/n`` more than at the previous point: the straight line between the
    two points in (pp, tp) count space (not in precision-recall space, where
    that line is a curve; Davis and Goadrich, ICML 2006).

    Parameters
    ----------
    relevance
    by
        The score; later entries of a list are ignored here (a threshold is a
        score value).
    descending
        Whether a higher score ranks first.
    threshold
        Labels above this value are relevant.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {"score": [0.9, 0.5, 0.5, 0.1], "relevance": [1, 0, 1, 0]}
    ... )
    >>> df.select(rm.pr_curve("relevance", by="score").explode()).unnest("relevance")
    shape: (3, 5)
    ┌───────────┬─────┬─────┬───────────┬────────┐
    │ threshold ┆ tp  ┆ pp  ┆ precision ┆ recall │
    │ ---       ┆ --- ┆ --- ┆ ---       ┆ ---    │
    │ f64       ┆ i64 ┆ i64 ┆ f64       ┆ f64    │
    ╞═══════════╪═════╪═════╪═══════════╪════════╡
    │ 0.9       ┆ 1   ┆ 1   ┆ 1.0       ┆ 0.5    │
    │ 0.5       ┆ 2   ┆ 3   ┆ 0.666667  ┆ 1.0    │
    │ 0.1       ┆ 2   ┆ 4   ┆ 0.5       ┆ 1.0    │
    └───────────┴─────┴─────┴───────────┴────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold)
    ranked = ranking.scored_vocabulary()
    score = ranked.score
    last_of_tie = ranked.retrieved & score.ne_missing(score.shift(-1))
    point = _point(score, ranked.hit.cum_sum(), ranked.rank, ranked.n_relevant)
    return ranking.ranked_with_scores().list.eval(point.filter(last_of_tie))


def cumulative_pr(
    relevance: IntoExpr,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Cumulative counts at each row's rank: ``TP≤i``, ``PP≤i``, precision and recall.

    For the row at rank ``i``, ``tp`` is the number of relevant rows at ranks
    ``1..i`` and ``pp = i``; ``precision = tp / i`` and ``recall = tp / R``. The
    result is a struct per row, aligned with the input rows (not sorted), so it
    works with ``.over(query)`` and ``with_columns``. Rows with a null or NaN
    score have no rank and get a null struct. Equal scores keep input order,
    or follow ``ties``.

    Parameters
    ----------
    relevance
    by
        The score and tie-breakers; ``None`` means rows are in rank order.
    descending, threshold, ties
        As for :func:`~polars_rankmetrics.precision_at_k`: their direction, the relevance
        threshold and the tie policy.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {
    ...         "query": [1, 1, 1, 2, 2],
    ...         "score": [0.2, 0.9, 0.5, 0.3, 0.8],
    ...         "relevance": [1, 1, 0, 0, 1],
    ...     }
    ... )
    >>> df.with_columns(
    ...     rm.cumulative_pr("relevance", by="score").over("query").alias("pr")
    ... ).unnest("pr")
    shape: (5, 7)
    ┌───────┬───────┬───────────┬─────┬─────┬───────────┬────────┐
    │ query ┆ score ┆ relevance ┆ tp  ┆ pp  ┆ precision ┆ recall │
    │ ---   ┆ ---   ┆ ---       ┆ --- ┆ --- ┆ ---       ┆ ---    │
    │ i64   ┆ f64   ┆ i64       ┆ i64 ┆ i64 ┆ f64       ┆ f64    │
    ╞═══════╪═══════╪═══════════╪═════╪═════╪═══════════╪════════╡
    │ 1     ┆ 0.2   ┆ 1         ┆ 2   ┆ 3   ┆ 0.666667  ┆ 1.0    │
    │ 1     ┆ 0.9   ┆ 1         ┆ 1   ┆ 1   ┆ 1.0       ┆ 0.5    │
    │ 1     ┆ 0.5   ┆ 0         ┆ 1   ┆ 2   ┆ 0.5       ┆ 0.5    │
    │ 2     ┆ 0.3   ┆ 0         ┆ 1   ┆ 2   ┆ 0.5       ┆ 1.0    │
    │ 2     ┆ 0.8   ┆ 1         ┆ 1   ┆ 1   ┆ 1.0       ┆ 1.0    │
    └───────┴───────┴───────────┴─────┴─────┴───────────┴────────┘
    """
    _refuse_average(ties, "cumulative_pr", "a tied row has no single rank to report counts at")
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    relevant = ranking.threshold.admits(ranking.label)
    hit = (relevant & ranking.retrieved).cast(pl.Int64)
    rank_order = ranking.order(pl.int_range(pl.len()))
    position = rank_order.arg_sort()  # 0-based rank of each input row
    tp = ranking.order(hit).cum_sum().gather(position)
    pp = position.cast(pl.Int64) + 1
    n_relevant = relevant.sum()
    point = pl.struct(
        tp=tp,
        pp=pp,
        precision=tp / pp,
        recall=pl.when(n_relevant > 0).then(tp / n_relevant),
    )
    return pl.when(ranking.retrieved).then(point)


def binned_pr_curve(
    relevance: IntoExpr,
    bins: int | Sequence[float],
    *,
    by: IntoExpr | Sequence[IntoExpr],
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    A precision-recall curve with a fixed number of points, for large rankings.

    - ``bins=K`` (an int) cuts the ranking into K bins of equal size: with N
      retrieved rows, point ``i`` covers the top ``ceil(i·N/K)`` rows, so when N
      is a multiple of K, ``pp = i·N/K``. Its ``threshold`` is the lowest score
      in those rows. When N < K, empty bins are dropped.
    - ``bins=[t1, t2, ...]`` (score cut-offs) gives one point per cut-off: the
      rows whose score is at or above it (at or below when
      ``descending=False``), in rank order. This needs no sort.

    Points have the fields of :func:`pr_curve`, which is the case of one bin
    per distinct score.

    An equal-size bin can end inside a group of tied scores, and then its
    ``tp`` depends on how the ties are ordered (``ties``). With
    ``ties='average'``, ``tp`` is the expected count, a Float64: ``r·m/n``
    for the ``m`` rows taken from a tie group of ``n`` with ``r`` relevant,
    and precision and recall are the exact expectations (``pp`` and R are
    fixed). Score cut-offs never split a tie, so ``ties`` changes nothing there.

    Parameters
    ----------
    relevance
    bins
        The number of equal-size bins (a positive int), or score cut-offs.
    by
        The score; with an int ``bins``, later entries break ties.
    descending
        Whether a higher score ranks first.
    threshold, ties
        As for :func:`~polars_rankmetrics.precision_at_k`: the relevance threshold and the
        tie policy.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {"score": [8, 7, 6, 5, 4, 3, 2, 1], "relevance": [1, 1, 0, 1, 0, 0, 1, 0]}
    ... )
    >>> df.select(rm.binned_pr_curve("relevance", 4, by="score").explode()).unnest(
    ...     "relevance"
    ... )
    shape: (4, 5)
    ┌───────────┬─────┬─────┬───────────┬────────┐
    │ threshold ┆ tp  ┆ pp  ┆ precision ┆ recall │
    │ ---       ┆ --- ┆ --- ┆ ---       ┆ ---    │
    │ f64       ┆ i64 ┆ i64 ┆ f64       ┆ f64    │
    ╞═══════════╪═════╪═════╪═══════════╪════════╡
    │ 7.0       ┆ 2   ┆ 2   ┆ 1.0       ┆ 0.5    │
    │ 5.0       ┆ 3   ┆ 4   ┆ 0.75      ┆ 0.75   │
    │ 3.0       ┆ 3   ┆ 6   ┆ 0.5       ┆ 0.75   │
    │ 1.0       ┆ 4   ┆ 8   ┆ 0.5       ┆ 1.0    │
    └───────────┴─────┴─────┴───────────┴────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    if is_integral(bins):
        return _equal_bins(ranking, check_k(bins, "bins"))
    if isinstance(bins, Sequence) and not isinstance(bins, str) and len(bins) > 0:
        return _cutoff_bins(ranking, [_cutoff(cutoff) for cutoff in bins])
    msg = f"`bins` must be a positive int or a non-empty list of score cut-offs, got {bins!r}"
    raise ValueError(msg)


def _cutoff(value: object) -> float:
    """A score cut-off: any number but NaN (an infinite one takes all rows or none)."""
    if isinstance(value, numbers.Real) and not is_bool(value) and value == value:
        return float(value)
    msg = f"`bins` cut-offs must be numbers, not NaN, got {value!r}"
    raise ValueError(msg)


def _equal_bins(ranking: Ranking, n_bins: int) -> pl.Expr:
    ranked = ranking.scored_vocabulary()
    n_retrieved = ranked.n_retrieved.cast(pl.Int64)
    # With m = min(bins, N) bins the ends are the same: ceil(i * N / bins) over
    # i <= bins covers every rank once bins >= N. So a huge `bins` costs nothing.
    m = pl.max_horizontal(pl.min_horizontal(pl.lit(n_bins, pl.Int64), n_retrieved), pl.lit(1))
    bin_number = pl.int_range(1, m + 1, dtype=pl.Int64)
    ends = ((bin_number * n_retrieved + m - 1) // m).unique(maintain_order=True)
    ends = ends.filter(ends > 0)
    # Under 'average' ties the expected hit count is the sum of expected hits.
    tp = expected_hit(ranked).cum_sum()
    tp_dtype = pl.Float64 if ranking.ties == "average" else pl.Int64
    point = _point(
        ranked.score.gather(ends - 1), tp.gather(ends - 1), ends, ranked.n_relevant, tp_dtype
    )
    return ranking.ranked_with_scores().list.eval(point)


def _cutoff_bins(ranking: Ranking, cutoffs: list[float]) -> pl.Expr:
    score = ranking.score
    assert score is not None
    descending = ranking.descending[0]
    relevant = ranking.threshold.admits(ranking.label)
    points = []
    for cutoff in sorted(cutoffs, reverse=descending):
        inside = score >= cutoff if descending else score <= cutoff
        tp = (inside & relevant).sum()
        points.append(_point(pl.lit(cutoff, pl.Float64), tp, inside.sum(), relevant.sum()))
    # Named like the relevance column, as every other metric is.
    name = ranking.relevance.meta.output_name(raise_if_undetermined=False)
    curve = pl.concat_list(points)
    return curve if name is None else curve.alias(name)


def _check_level(level: object, name: str) -> float:
    return check_number(level, name, low=0.0, high=1.0)


def _check_levels(recall_levels: object, name: str = "recall_levels") -> tuple[float, ...]:
    if recall_levels is None:
        return ELEVEN_POINTS
    if isinstance(recall_levels, str) or not isinstance(recall_levels, Sequence):
        msg = f"`{name}` must be a non-empty list of numbers in [0, 1], got {recall_levels!r}"
        raise ValueError(msg)
    try:
        levels = tuple(_check_level(level, name) for level in recall_levels)
    except ValueError:
        levels = ()
    if not levels:
        msg = f"`{name}` must be a non-empty list of numbers in [0, 1], got {recall_levels!r}"
        raise ValueError(msg)
    return levels


def _interpolated(ranked: Ranked, levels: Sequence[float], no_relevant: NoRelevant) -> pl.Expr:
    """Interpolated precision at each recall level, as one list."""
    tp = ranked.hit.cum_sum()
    precision = tp / ranked.rank
    n_relevant = ranked.n_relevant
    at_levels = [
        precision.filter(ranked.retrieved & (tp >= level * n_relevant - _RECALL_SLACK))
        .max()
        .fill_null(0.0)
        for level in levels
    ]
    values = pl.concat_list(at_levels)
    zeros = pl.concat_list([pl.lit(0.0)] * len(levels))
    return pl.when(n_relevant > 0).then(values).otherwise(None if no_relevant == "null" else zeros)


@statistic(dtype=pl.List(pl.Float64), recall_levels=_check_levels)
def interpolated_precision_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, recall_levels: tuple[float, ...]
) -> pl.Expr:
    """Interpolated precision at each recall level (the textbook definition), as a list."""
    return _interpolated(ranked, recall_levels, no_relevant)


@statistic(recall_levels=_check_levels)
def interpolated_ap_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, recall_levels: tuple[float, ...]
) -> pl.Expr:
    """The mean interpolated precision over the recall levels."""
    return _interpolated(ranked, recall_levels, no_relevant).list.mean()


def _refuse_average(ties: Ties, function: str, reason: str) -> None:
    if ties == "average":
        msg = (
            f"`ties='average'` is not available for {function}: {reason}; "
            "use 'optimistic' and 'pessimistic' for bounds"
        )
        raise ValueError(msg)


def interpolated_precision(
    relevance: IntoExpr,
    recall_levels: Sequence[float] | None = None,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Interpolated precision at standard recall levels, as a list.

    The interpolated precision at recall level ``r`` is the highest precision at
    any rank whose recall is at least ``r``, and 0 where recall never reaches
    ``r``. The default levels are the eleven points 0.0, 0.1, ..., 1.0. Recall
    counts unretrieved relevant rows in its denominator R.

    This is the textbook definition (Manning et al., 8.4), comparing the recall
    ``tp / R`` with the level. trec_eval 10's ``iprec_at_recall`` instead rounds
    ``level * R`` to a whole number of relevant rows first.

    Parameters
    ----------
    relevance
    recall_levels
        Recall levels in [0, 1]; the default is the eleven standard levels.
    by, descending, threshold, ties
    no_relevant : {'null', 'zero'}
        For a query with no relevant row: a null list, or a list of zeros.

    Examples
    --------
    A textbook example of 11-point interpolation: 9 relevant documents, 12 retrieved.

    >>> ranked = [0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0] + [1] * 5  # 5 not retrieved
    >>> df = pl.DataFrame(
    ...     {"relevance": ranked, "score": list(range(12, 0, -1)) + [None] * 5}
    ... )
    >>> df.select(ip=rm.interpolated_precision("relevance", by="score")).item().to_list()
    [0.5, 0.5, 0.4, 0.4, 0.4, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    bound = interpolated_precision_statistic.bind(
        "interpolated_precision", no_relevant, recall_levels=recall_levels
    )
    return evaluate_one(ranking, bound)


def interpolated_ap(
    relevance: IntoExpr,
    recall_levels: Sequence[float] | None = None,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Interpolated average precision: the mean of :func:`interpolated_precision`.

    With the default levels this is the 11-point interpolated average precision
    (trec_eval's ``11pt_avg``, up to its rounding of the levels).

    Parameters
    ----------
    relevance
    recall_levels
        Recall levels in [0, 1]; the default is the eleven standard levels.
    by, descending, threshold, ties
    no_relevant

    Examples
    --------
    >>> df = pl.DataFrame({"score": [3, 2, 1], "relevance": [1, 0, 1]})
    >>> df.select(rm.interpolated_ap("relevance", by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ relevance │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.848485  │
    └───────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    bound = interpolated_ap_statistic.bind(
        "interpolated_ap", no_relevant, recall_levels=recall_levels
    )
    return evaluate_one(ranking, bound)


def mean_curve(curve: IntoExpr, length: int = len(ELEVEN_POINTS)) -> pl.Expr:
    """
    The elementwise mean of a list column, such as per-query interpolated precision.

    Polars has no elementwise mean of list values, so averaging curves over
    queries needs this one helper: value ``i`` of the result is the mean of
    value ``i`` over the non-null lists. Use it in ``select`` on per-query
    results. Scalar metrics need no helper: ``pl.mean("ap")`` is MAP.

    Parameters
    ----------
    curve
        A list column whose values have ``length`` elements.
    length
        The number of elements per list (11 for the default recall levels).

    Examples
    --------
    The mean 11-point interpolated precision curve over two queries:

    >>> df = pl.DataFrame(
    ...     {"query": [1, 1, 2, 2], "score": [2, 1, 2, 1], "relevance": [1, 0, 0, 1]}
    ... )
    >>> per_query = df.group_by("query").agg(
    ...     ip=rm.interpolated_precision("relevance", by="score")
    ... )
    >>> per_query.select(rm.mean_curve("ip")).item().to_list()
    [0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75]
    """
    check_k(length, "length")
    column = pl.col(curve) if isinstance(curve, str) else curve
    means = [column.list.get(i, null_on_oob=True).mean() for i in range(length)]
    return pl.concat_list(means)
