"""Average precision: AP (the area under the PR curve) and AP@k."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import (
    IntoExpr,
    NoRelevant,
    Ties,
    check_k,
    choice,
    optional,
)
from polars_rankmetrics.engine import Ranked, Ranking, evaluate_one, statistic
from polars_rankmetrics.engine.ranked import in_order
from polars_rankmetrics.engine.ties import (
    expected_ap_over_hits,
    expected_hit,
    expected_precision_terms,
)

Denominator: TypeAlias = Literal["min_k_r", "r", "hits"]
"""What AP@k divides by: ``min(k, R)``, ``R``, or the hits in the top k."""


@statistic(exact_average=True, top_k="k", k=optional(check_k), denominator=choice(Denominator))
def ap_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int | None = None, denominator: Denominator = "r"
) -> pl.Expr:
    """AP over a ranked list, or AP@k with one of three denominators.

    The precision terms are added in rank order, then divided (trec_eval's ``map``).
    """
    if k is None:
        value = ranked.aggregate(in_order(expected_precision_terms(ranked))) / ranked.n_relevant
        return ranked.if_relevant(value, no_relevant)
    total = ranked.aggregate(in_order(expected_precision_terms(ranked).head(k)))
    if denominator == "hits" and ranked.ties == "average":
        # E[sum / hits] is not E[sum] / E[hits]: see expected_ap_over_hits.
        value = ranked.aggregate(expected_ap_over_hits(ranked, k))
    elif denominator == "min_k_r":
        value = total / pl.min_horizontal(ranked.n_relevant, pl.lit(k))
    elif denominator == "r":
        value = total / ranked.n_relevant
    else:
        hits = ranked.aggregate(expected_hit(ranked, k).sum())
        value = pl.when(hits > 0).then(total / hits).otherwise(0.0)
    return ranked.if_relevant(value, no_relevant)


@statistic()
def yaap_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """trec_eval's yaap: ``log((1 + s) / (1 + R - s))``, where s is AP's sum of precision terms.

    Defined for every query (0 when nothing relevant is retrieved and R = 0);
    negative when the relevant rows rank low.
    """
    total = ranked.aggregate(in_order(ranked.precision_terms))
    return ((1.0 + total) / (1.0 + ranked.n_relevant - total)).log()


def average_precision(
    relevance: IntoExpr,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Average precision: the mean of P@i over the ranks i of the relevant rows.

    ``AP = sum(P@i · rel(i) for every retrieved rank i) / R``, where R counts
    every relevant row of the group, including rows with a null score (judged,
    not retrieved), which therefore contribute a precision of 0. This is the
    non-interpolated AP of trec_eval (``map``). With distinct scores it equals
    the area under the step PR curve, ``sum(P@i · Δrecall(i))``; under ties
    that area (scikit-learn's ``average_precision_score``, one threshold per
    distinct score) is :func:`threshold_average_precision`, which no ``ties``
    mode reproduces. Its mean over queries is MAP.

    Parameters
    ----------
    relevance
    by, descending, threshold, ties
    no_relevant : {'null', 'zero'}
        The value for a query with no relevant row, where AP is undefined: null
        (skipped by ``mean``), or 0 as trec_eval, ranx and torchmetrics do.

    References
    ----------
    Manning, Raghavan and Schütze, *Introduction to Information Retrieval*, 8.4.

    Examples
    --------
    Relevant rows at ranks 1, 2, 5 and 6: AP = (1/1 + 2/2 + 3/5 + 4/6) / 4.

    >>> df = pl.DataFrame(
    ...     {
    ...         "score": [0.95, 0.85, 0.73, 0.62, 0.48, 0.39, 0.12, 0.04],
    ...         "relevance": [1, 1, 0, 0, 1, 1, 0, 0],
    ...     }
    ... )
    >>> df.select(ap=rm.average_precision("relevance", by="score"))
    shape: (1, 1)
    ┌──────────┐
    │ ap       │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.816667 │
    └──────────┘

    Tied scores: two of the three rows at 0.5 are relevant, and one relevant
    row was not retrieved. ``'average'`` is the mean over the three orderings.

    >>> tied = pl.DataFrame(
    ...     {"score": [1.0, 0.5, 0.5, 0.5, 0.1, None], "relevance": [1, 0, 1, 1, 0, 1]}
    ... )
    >>> tied.select(
    ...     rm.average_precision("relevance", by="score", ties=mode).alias(mode)
    ...     for mode in ["stable", "optimistic", "pessimistic", "average"]
    ... )
    shape: (1, 4)
    ┌──────────┬────────────┬─────────────┬──────────┐
    │ stable   ┆ optimistic ┆ pessimistic ┆ average  │
    │ ---      ┆ ---        ┆ ---         ┆ ---      │
    │ f64      ┆ f64        ┆ f64         ┆ f64      │
    ╞══════════╪════════════╪═════════════╪══════════╡
    │ 0.604167 ┆ 0.75       ┆ 0.604167    ┆ 0.680556 │
    └──────────┴────────────┴─────────────┴──────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    return evaluate_one(ranking, ap_statistic.bind("average_precision", no_relevant))


def ap_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    denominator: Denominator = "min_k_r",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Average precision at k: AP restricted to the top ``k`` ranks.

    ``AP@k = sum(P@i · rel(i) for i <= k) / D``. Tools disagree on ``D``:

    - ``'min_k_r'`` (default): ``min(k, R)``, so a perfect top k scores 1. This
      is the AP@k of many textbooks, Spark's ``meanAveragePrecisionAt`` and
      Microsoft Recommenders' ``map_at_k``.
    - ``'r'``: ``R``, all relevant rows. This is trec_eval's ``map_cut_k``, ranx's
      ``map@k`` and ir_measures' ``AP@k``.
    - ``'hits'``: the number of relevant rows in the top k (0 when there are none).
      This is torchmetrics' ``retrieval_average_precision(top_k=k)``.

    With R = 4 and relevant rows at ranks 1 and 3, AP@3 has the sum
    1/1 + 2/3 = 1.667 and is 0.556, 0.417 or 0.833 with the three denominators.

    Parameters
    ----------
    relevance
    k
    by, descending, threshold, ties
    no_relevant
    denominator : {'min_k_r', 'r', 'hits'}
        What the sum is divided by, as above.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {"score": [6, 5, 4, 3, 2, 1], "relevance": [1, 0, 1, 1, 0, 1]}
    ... )
    >>> df.select(
    ...     min_k_r=rm.ap_at_k("relevance", 3, by="score"),
    ...     r=rm.ap_at_k("relevance", 3, by="score", denominator="r"),
    ...     hits=rm.ap_at_k("relevance", 3, by="score", denominator="hits"),
    ... )
    shape: (1, 3)
    ┌──────────┬──────────┬──────────┐
    │ min_k_r  ┆ r        ┆ hits     │
    │ ---      ┆ ---      ┆ ---      │
    │ f64      ┆ f64      ┆ f64      │
    ╞══════════╪══════════╪══════════╡
    │ 0.555556 ┆ 0.416667 ┆ 0.833333 │
    └──────────┴──────────┴──────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties)
    bound = ap_statistic.bind("ap_at_k", no_relevant, k=check_k(k), denominator=denominator)
    return evaluate_one(ranking, bound)
