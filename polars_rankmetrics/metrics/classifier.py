"""Classifier-style measures per query: ROC AUC, GAUC, threshold AP, fall-out, recall at precision.

These read a query's rows as a binary classifier's output: relevant rows are
the positive class, every other row (unjudged included) the negative class.
ROC AUC and scikit-learn's average precision are defined on score thresholds,
one per distinct score, so they do not depend on how tied rows are ordered and
read the score itself; fall-out and recall at fixed precision follow the
ranking, as torchmetrics' retrieval measures do.

References
----------
T. Fawcett, "An introduction to ROC analysis", Pattern Recognition Letters 27,
2006. scikit-learn's ``roc_auc_score`` and ``average_precision_score``;
torchmetrics' ``retrieval_fall_out`` and ``RetrievalRecallAtFixedPrecision``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import (
    IntoExpr,
    NoRelevant,
    Ties,
    as_expr,
    check_bool,
    check_by,
    check_choice,
    check_descending,
    check_k,
    check_number,
    choice,
    optional,
)
from polars_rankmetrics.engine import Ranked, Ranking, evaluate_one, statistic
from polars_rankmetrics.engine.ties import expected_hit

Denominator: TypeAlias = Literal["r", "retrieved"]
"""R of threshold AP: every relevant row, or the relevant retrieved rows (scikit-learn's)."""

GaucWeight: TypeAlias = Literal["pairs", "queries"]
"""How GAUC weights the queries: by their (positive, negative) pairs, or equally."""

RecallOutput: TypeAlias = Literal["recall", "k"]
"""What recall at fixed precision returns: the recall, or the cutoff that reaches it."""


def _fallback(no_relevant: NoRelevant) -> float | None:
    return None if no_relevant == "null" else 0.0


def _tie_group_hits(ranked: Ranked) -> tuple[pl.Expr, pl.Expr]:
    """Hits before each position's group of equal scores, and the hits in it."""
    hit = ranked.top_hit(None).cast(pl.Float64)
    score = ranked.score
    index = pl.int_range(pl.len())
    is_first = (index == 0) | score.ne_missing(score.shift(1))
    is_last = (index == pl.len() - 1) | score.ne_missing(score.shift(-1))
    before = pl.when(is_first).then(hit.cum_sum() - hit).forward_fill()
    through = pl.when(is_last).then(hit.cum_sum()).backward_fill()
    return before, through - before


@statistic(exact_average=True)
def roc_auc_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """ROC AUC of the retrieved rows: a tied (positive, negative) pair counts 1/2."""
    hits_before, hits_tied = _tie_group_hits(ranked)
    negative = ranked.retrieved & ~ranked.top_hit(None)
    wins = (hits_before + 0.5 * hits_tied).filter(negative).sum()
    positives = ranked.top_hit(None).sum().cast(pl.Float64)
    pairs = positives * negative.sum().cast(pl.Float64)
    return pl.when(pairs > 0.0).then(wins / pairs).otherwise(_fallback(no_relevant))


@statistic(exact_average=True, denominator=choice(Denominator))
def threshold_ap_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, denominator: Denominator = "r"
) -> pl.Expr:
    """AP with one threshold per distinct score: each group's hits at the group's end."""
    hits_before, hits_tied = _tie_group_hits(ranked)
    score = ranked.score
    index = pl.int_range(pl.len())
    is_last = (index == pl.len() - 1) | score.ne_missing(score.shift(-1))
    precision = (hits_before + hits_tied) / (index + 1).cast(pl.Float64)
    summed = (hits_tied * precision).filter(is_last & ranked.retrieved).sum()
    if denominator == "r":
        total = ranked.n_relevant.cast(pl.Float64)
    else:
        total = ranked.top_hit(None).sum().cast(pl.Float64)
    return pl.when(total > 0.0).then(summed / total).otherwise(_fallback(no_relevant))


