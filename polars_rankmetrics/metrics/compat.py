"""Compatibility: rank-biased overlap between a ranking and an ideal ranking.

References
----------
C. L. A. Clarke, A. Vtyurina and M. D. Smucker, "Assessing top-k preferences",
ACM TOIS 39(3), 2021. W. Webber, A. Moffat and J. Zobel, "A similarity measure
for indefinite rankings", ACM TOIS 28(4), 2010 (RBO). ir_measures' ``Compat``.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankmetrics._validate import (
    IntoExpr,
    NoRelevant,
    Ties,
    as_expr,
    check_bool,
    check_number,
)
from polars_rankmetrics.engine import Ranked, Ranking, evaluate_one, statistic
from polars_rankmetrics.engine.ranked import JUDGEMENT_ORDER, SCORE


def check_rbo_persistence(value: object, name: str) -> float:
    """Return an RBO persistence: a number in (0, 1)."""
    return check_number(value, name, low=0.0, high=1.0, low_open=True, high_open=True)


def _rbo_weights(p: float, depth: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """``p**(d-1) / d`` for the depths ``d = 1 ..`` of the list (0 past ``depth``), and ``d``."""
    d = pl.int_range(1, pl.len() + 1).cast(pl.Float64)
    weight = pl.when(d <= depth).then(pl.lit(p).pow(d - 1.0)).otherwise(0.0)
    return weight, d


@statistic(p=check_rbo_persistence, normalize=check_bool)
def compat_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, p: float = 0.95, normalize: bool = True
) -> pl.Expr:
    """RBO of the ranking with the ideal ranking, truncated at max(retrieved, relevant).

    A row in both lists enters the overlap at depth ``m = max(its rank, its
    ideal rank)`` and stays in it, so it adds ``sum_{d=m..D} p**(d-1) / d``.
    """
    relevant = ranked.relevant
    n_relevant = relevant.sum().cast(pl.Float64)
    depth = pl.max_horizontal(ranked.retrieved.sum().cast(pl.Float64), n_relevant)
    weight, d = _rbo_weights(p, depth)
    # The ideal ranking, as ir_measures builds it: relevant rows by label, equal
    # labels by score (an unretrieved row scores 0, so a negative score comes
    # after it), then in qrels order where it is given, else in ranking order
    # (retrieved rows first, in rank order; the list holds them that way).
    position = pl.int_range(1, pl.len() + 1).cast(pl.Float64)
    scored = SCORE in ranked.fields
    score = ranked.score.cast(pl.Float64).fill_nan(None).fill_null(0.0) if scored else pl.lit(0.0)
    order = ranked.field(JUDGEMENT_ORDER) if JUDGEMENT_ORDER in ranked.fields else position
    ideal_key = pl.when(relevant).then(-ranked.label).otherwise(float("inf"))
    ideal_order = position.sort_by([ideal_key, -score, order])
    ideal_rank = ideal_order.arg_sort() + 1
    entry = pl.max_horizontal(position, ideal_rank.cast(pl.Float64))
    tail = (weight / d).reverse().cum_sum().reverse()
    both = ranked.retrieved & relevant
    overlap = tail.gather((entry - 1.0).cast(pl.Int64)).filter(both).sum()
    norm = weight.sum()
    value = overlap / norm
    if normalize:
        best = (weight * pl.min_horizontal(d, n_relevant) / d).sum() / norm
        value = value / best
    return ranked.if_relevant(value, no_relevant)


def compatibility(
    relevance: IntoExpr,
    *,
    p: float = 0.95,
    normalize: bool = True,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
    judgement_order: IntoExpr | None = None,
) -> pl.Expr:
    """
    Compatibility: the rank-biased overlap of the ranking with an ideal ranking.

    The ideal ranking holds every relevant row (retrieved or not) by label,
    highest first; rows of equal label by score, highest first (an unretrieved
    row scores 0, as in ir_measures, so a retrieved row of negative score
    comes after it); rows of equal label and score in ``judgement_order``
    (ir_measures: the qrels order) or else in the ranking's order, unretrieved
    rows after retrieved ones (Clarke et al.: the ideal most compatible with
    the ranking). With ``D = max(retrieved rows, relevant rows)``,
    ``RBO = sum_{d=1..D} p**(d-1) · |top_d(ranking) ∩ top_d(ideal)| / d``
    divided by ``sum_{d=1..D} p**(d-1)`` (a finite ranking's weights, not
    extrapolated), and with ``normalize`` (default) divided again by the RBO of
    the ideal ranking with itself, so that the ideal ranking scores 1. This is
    ir_measures' ``Compat(p=0.95)``, which orders equal labels of its ideal by
    run score (0 for an unretrieved document) and then qrels order: the same
    ideal, given the qrels order (``evaluate()`` gives it). Unjudged and
    non-relevant rows are never in the ideal.
    A query without a relevant row has no ideal: null, or 0 with
    ``no_relevant='zero'`` (ir_measures: 0).

    Parameters
    ----------
    relevance
    p
        The persistence of RBO, in (0, 1): the weight of depth d is ``p**(d-1)``.
    normalize
        Whether to divide by the ideal ranking's own RBO.
    by, descending, threshold
        As for :func:`~polars_rankmetrics.precision_at_k`. ir_measures breaks
        ties in the run by document id, ascending:
        ``by=["score", "doc"], descending=[True, False]``.
    no_relevant
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`~polars_rankmetrics.precision_at_k`; ``'average'`` is refused.
    judgement_order
        A column or expression that orders the relevant rows of equal label
        and score in the ideal (ascending), e.g. the row number of each
        judgement in the qrels; None: the ranking's order.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [3, 2, 1], "relevance": [1, 2, 0]})
    >>> df.select(rm.compatibility("relevance", by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ relevance │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.608099  │
    └───────────┘
    """
    order = None if judgement_order is None else as_expr(judgement_order, "judgement_order")
    carried = {JUDGEMENT_ORDER: order}
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties, carried=carried)
    bound = compat_statistic.bind("compatibility", no_relevant, p=p, normalize=normalize)
    return evaluate_one(ranking, bound)
