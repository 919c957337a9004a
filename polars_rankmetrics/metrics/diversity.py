"""Intent-aware diversity: alpha-nDCG, ERR-IA, NRBP, P-IA, subtopic recall, AP-IA (ndeval's).

The data model: one row per ranked document, as for every other measure, and
in place of a label the list of subtopics (intents) the document is relevant
to, e.g. ``["1", "3"]``: the binarised subtopic judgements of TREC diversity
qrels (``topic subtopic docno relevance``, relevant when relevance >= 1). A
null list is an unjudged document; an empty list a judged one relevant to no
subtopic. :func:`polars_rankmetrics.subtopic_lists` builds the column from such
qrels. The subtopics of a query are those listed by any of its rows, retrieved
or not (a row with a null or NaN score is judged, not retrieved, and counts in
the ideal ranking and in each subtopic's relevant documents).

Intents are equally likely (``w_j = 1/S`` over the query's S subtopics) unless
``intent_weights`` gives a parallel list of their probabilities (normalised over
the query's subtopics; every row listing a subtopic must give it the same one).
A document at rank r gains ``sum over its subtopics j of w_j (1 - alpha)**c_j``,
``c_j`` the documents above it that cover j: each repeat of an intent is worth
``1 - alpha`` of the one before (novelty).

Each function is the number ndeval prints (and pyndeval, ir_measures) for a
query, at any cutoff (ndeval stops at depth 20). Where ndeval breaks ties by
document id, the ``docs`` column gives it the ids (see the functions).

References
----------
C. L. A. Clarke et al., "Novelty and diversity in information retrieval
evaluation", SIGIR 2008; O. Chapelle et al., "Expected reciprocal rank for
graded relevance", CIKM 2009; C. L. A. Clarke, M. Kolla and O. Vechtomova, "An
effectiveness measure for ambiguous and underspecified queries", ICTIR 2009;
R. Agrawal, S. Gollapudi, A. Halverson and S. Ieong, "Diversifying search
results", WSDM 2009; C. Zhai, W. Cohen and J. Lafferty, "Beyond independent
relevance", SIGIR 2003.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

import polars_rankmetrics.metrics.diversity_statistics as stats
from polars_rankmetrics._validate import IntoExpr, NoRelevant, Ties
from polars_rankmetrics.metrics.diversity_ideal import Ideal
from polars_rankmetrics.metrics.diversity_statistics import evaluate_on_subtopics


def alpha_ndcg_at_k(
    subtopics: IntoExpr,
    k: int,
    *,
    alpha: float = 0.5,
    ideal: Ideal = "greedy",
    intent_weights: IntoExpr | None = None,
    docs: IntoExpr | None = None,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    alpha-nDCG@k: novelty-discounted gain of the top k over that of an ideal ranking.

    ``alpha-DCG@k = sum_{r<=k} gain_r / log2(r + 1)`` with the novelty gain
    ``gain_r = sum over the subtopics j of the document at rank r of
    w_j (1 - alpha)**c_j`` (``c_j``: documents above it covering j; ``w_j``: 1/S
    or ``intent_weights``), and alpha-nDCG@k divides it by the alpha-DCG@k of
    the ideal ranking of every judged row, retrieved or not (Clarke et al.,
    SIGIR 2008). See :mod:`polars_rankmetrics.metrics.diversity` for the data model.

    The ideal: ranking documents for the largest alpha-DCG is NP-hard.
    ``ideal='greedy'`` (default) is ndeval's: each rank takes the document of
    largest gain given those above, ties to the largest document id (``docs``;
    without it, to the larger subtopic list, which does not depend on the
    run); it is what TREC, ndeval, pyndeval and ir_measures report, costs one
    pass per rank, and can fall short of the best ranking, so that a ranking
    may score above 1. ``ideal='exact'`` searches for the best ranking (branch
    and bound, exact), giving values of at most 1; it refuses a query whose
    search grows too large. A query with no subtopic has no alpha-nDCG: null,
    or 0 with ``no_relevant='zero'`` (ndeval: 0).

    Parameters
    ----------
    subtopics
        A list column: the subtopics each row's document is relevant to.
    k
        The cutoff, a positive int (ndeval: 5, 10, 20; pyndeval: up to 20).
    alpha
        The redundancy penalty, in [0, 1] (ndeval's 0.5).
    ideal : {'greedy', 'exact'}
        ndeval's greedy ideal ranking, or the best ranking.
    intent_weights
        A list column parallel to ``subtopics``: each subtopic's probability.
    docs
        Document ids, for ndeval's tie-break in the greedy ideal.
    by, descending
        As for :func:`~polars_rankmetrics.precision_at_k`. pyndeval (and so
        ir_measures) breaks tied scores by document id, ascending:
        ``by=["score", "doc"], descending=[True, False]``.
    no_relevant : {'null', 'zero'}
        The value for a query with no subtopic.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`~polars_rankmetrics.precision_at_k`, optimistic putting
        rows with more subtopics first; ``'average'`` is refused.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {
    ...         "score": [4.0, 3.0, 2.0, 1.0, None],
    ...         "subtopics": [["1"], ["1"], ["2"], [], ["1", "3"]],
    ...     }
    ... )
    >>> df.select(rm.alpha_ndcg_at_k("subtopics", 3, by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ subtopics │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.630166  │
    └───────────┘
    """
    bound = stats.alpha_ndcg_statistic.bind(
        "alpha_ndcg_at_k", no_relevant, k=k, alpha=alpha, ideal=ideal
    )
    return evaluate_on_subtopics(bound, subtopics, by, descending, ties, intent_weights, docs)