@statistic(exact_average=True, k=optional(check_k))
def fall_out_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int | None = None) -> pl.Expr:
    """Non-relevant retrieved rows in the top k over every non-relevant row."""
    retrieved = ranked.retrieved if k is None else ranked.retrieved.head(k)
    misses = retrieved.sum().cast(pl.Float64) - expected_hit(ranked, k).sum()
    negatives = ranked.code.len().cast(pl.Float64) - ranked.n_relevant.cast(pl.Float64)
    return pl.when(negatives > 0.0).then(misses / negatives).otherwise(_fallback(no_relevant))


def check_precision(value: object, name: str) -> float:
    """Return a minimum precision: a number in [0, 1]."""
    return check_number(value, name, low=0.0, high=1.0)


def _largest_feasible_tail(hits: pl.Expr, min_precision: float, cutoff: pl.Expr) -> pl.Expr:
    """The largest ``k <= cutoff`` with ``hits / k >= min_precision`` (hits fixed), or 0."""
    if min_precision == 0.0:
        return cutoff
    guess = (hits / min_precision).floor()
    # The floor of a rounded quotient can be one off: keep the largest candidate that passes.
    candidates = [guess + 1.0, guess, guess - 1.0]
    chain: Any = pl
    for candidate in candidates:
        chain = chain.when((candidate >= 1.0) & (hits / candidate >= min_precision)).then(candidate)
    largest: pl.Expr = chain.otherwise(0.0)
    return pl.min_horizontal(largest, cutoff)


@statistic(
    min_precision=check_precision,
    max_k=optional(check_k),
    adaptive_k=check_bool,
    output=choice(RecallOutput),
)
def recall_at_precision_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    min_precision: float,
    max_k: int | None = None,
    adaptive_k: bool = False,
    output: RecallOutput = "recall",
) -> pl.Expr:
    """Recall at fixed precision (torchmetrics'): the largest k whose precision passes."""
    retrieved = ranked.retrieved.sum().cast(pl.Float64)
    cutoff = retrieved if max_k is None else pl.lit(float(max_k))
    found = ranked.top_hit(None).cast(pl.Float64).cum_sum()
    rank = pl.int_range(1, pl.len() + 1).cast(pl.Float64)
    inside = ranked.retrieved & (rank <= cutoff)
    best = pl.when(inside & (found / rank >= min_precision)).then(rank).max().fill_null(0.0)
    total_hits = ranked.top_hit(None).sum().cast(pl.Float64)
    if adaptive_k:
        # Past the list the point stays that of the last rank; the largest k then wins.
        last = pl.when(retrieved > 0.0).then(total_hits / retrieved).otherwise(-1.0)
        passes = (cutoff > retrieved) & (last >= min_precision)
        tail = pl.when(passes).then(cutoff).otherwise(0.0)
    else:
        # Past the list precision is hits / k, k counting the missing ranks.
        largest = _largest_feasible_tail(total_hits, min_precision, cutoff)
        tail = pl.when(largest > retrieved).then(largest).otherwise(0.0)
    best = pl.max_horizontal(best, tail)
    hits_at_best = (
        pl.when(best > retrieved)
        .then(total_hits)
        .otherwise(found.get((best - 1.0).clip(lower_bound=0.0).cast(pl.Int64), null_on_oob=True))
    )
    recall = (hits_at_best / ranked.n_relevant.cast(pl.Float64)).fill_null(0.0)
    failed = (best == 0.0) | (recall == 0.0)
    value = (
        pl.when(failed)
        .then(0.0 if output == "recall" else cutoff)
        .otherwise(recall if output == "recall" else best)
    )
    return ranked.if_relevant(value, no_relevant)


# ---------------------------------------------------------------- functions


