"""Discounted cumulative gain: DCG@k and its normalised form nDCG@k."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankmetrics._ranking import (
    Gain,
    IntoExpr,
    NoRelevant,
    Ranked,
    Ranking,
    Ties,
    check_choice,
    check_k,
)
from polars_rankmetrics._shared import aggregate_top
from polars_rankmetrics._ties import tie_mean


def dcg_statistic(ranked: Ranked, k: int, gain: Gain) -> pl.Expr:
    """DCG@k over a ranked list; unretrieved rows gain nothing.

    For tied scores the expected gain at a position is its tie group's mean gain.
    """
    if ranked.ties == "average":
        gains = pl.when(ranked.retrieved).then(ranked.gain(ranked.label, gain)).otherwise(0.0)
        gains = tie_mean(ranked, gains).head(k)
    else:
        gains = ranked.top_retrieved_gain(k, gain)
    return ranked.aggregate((gains * ranked.top_discount(k)).sum())


def ideal_dcg_statistic(ranked: Ranked, k: int, gain: Gain) -> pl.Expr:
    """DCG@k of the best ordering of every judged row, retrieved or not."""
    # The gain is increasing in the label, so the ideal order of gains is that of labels.
    ideal = ranked.gain(ranked.ideal_labels, gain).head(k)
    return ranked.aggregate((ideal * ranked.top_discount(k)).sum())


def ndcg_statistic(ranked: Ranked, k: int, gain: Gain, no_relevant: NoRelevant) -> pl.Expr:
    """nDCG@k over a ranked list: null (or 0) when the ideal DCG is 0."""
    ideal = ideal_dcg_statistic(ranked, k, gain)
    fallback = None if no_relevant == "null" else 0.0
    return pl.when(ideal > 0).then(dcg_statistic(ranked, k, gain) / ideal).otherwise(fallback)


def dcg_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    gain: Gain = "linear",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Discounted cumulative gain at k.

    ``DCG@k = sum(gain(label_i) / log2(i + 1) for the retrieved ranks i <= k)``.
    Null labels (unjudged) and negative labels gain 0. With ``gain='linear'`` the
    gain is the label itself, as in trec_eval, scikit-learn's ``dcg_score`` and
    ranx; ``gain='exponential'`` uses ``2**label - 1`` (Burges et al.), which
    equals the linear gain for binary labels.

    Parameters
    ----------
    relevance
        Graded relevance labels: bool, int or float.
    k
        The cutoff, a positive int.
    by
        The score and tie-breakers; see :func:`polars_rankmetrics.precision_at_k`.
    descending
        Sort direction; see :func:`polars_rankmetrics.precision_at_k`.
    gain : {'linear', 'exponential'}
        How a label becomes a gain.
    ties : {'stable', 'optimistic', 'pessimistic', 'average'}
        How rows with equal scores are ordered; see
        :func:`polars_rankmetrics.precision_at_k`.

    References
    ----------
    Järvelin and Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankmetrics as rm
    >>> df = pl.DataFrame({"score": [3, 2, 1], "relevance": [3, 0, 2]})
    >>> df.select(
    ...     linear=rm.dcg_at_k("relevance", 3, by="score"),
    ...     exponential=rm.dcg_at_k("relevance", 3, by="score", gain="exponential"),
    ... )
    shape: (1, 2)
    ┌────────┬─────────────┐
    │ linear ┆ exponential │
    │ ---    ┆ ---         │
    │ f64    ┆ f64         │
    ╞════════╪═════════════╡
    │ 4.0    ┆ 8.5         │
    └────────┴─────────────┘
    """
    check_k(k)
    check_choice(gain, "gain", Gain)
    ranking = Ranking.build(relevance, by, descending, threshold=0, ties=ties)
    return aggregate_top(ranking, k, lambda ranked: dcg_statistic(ranked, k, gain))


def ndcg_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    gain: Gain = "linear",
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Normalised discounted cumulative gain at k: DCG@k over the ideal DCG@k.

    The ideal ranking orders every judged row of the group by its gain, whether
    it was retrieved or not (a row with a null score counts in the ideal but
    not in the DCG), as trec_eval's ``ndcg_cut_k`` does. A query whose ideal DCG
    is 0 (no row with a positive label) has no defined nDCG; see
    ``no_relevant``.

    Parameters
    ----------
    relevance
        Graded relevance labels: bool, int or float.
    k
        The cutoff, a positive int.
    by
        The score and tie-breakers; see :func:`polars_rankmetrics.precision_at_k`.
    descending
        Sort direction; see :func:`polars_rankmetrics.precision_at_k`.
    gain : {'linear', 'exponential'}
        How a label becomes a gain; see :func:`dcg_at_k`.
    no_relevant : {'null', 'zero'}
        The value for a query whose ideal DCG is 0.
    ties : {'stable', 'optimistic', 'pessimistic', 'average'}
        How rows with equal scores are ordered; see
        :func:`polars_rankmetrics.precision_at_k`.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankmetrics as rm
    >>> df = pl.DataFrame({"score": [3, 2, 1, None], "relevance": [3, 0, 2, 3]})
    >>> df.select(rm.ndcg_at_k("relevance", 3, by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ relevance │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.678796  │
    └───────────┘
    """
    check_k(k)
    check_choice(gain, "gain", Gain)
    check_choice(no_relevant, "no_relevant", NoRelevant)
    ranking = Ranking.build(relevance, by, descending, threshold=0, ties=ties)
    return aggregate_top(ranking, k, lambda ranked: ndcg_statistic(ranked, k, gain, no_relevant))