def alpha_dcg_at_k(
    subtopics: IntoExpr,
    k: int,
    *,
    alpha: float = 0.5,
    intent_weights: IntoExpr | None = None,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    alpha-DCG@k, as ndeval reports it: over the alpha-DCG@k of documents that cover every intent.

    ``sum_{r<=k} gain_r / log2(r + 1)`` (the novelty gain of
    :func:`alpha_ndcg_at_k`) divided by ``sum_{r<=k} (1 - alpha)**(r-1) /
    log2(r + 1)``, the value of a ranking whose every document covers every
    subtopic: ndeval's "collection-independent normalisation", which needs no
    ideal ranking. (ndeval skips that division at k = 1; the names
    ``alpha-DCG@1`` and ``alpha_DCG@1`` reproduce it, this function does not.)
    A query with no subtopic: null, or 0 with ``no_relevant='zero'``.

    Parameters
    ----------
    subtopics
        A list column: the subtopics each row's document is relevant to.
    k
    alpha
        The redundancy penalty, in [0, 1].
    intent_weights
        A list column parallel to ``subtopics``: each subtopic's probability.
    by, descending, no_relevant
        As for :func:`alpha_ndcg_at_k`.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`alpha_ndcg_at_k`; ``'average'`` is refused.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [2.0, 1.0], "subtopics": [["1", "2"], ["1"]]})
    >>> df.select(rm.alpha_dcg_at_k("subtopics", 2, by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ subtopics │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.880094  │
    └───────────┘
    """
    bound = stats.alpha_dcg_statistic.bind("alpha_dcg_at_k", no_relevant, k=k, alpha=alpha)
    return evaluate_on_subtopics(bound, subtopics, by, descending, ties, intent_weights)


def err_ia_at_k(
    subtopics: IntoExpr,
    k: int,
    *,
    alpha: float = 0.5,
    intent_weights: IntoExpr | None = None,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Intent-aware ERR@k, as ndeval reports it (collection-independent normalisation).

    ``sum_{r<=k} gain_r / r`` (the novelty gain of :func:`alpha_ndcg_at_k`)
    divided by ``sum_{r<=k} (1 - alpha)**(r-1) / r``. Equivalently
    ``sum_j w_j ERR_j@k / ERR_max@k``: the intent-weighted ERR of Chapelle et
    al. (CIKM 2009), where a document relevant to intent j stops its user with
    probability alpha, over the ERR@k of a ranking of relevant documents.
    (ndeval skips the division at k = 1; ``ERR-IA@1`` and ``ERR_IA@1``
    reproduce it, this function does not.) A query with no subtopic: null, or
    0 with ``no_relevant='zero'``.

    Parameters
    ----------
    subtopics
        A list column: the subtopics each row's document is relevant to.
    k
    alpha
        The probability that a relevant document satisfies its intent, in [0, 1].
    intent_weights
        A list column parallel to ``subtopics``: each subtopic's probability.
    by, descending, no_relevant
        As for :func:`alpha_ndcg_at_k`.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`alpha_ndcg_at_k`; ``'average'`` is refused.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [2.0, 1.0], "subtopics": [["1"], ["2"]]})
    >>> df.select(rm.err_ia_at_k("subtopics", 2, by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ subtopics │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.6       │
    └───────────┘
    """
    bound = stats.err_ia_statistic.bind("err_ia_at_k", no_relevant, k=k, alpha=alpha)
    return evaluate_on_subtopics(bound, subtopics, by, descending, ties, intent_weights)


def nerr_ia_at_k(
    subtopics: IntoExpr,
    k: int,
    *,
    alpha: float = 0.5,
    ideal: Ideal = "greedy",
    intent_weights: IntoExpr | None = None,
    docs: IntoExpr | None = None,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Normalised intent-aware ERR@k: ``sum_{r<=k} gain_r / r`` over that of the ideal ranking.

    The gain is :func:`alpha_ndcg_at_k`'s; so is the ideal ranking (ndeval uses
    the same greedy list for both; ``ideal='exact'`` maximises this sum). A
    query with no subtopic: null, or 0 with ``no_relevant='zero'``.

    Parameters
    ----------
    subtopics
        A list column: the subtopics each row's document is relevant to.
    k
    alpha
        The redundancy penalty, in [0, 1].
    ideal : {'greedy', 'exact'}
        ndeval's greedy ideal ranking, or the best ranking.
    intent_weights, docs, by, descending, no_relevant
        As for :func:`alpha_ndcg_at_k`.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`alpha_ndcg_at_k`; ``'average'`` is refused.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [2.0, 1.0], "subtopics": [["1"], ["1", "2"]]})
    >>> df.select(rm.nerr_ia_at_k("subtopics", 2, by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ subtopics │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.777778  │
    └───────────┘
    """
    bound = stats.nerr_ia_statistic.bind("nerr_ia_at_k", no_relevant, k=k, alpha=alpha, ideal=ideal)
    return evaluate_on_subtopics(bound, subtopics, by, descending, ties, intent_weights, docs)


def nrbp(
    subtopics: IntoExpr,
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    intent_weights: IntoExpr | None = None,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Novelty- and rank-biased precision over the whole ranking.

    ``NRBP = (1 - (1 - alpha) beta) · sum_r beta**(r-1) gain_r`` with the
    novelty gain of :func:`alpha_ndcg_at_k` (Clarke, Kolla and Vechtomova,
    ICTIR 2009): the user goes on from each rank with probability ``beta``.
    No cutoff: every retrieved row counts, as in ndeval. A query with no
    subtopic: null, or 0 with ``no_relevant='zero'``.

    Parameters
    ----------
    subtopics
        A list column: the subtopics each row's document is relevant to.
    alpha
        The redundancy penalty, in [0, 1].
    beta
        The user's patience, in (0, 1).
    intent_weights, by, descending, no_relevant
        As for :func:`alpha_ndcg_at_k`.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`alpha_ndcg_at_k`; ``'average'`` is refused.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [2.0, 1.0], "subtopics": [["1"], ["1", "2"]]})
    >>> df.select(rm.nrbp("subtopics", by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ subtopics │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.65625   │
    └───────────┘
    """
    bound = stats.nrbp_statistic.bind("nrbp", no_relevant, alpha=alpha, beta=beta)
    return evaluate_on_subtopics(bound, subtopics, by, descending, ties, intent_weights)


def nnrbp(
    subtopics: IntoExpr,
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    ideal: Ideal = "greedy",
    intent_weights: IntoExpr | None = None,
    docs: IntoExpr | None = None,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Normalised NRBP: :func:`nrbp` over the NRBP of the ideal ranking of every relevant document.

    The ideal is :func:`alpha_ndcg_at_k`'s (ndeval's greedy list by default,
    ``ideal='exact'`` the best ranking for this sum). A query with no subtopic
    has none: null, or 0 with ``no_relevant='zero'`` (ndeval: NaN).

    Parameters
    ----------
    subtopics
        A list column: the subtopics each row's document is relevant to.
    alpha
        The redundancy penalty, in [0, 1].
    beta
        The user's patience, in (0, 1).
    ideal : {'greedy', 'exact'}
        ndeval's greedy ideal ranking, or the best ranking.
    intent_weights, docs, by, descending, no_relevant
        As for :func:`alpha_ndcg_at_k`.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`alpha_ndcg_at_k`; ``'average'`` is refused.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [2.0, 1.0], "subtopics": [["1"], ["1", "2"]]})
    >>> df.select(rm.nnrbp("subtopics", by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ subtopics │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.777778  │
    └───────────┘
    """
    bound = stats.nnrbp_statistic.bind("nnrbp", no_relevant, alpha=alpha, beta=beta, ideal=ideal)
    return evaluate_on_subtopics(bound, subtopics, by, descending, ties, intent_weights, docs)


def precision_ia_at_k(
    subtopics: IntoExpr,
    k: int,
    *,
    intent_weights: IntoExpr | None = None,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Intent-aware precision at k: the intent-weighted mean of each subtopic's P@k.

    ``P-IA@k = sum_j w_j · (documents in the top k relevant to j) / k``; the
    denominator is always k (Agrawal et al., WSDM 2009; ndeval's ``P-IA@k``).
    No novelty: a document counts for each of its subtopics. A query with no
    subtopic: null, or 0 with ``no_relevant='zero'``.

    Parameters
    ----------
    subtopics
        A list column: the subtopics each row's document is relevant to.
    k
    intent_weights, by, descending, no_relevant
        As for :func:`alpha_ndcg_at_k`.
    ties : {'stable', 'optimistic', 'pessimistic', 'average'}
        As for :func:`~polars_rankmetrics.precision_at_k`; ``'average'`` is
        exact (P-IA@k is linear in what each rank holds).

    Examples
    --------
    >>> df = pl.DataFrame({"score": [2.0, 1.0], "subtopics": [["1"], ["1", "2"]]})
    >>> df.select(rm.precision_ia_at_k("subtopics", 2, by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ subtopics │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.75      │
    └───────────┘
    """
    bound = stats.precision_ia_statistic.bind("precision_ia_at_k", no_relevant, k=k)
    return evaluate_on_subtopics(bound, subtopics, by, descending, ties, intent_weights)


def subtopic_recall_at_k(
    subtopics: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Subtopic recall at k: the fraction of the query's subtopics covered by the top k.

    ``S-recall@k = |subtopics of the documents in the top k| / S`` (Zhai,
    Cohen and Lafferty, SIGIR 2003; ndeval's ``strec@k``, ir_measures'
    ``StRecall@k``). Unweighted. A query with no subtopic: null, or 0 with
    ``no_relevant='zero'``.

    Parameters
    ----------
    subtopics
        A list column: the subtopics each row's document is relevant to.
    k
    by, descending, no_relevant
        As for :func:`alpha_ndcg_at_k`.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`alpha_ndcg_at_k`; ``'average'`` is refused.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {"score": [2.0, 1.0, None], "subtopics": [["1"], ["1", "2"], ["3"]]}
    ... )
    >>> df.select(rm.subtopic_recall_at_k("subtopics", 1, by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ subtopics │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.333333  │
    └───────────┘
    """
    bound = stats.subtopic_recall_statistic.bind("subtopic_recall_at_k", no_relevant, k=k)
    return evaluate_on_subtopics(bound, subtopics, by, descending, ties)


def ap_ia(
    subtopics: IntoExpr,
    *,
    intent_weights: IntoExpr | None = None,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Intent-aware average precision: the intent-weighted mean of each subtopic's AP.

    ``AP-IA = sum_j w_j AP_j``, with ``AP_j`` the average precision of the
    ranking when only documents relevant to subtopic j are relevant, over
    ``R_j``, every row relevant to j whether retrieved or not (ndeval's
    ``MAP-IA`` per query, ir_measures' ``AP_IA``). Over the whole ranking. A
    query with no subtopic: null, or 0 with ``no_relevant='zero'``.

    Parameters
    ----------
    subtopics
        A list column: the subtopics each row's document is relevant to.
    intent_weights, by, descending, no_relevant
        As for :func:`alpha_ndcg_at_k`.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`alpha_ndcg_at_k`; ``'average'`` is refused.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {"score": [2.0, 1.0, None], "subtopics": [["1"], ["1", "2"], ["2"]]}
    ... )
    >>> df.select(rm.ap_ia("subtopics", by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ subtopics │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.625     │
    └───────────┘
    """
    bound = stats.ap_ia_statistic.bind("ap_ia", no_relevant)
    return evaluate_on_subtopics(bound, subtopics, by, descending, ties, intent_weights)