def roc_auc(
    relevance: IntoExpr,
    *,
    by: IntoExpr | Sequence[IntoExpr],
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
) -> pl.Expr:
    """
    ROC AUC of one query's scores: how often a relevant row outscores a non-relevant one.

    ``AUC = (pairs (p, n) with s_p > s_n + 1/2 · pairs with s_p = s_n) / (P · N)``
    over the retrieved rows, with P relevant and N non-relevant (unjudged rows
    included) ones. This is scikit-learn's ``roc_auc_score`` (the trapezoidal
    area under the ROC curve, one point per distinct score) and the
    Mann-Whitney statistic. A tied pair counts 1/2, which is the expectation
    over the orders of the tie, so there is no ``ties`` option. Rows with a
    null or NaN score take no part (scikit-learn sees only scored rows). A
    query with only one class among its retrieved rows has no AUC: null, or 0
    with ``no_relevant='zero'`` (scikit-learn warns and gives NaN).

    Averaged over queries weighted by their pairs it is GAUC: see :func:`gauc`.

    Parameters
    ----------
    relevance
    by
        The score; later entries of a list are ignored (a threshold is a score).
    descending
        Whether a higher score means more relevant.
    threshold
        Labels above this value are the positive class.
    no_relevant : {'null', 'zero'}
        The value for a query without both classes among its retrieved rows.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [0.9, 0.5, 0.5, 0.5, 0.1], "relevance": [1, 0, 1, 1, 0]})
    >>> df.select(rm.roc_auc("relevance", by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ relevance │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.833333  │
    └───────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold)
    return evaluate_one(ranking, roc_auc_statistic.bind("roc_auc", no_relevant))


def threshold_average_precision(
    relevance: IntoExpr,
    *,
    by: IntoExpr | Sequence[IntoExpr],
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    denominator: Denominator = "r",
    no_relevant: NoRelevant = "null",
) -> pl.Expr:
    """
    Average precision with one threshold per distinct score, as scikit-learn computes it.

    ``AP = sum over groups G of equal scores (best first) of (hits in G / R) · tp_G / pp_G``,
    with ``tp_G`` and ``pp_G`` the relevant and all rows scored at or above G's
    score: every relevant row of a tie group gets the precision at the end of
    the group. This is the area under the step precision-recall curve of
    :func:`pr_curve`, and scikit-learn's ``average_precision_score``. It equals
    :func:`average_precision` when scores are distinct, and under ties none of
    that function's ``ties`` modes: with a relevant row, then three tied rows
    of which two are relevant, then a non-relevant row and one relevant row not
    retrieved (R = 4), it is ``(1/4)(1/1) + (2/4)(3/4) = 0.625`` against 0.604
    (``'stable'``), 0.681 (``'average'``) and 0.75 (``'optimistic'``).

    ``denominator='r'`` (default) divides by R, every relevant row including
    those not retrieved (null or NaN score), as the rank-based measures do;
    ``'retrieved'`` by the relevant retrieved rows only, which is what
    scikit-learn gives when passed the scored rows. A query with R = 0 has no
    AP: null, or 0 with ``no_relevant='zero'`` (scikit-learn warns, gives 0).

    Parameters
    ----------
    relevance
    by
        The score; later entries of a list are ignored (a threshold is a score).
    descending
        Whether a higher score means more relevant.
    threshold
        Labels above this value are relevant.
    denominator : {'r', 'retrieved'}
        Every relevant row, or the relevant retrieved rows (scikit-learn).
    no_relevant : {'null', 'zero'}
        The value for a query whose denominator is 0.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {"score": [1.0, 0.5, 0.5, 0.5, 0.1, None], "relevance": [1, 0, 1, 1, 0, 1]}
    ... )
    >>> df.select(
    ...     r=rm.threshold_average_precision("relevance", by="score"),
    ...     sklearn=rm.threshold_average_precision(
    ...         "relevance", by="score", denominator="retrieved"
    ...     ),
    ... )
    shape: (1, 2)
    ┌───────┬──────────┐
    │ r     ┆ sklearn  │
    │ ---   ┆ ---      │
    │ f64   ┆ f64      │
    ╞═══════╪══════════╡
    │ 0.625 ┆ 0.833333 │
    └───────┴──────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold)
    bound = threshold_ap_statistic.bind(
        "threshold_average_precision", no_relevant, denominator=denominator
    )
    return evaluate_one(ranking, bound)


