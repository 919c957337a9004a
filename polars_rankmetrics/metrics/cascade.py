"""Cascade measures: expected reciprocal rank (ERR@k) and its normalised form (nERR@k).

The cascade user reads down the ranking and stops at a document with the
probability that it satisfies them, ``R(g) = (2**g - 1) / 2**max_grade`` for a
document of grade ``g``. ERR is the expected reciprocal rank at which they stop.

References
----------
O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected reciprocal rank
for graded relevance", CIKM 2009. ``gdeval.pl`` 1.2a (TREC Web track), the
reference implementation that ir_measures runs for ``ERR@k``.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankmetrics._validate import IntoExpr, NoRelevant, Ties, check_k, check_number
from polars_rankmetrics.engine import Ranked, Ranking, evaluate_one, statistic

GDEVAL_MAX_GRADE = 4
"""gdeval.pl's ``$MAX_JUDGMENT``: the grade that stops the user with probability 15/16."""


def check_max_grade(value: object, name: str) -> float:
    """Return a maximum grade: a number in (0, 64]."""
    return check_number(value, name, low=0.0, high=64.0, low_open=True)


def _cascade(ranked: Ranked, labels: pl.Expr, max_grade: float) -> pl.Expr:
    """ERR of ``labels`` in rank order: ``sum_r R_r / r · prod_{i<r} (1 - R_i)``."""
    grade = labels.clip(upper_bound=max_grade)
    stop = (pl.lit(2.0).pow(grade) - 1.0) / 2.0**max_grade
    # The probability of reaching each rank, multiplied in rank order as gdeval does.
    reach = (1.0 - stop).cum_prod().shift(1, fill_value=1.0)
    rank = pl.int_range(1, labels.len() + 1, dtype=pl.Int64).cast(pl.Float64)
    return ranked.aggregate((stop * reach / rank).sum())


@statistic(top_k="k", k=check_k, max_grade=check_max_grade)
def err_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int, max_grade: float = GDEVAL_MAX_GRADE
) -> pl.Expr:
    """ERR@k over a ranked list: unretrieved rows stop no one; always defined."""
    # Clipping the code at 0 gives a retrieved row's label and 0 for the unretrieved.
    # `+ 0.0`: an empty list's sum is -0.0 in polars; nothing retrieved gains 0.0.
    return _cascade(ranked, ranked.code.head(k).clip(lower_bound=0.0), max_grade) + 0.0


@statistic(top_k="k", k=check_k, max_grade=check_max_grade)
def nerr_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int, max_grade: float = GDEVAL_MAX_GRADE
) -> pl.Expr:
    """nERR@k: ERR@k over the ERR@k of every judged row by label; undefined when that is 0."""
    ideal = _cascade(ranked, ranked.ideal_labels.head(k), max_grade)
    value = err_statistic(ranked, k=k, max_grade=max_grade) / ideal
    fallback = None if no_relevant == "null" else 0.0
    return pl.when(ideal > 0.0).then(value).otherwise(fallback)


def err_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    max_grade: float = GDEVAL_MAX_GRADE,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Expected reciprocal rank at k (ERR@k), as gdeval.pl computes it.

    ``ERR@k = sum over ranks r <= k of R_r / r · prod_{i<r} (1 - R_i)``, with
    ``R = (2**g - 1) / 2**max_grade`` the probability that a document of grade
    ``g`` (its label) satisfies the user, who reads down the ranking and stops
    there (the cascade model of Chapelle et al., CIKM 2009).

    The maximum grade defaults to 4, gdeval's ``$MAX_JUDGMENT``, the value
    behind ir_measures' ``ERR@k``: a grade-4 document stops 15 users in 16, a
    grade-1 document 1 in 16. Pass the top grade of your scale instead (3 for
    0-3 labels) to let the best documents stop the user as often. A label
    above ``max_grade`` counts as ``max_grade`` (gdeval stops with a format
    error on one, ir_measures issue #50). Null (unjudged) and negative labels
    have grade 0: they stop no one. Rows with a null or NaN score are not
    retrieved and take no rank. ERR is defined, and 0, for a query with no
    relevant row (gdeval prints nothing for it; ir_measures reports 0).

    Parameters
    ----------
    relevance
        Graded relevance labels: bool, int or float.
    k
    by, descending
        As for :func:`~polars_rankmetrics.precision_at_k`: the score and
        tie-breakers and their direction. gdeval breaks ties by document id,
        descending: ``by=["score", "doc"], descending=True``.
    max_grade
        The grade whose documents stop the user with probability
        ``1 - 2**-max_grade``; a number in (0, 64].
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`~polars_rankmetrics.precision_at_k`. ``'average'`` is
        refused: the expectation of the products over the orders of a tie has
        no closed form that the engine computes.

    References
    ----------
    O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected reciprocal
    rank for graded relevance", CIKM 2009.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [3, 2, 1], "grade": [1, 0, 4]})
    >>> df.select(
    ...     gdeval=rm.err_at_k("grade", 10, by="score"),
    ...     top_grade_3=rm.err_at_k("grade", 10, by="score", max_grade=3),
    ... )
    shape: (1, 2)
    ┌──────────┬─────────────┐
    │ gdeval   ┆ top_grade_3 │
    │ ---      ┆ ---         │
    │ f64      ┆ f64         │
    ╞══════════╪═════════════╡
    │ 0.355469 ┆ 0.380208    │
    └──────────┴─────────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold=0, ties=ties)
    return evaluate_one(ranking, err_statistic.bind("err_at_k", k=k, max_grade=max_grade))


def nerr_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    max_grade: float = GDEVAL_MAX_GRADE,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Normalised ERR at k: ERR@k over the ERR@k of the ideal ranking.

    The ideal ranking orders every judged row of the group by its label,
    highest first, whether it was retrieved or not (as for nDCG); that order
    maximises ERR. This is NTCIREVAL's nERR@k; it is not ir_measures'
    ``NERR8``-``NERR11`` (C/W/L "not quite ERR" measures). See
    :func:`err_at_k` for the stop probabilities, ``max_grade``, unjudged and
    unretrieved rows, and ties. A query without a label above 0 has an ideal
    ERR of 0 and no defined nERR; see ``no_relevant``.

    Parameters
    ----------
    relevance
        Graded relevance labels: bool, int or float.
    k
    by, descending
        The score and tie-breakers, and their direction.
    max_grade
        The grade of the most satisfying documents; see :func:`err_at_k`.
    no_relevant : {'null', 'zero'}
        The value for a query whose ideal ERR is 0.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`err_at_k`; ``'average'`` is refused.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [3, 2, 1, None], "grade": [1, 0, 4, 2]})
    >>> df.select(rm.nerr_at_k("grade", 3, by="score"))
    shape: (1, 1)
    ┌──────────┐
    │ grade    │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.376389 │
    └──────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold=0, ties=ties)
    bound = nerr_statistic.bind("nerr_at_k", no_relevant, k=k, max_grade=max_grade)
    return evaluate_one(ranking, bound)