def fall_out(
    relevance: IntoExpr,
    *,
    k: int | None = None,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Fall-out at k: the fraction of the non-relevant rows that are in the top ``k``.

    ``FallOut@k = (non-relevant retrieved rows in the top k) / (non-relevant rows)``,
    where the denominator counts every row that is not relevant, unjudged rows
    and rows with a null score (judged, not retrieved) included. Without ``k``
    every retrieved row counts. This is torchmetrics' ``retrieval_fall_out``
    (``top_k``); lower is better. A query whose rows are all relevant has no
    fall-out: null, or 0 with ``no_relevant='zero'`` (torchmetrics' function
    gives 0, its ``RetrievalFallOut`` class 1 by default).

    Parameters
    ----------
    relevance
    k
        An optional cutoff, a positive int.
    by, descending, threshold, ties
        As for :func:`~polars_rankmetrics.precision_at_k`: the score and tie-breakers,
        their direction, the relevance threshold and the tie policy
        (``'average'`` is exact: the expected count of non-relevant rows in the top k).
    no_relevant : {'null', 'zero'}
        The value for a query without a non-relevant row.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [4, 3, 2, 1, None], "relevance": [1, 0, 0, 1, 0]})
    >>> df.select(rm.fall_out("relevance", k=2, by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ relevance │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.333333  │
    └───────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    return evaluate_one(ranking, fall_out_statistic.bind("fall_out", no_relevant, k=k))


def recall_at_fixed_precision(
    relevance: IntoExpr,
    min_precision: float,
    *,
    max_k: int | None = None,
    adaptive_k: bool = False,
    output: RecallOutput = "recall",
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    The highest recall at a cutoff whose precision is at least ``min_precision``.

    Over the cutoffs ``k = 1 .. max_k`` (default: the number of retrieved
    rows), with ``P@k = hits@k / k`` (``k`` counts missing ranks past the end of
    the list, unless ``adaptive_k``, which stops k there) and
    ``R@k = hits@k / R``: the largest ``R@k`` among the ``k`` with
    ``P@k >= min_precision``, and (``output='k'``) the largest such ``k``. When
    no cutoff qualifies or the recall is 0, the recall is 0 and the cutoff
    ``max_k``. This is torchmetrics' ``RetrievalRecallAtFixedPrecision`` for one
    query. R counts every relevant row, rows with a null score (not retrieved)
    included; a query with none gives null, or 0 with ``no_relevant='zero'``.
    (torchmetrics averages the precision and recall curves of several queries
    before taking the maximum; a mean of these per-query values differs.)

    Parameters
    ----------
    relevance
    min_precision
        The precision a cutoff must reach, in [0, 1].
    max_k
        The largest cutoff, a positive int; default the number of retrieved rows.
    adaptive_k
        Whether a cutoff past the end of the list counts as the list's length.
    output : {'recall', 'k'}
        The recall, or the cutoff that reaches it (as a float).
    by, descending, threshold
        As for :func:`~polars_rankmetrics.precision_at_k`.
    no_relevant
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`~polars_rankmetrics.precision_at_k`; ``'average'`` is
        refused (the maximum of a ratio over tie orders has no closed form here).

    Examples
    --------
    >>> df = pl.DataFrame({"score": [4, 3, 2, 1], "relevance": [1, 0, 1, 0]})
    >>> df.select(
    ...     recall=rm.recall_at_fixed_precision("relevance", 0.6, by="score"),
    ...     k=rm.recall_at_fixed_precision("relevance", 0.6, by="score", output="k"),
    ... )
    shape: (1, 2)
    ┌────────┬─────┐
    │ recall ┆ k   │
    │ ---    ┆ --- │
    │ f64    ┆ f64 │
    ╞════════╪═════╡
    │ 1.0    ┆ 3.0 │
    └────────┴─────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    bound = recall_at_precision_statistic.bind(
        "recall_at_fixed_precision",
        no_relevant,
        min_precision=min_precision,
        max_k=max_k,
        adaptive_k=adaptive_k,
        output=output,
    )
    return evaluate_one(ranking, bound)


def gauc(
    relevance: IntoExpr,
    *,
    query: IntoExpr,
    by: IntoExpr | Sequence[IntoExpr],
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    weight: GaucWeight = "pairs",
) -> pl.Expr:
    """
    Grouped AUC: the per-query ROC AUCs averaged over queries, weighted by their pairs.

    ``GAUC = sum_q w_q AUC_q / sum_q w_q`` over the queries with both classes
    among their retrieved rows, with ``w_q = P_q · N_q`` (``weight='pairs'``:
    the AUC of all within-query pairs pooled) or ``w_q = 1``
    (``weight='queries'``: the plain mean of :func:`roc_auc`). Each query's AUC
    is :func:`roc_auc`'s: a tied pair counts 1/2 and rows with a null or NaN
    score take no part.

    Unlike the per-query measures, GAUC is one number over many queries: use
    it in ``select`` over the rows of all queries (or in ``group_by`` over a
    column above the query, such as the model), with ``query`` naming the
    query column. It reads each query's ranks with a window (``over``), so it
    cannot itself sit inside an ``over``.

    Parameters
    ----------
    relevance
        Relevance labels; labels above ``threshold`` are the positive class.
    query
        The query column (or expression) that groups the rows.
    by
        The score; later entries of a list are ignored.
    descending
        Whether a higher score means more relevant.
    threshold
        Labels above this value are the positive class.
    weight : {'pairs', 'queries'}
        How the queries are weighted.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {
    ...         "query": [1, 1, 1, 2, 2, 2, 2],
    ...         "score": [0.9, 0.4, 0.5, 0.8, 0.7, 0.7, 0.1],
    ...         "relevance": [1, 0, 1, 0, 1, 0, 0],
    ...     }
    ... )
    >>> df.select(
    ...     pairs=rm.gauc("relevance", query="query", by="score"),
    ...     queries=rm.gauc("relevance", query="query", by="score", weight="queries"),
    ... )
    shape: (1, 2)
    ┌───────┬─────────┐
    │ pairs ┆ queries │
    │ ---   ┆ ---     │
    │ f64   ┆ f64     │
    ╞═══════╪═════════╡
    │ 0.7   ┆ 0.75    │
    └───────┴─────────┘
    """
    scores = check_by(by)
    if not scores:
        msg = "`by` must name the score column"
        raise ValueError(msg)
    direction = check_descending(descending, len(scores))[0]
    check_choice(weight, "weight", GaucWeight)
    group = as_expr(query, "query")
    # The labels and scores read as every metric reads them (NaN labels unjudged).
    ranking = Ranking.build(relevance, scores[0], direction, threshold)
    score = ranking.score
    assert score is not None
    retrieved = score.is_not_null()
    relevant = ranking.threshold.admits(ranking.label)
    positive = (relevant & retrieved).cast(pl.Float64)
    negative = (~relevant & retrieved).cast(pl.Float64)
    # The average rank among the query's retrieved rows, worst first: for a
    # positive row, its rank minus its rank among positives counts the
    # negatives below it, a tied one as 1/2 (Mann-Whitney).
    rank = score.rank("average", descending=not direction).over(group)
    n_positive = positive.sum().over(group)
    n_negative = negative.sum().over(group)
    wins = positive * (rank - (n_positive + 1.0) / 2.0)
    if weight == "pairs":
        numerator = wins.sum()
        denominator = (positive * n_negative).sum()
    else:
        both = (n_negative > 0.0) & (n_positive > 0.0)
        numerator = pl.when(both).then(wins / (n_positive * n_negative)).otherwise(0.0).sum()
        denominator = pl.when(both).then(positive / n_positive).otherwise(0.0).sum()
    return pl.when(denominator > 0.0).then(numerator / denominator).alias("gauc")
