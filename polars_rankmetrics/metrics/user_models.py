"""User-model measures of the C/W/L framework: INST, INSQ, BPM, the U-measure and TBG.

A user reads down the ranking; after rank ``i`` they continue with probability
``C_i``. That gives the probability ``W_i`` that a given inspection is of rank
``i`` (``W_i = prod_{j<i} C_j / sum_m prod_{j<m} C_j``) and the probability
``L_i = prod_{j<i} C_j · (1 - C_i)`` that the last rank read is ``i``. From
them, with ``g_i`` the gain of rank ``i`` and ``c_i`` its cost (1 per document
here), cwl_eval reports:

- EU, the expected utility per document read: ``sum_i W_i g_i`` (the measure's value);
- ETU, the expected total utility: ``sum_i L_i sum_{j<=i} g_j``;
- EC, the expected cost per document: ``sum_i W_i c_i`` (1 with unit costs);
- ETC, the expected total cost: ``sum_i L_i sum_{j<=i} c_j``;
- ED, the expected number of documents read: ``1 / W_1``.

The ranking is cut or padded to ``max_n`` ranks (cwl_eval's 1000): ranks past
the end gain nothing. The residual of each is how much it could grow if every
unjudged document, and every rank past the end, had the highest gain.

References
----------
A. Moffat, P. Bailey, F. Scholer and P. Thomas, "INST: an adaptive metric for
information retrieval evaluation", ADCS 2015; Moffat, Thomas and Scholer,
"Users versus models: what observation tells us about effectiveness metrics",
CIKM 2013 (INSQ); F. Zhang et al., "Evaluating web search with a bejeweled
player model", SIGIR 2017 (BPM); T. Sakai and Z. Dou, "Summaries, ranked
retrieval and sessions: a unified framework for information access
evaluation", SIGIR 2013 (U); M. D. Smucker and C. L. A. Clarke, "Time-based
calibration of effectiveness measures", SIGIR 2012 (TBG). L. Azzopardi, P.
Thomas and A. Moffat, "cwl_eval: an evaluation tool for information retrieval",
SIGIR 2019.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_rankmetrics._validate import IntoExpr, Ties
from polars_rankmetrics.engine import Ranking, evaluate_one
from polars_rankmetrics.metrics.user_model_statistics import (
    CWL_DEPTH,
    Output,
    bpm_statistic,
    insq_statistic,
    inst_statistic,
    tbg_statistic,
    u_statistic,
)

# ---------------------------------------------------------------- functions


def _evaluate(
    name: str,
    relevance: IntoExpr,
    by: IntoExpr | Sequence[IntoExpr] | None,
    descending: bool | Sequence[bool],
    ties: Ties,
    **params: Any,
) -> pl.Expr:
    ranking = Ranking.build(relevance, by, descending, threshold=0, ties=ties)
    return evaluate_one(ranking, STATISTICS[name].bind(name, **params))


def inst(
    relevance: IntoExpr,
    *,
    target: float = 1.0,
    max_rel: float = 1,
    min_rel: float = 0,
    output: Output = "EU",
    residual: bool = False,
    max_n: int = CWL_DEPTH,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    INST: a user who wants ``target`` units of gain reads on until they have it.

    The C/W/L continuation is ``C_i = ((i + T + T_i - 1) / (i + T + T_i))**2``
    with ``T = target`` and ``T_i = T - (gain of ranks 1..i)``: the less gain
    still wanted, the sooner the user stops (Moffat et al., ADCS 2015). The
    value is the expected utility per document read (EU); ``output`` gives the
    other outputs of cwl_eval (see :mod:`polars_rankmetrics.metrics.user_models`).
    This is cwl_eval's ``INST-T=1.0`` and ir_measures' ``INST(T=1.0, max_rel=1)``.

    Gains are ir_measures': a label becomes ``(clip(label, min_rel, max_rel) -
    min_rel) / (max_rel - min_rel)``, so with the defaults a label of 1 or more
    gains 1; null (unjudged) and negative labels gain 0. Rows with a null or
    NaN score are not retrieved. The ranking is cut or padded to ``max_n``
    ranks (padded ranks gain 0), and each document costs 1. A query with no
    relevant row is defined (its utility is 0).

    Parameters
    ----------
    relevance
        Graded relevance labels.
    target
        T, the gain the user wants, at least 0.25: below it the continuation
        ``C_i`` can exceed 1 (it does once ``i + 2T - gain so far`` falls below
        1/2), which is no probability, and its product overflows to NaN.
    max_rel, min_rel
        The labels that gain 1 and 0 (ir_measures' ``max_rel`` and ``min_rel``).
    output : {'EU', 'ETU', 'EC', 'ETC', 'ED'}
        Expected utility per document (the value ir_measures reports), expected
        total utility, expected cost per document, expected total cost, or
        expected number of documents read.
    residual
        Give the output's residual instead: how much it would grow if every
        unjudged document, and every rank past the run, gained 1 (cwl_eval ``-r``).
    max_n
        The depth the ranking is cut or padded to (cwl_eval's 1000).
    by, descending
        As for :func:`~polars_rankmetrics.precision_at_k`. ir_measures orders
        tied scores by input order (a stable sort); cwl_eval reads the run's lines in order.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`~polars_rankmetrics.precision_at_k`; ``'average'`` is
        refused: the continuation depends on the order of the gains.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [3, 2, 1, None], "grade": [2, 0, 1, 2]})
    >>> df.select(
    ...     eu=rm.inst("grade", target=2.0, max_rel=2, by="score"),
    ...     read=rm.inst("grade", target=2.0, max_rel=2, by="score", output="ED"),
    ...     residual=rm.inst("grade", target=2.0, max_rel=2, by="score", residual=True),
    ... )
    shape: (1, 3)
    ┌──────────┬──────────┬──────────┐
    │ eu       ┆ read     ┆ residual │
    │ ---      ┆ ---      ┆ ---      │
    │ f64      ┆ f64      ┆ f64      │
    ╞══════════╪══════════╪══════════╡
    │ 0.350312 ┆ 3.368431 ┆ 0.369658 │
    └──────────┴──────────┴──────────┘
    """
    return _evaluate(
        "inst", relevance, by, descending, ties, target=target, max_rel=max_rel,
        min_rel=min_rel, output=output, residual=residual, max_n=max_n,
    )  # fmt: skip


def insq(
    relevance: IntoExpr,
    *,
    target: float = 1.0,
    max_rel: float = 1,
    min_rel: float = 0,
    output: Output = "EU",
    residual: bool = False,
    max_n: int = CWL_DEPTH,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    INSQ: INST's user with a continuation that does not depend on the gains.

    ``C_i = ((i + 2T - 1) / (i + 2T))**2`` with ``T = target`` (Moffat, Thomas
    and Scholer, CIKM 2013). cwl_eval's ``INSQ-T=1.0``, ir_measures'
    ``INSQ(T=1.0, max_rel=1)``. Gains, unjudged and unretrieved rows, depth and
    outputs as for :func:`inst`. The weights do not depend on the gains, so
    every output is linear in them and ``ties='average'`` is exact.

    Parameters
    ----------
    relevance
        Graded relevance labels.
    target
        T, > 0.
    max_rel, min_rel, output, residual, max_n, by, descending
        As for :func:`inst`.
    ties : {'stable', 'optimistic', 'pessimistic', 'average'}
        As for :func:`~polars_rankmetrics.precision_at_k`.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [3, 2, 2], "grade": [0, 1, 0]})
    >>> df.select(
    ...     rm.insq("grade", by="score", ties=mode).alias(mode)
    ...     for mode in ["optimistic", "average", "pessimistic"]
    ... )
    shape: (1, 3)
    ┌────────────┬──────────┬─────────────┐
    │ optimistic ┆ average  ┆ pessimistic │
    │ ---        ┆ ---      ┆ ---         │
    │ f64        ┆ f64      ┆ f64         │
    ╞════════════╪══════════╪═════════════╡
    │ 0.17255    ┆ 0.134805 ┆ 0.097059    │
    └────────────┴──────────┴─────────────┘
    """
    return _evaluate(
        "insq", relevance, by, descending, ties, target=target, max_rel=max_rel,
        min_rel=min_rel, output=output, residual=residual, max_n=max_n,
    )  # fmt: skip


def bpm(
    relevance: IntoExpr,
    *,
    target: float = 1.0,
    budget: float = 10,
    max_rel: float = 1,
    min_rel: float = 0,
    output: Output = "EU",
    residual: bool = False,
    max_n: int = CWL_DEPTH,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    BPM, the bejeweled player model: read until ``target`` gain or ``budget`` documents.

    The static BPM of Zhang et al. (SIGIR 2017): the user continues past rank
    ``i`` while the gain of ranks 1..i is below ``T = target`` and their cost
    (i, one per document) is below ``K = budget``. cwl_eval's
    ``BPM-Static-T=1.0-K=10``, ir_measures' ``BPM(T=1.0, max_rel=1)@10``.
    Gains, unjudged and unretrieved rows, depth and outputs as for :func:`inst`.

    Parameters
    ----------
    relevance
        Graded relevance labels.
    target
        T, the gain after which the user stops, > 0.
    budget
        K, the cost (documents) after which the user stops, > 0.
    max_rel, min_rel, output, residual, max_n, by, descending
        As for :func:`inst`.
    ties : {'stable', 'optimistic', 'pessimistic'}
        As for :func:`~polars_rankmetrics.precision_at_k`; ``'average'`` is refused.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [5, 4, 3, 2, 1], "grade": [0, 1, 0, 1, 1]})
    >>> df.select(rm.bpm("grade", target=2.0, budget=10, by="score"))
    shape: (1, 1)
    ┌───────┐
    │ grade │
    │ ---   │
    │ f64   │
    ╞═══════╡
    │ 0.5   │
    └───────┘
    """
    return _evaluate(
        "bpm", relevance, by, descending, ties, target=target, budget=budget,
        max_rel=max_rel, min_rel=min_rel, output=output, residual=residual, max_n=max_n,
    )  # fmt: skip


def u_measure(
    relevance: IntoExpr,
    *,
    length: float = 1000,
    max_rel: float = 1,
    min_rel: float = 0,
    output: Output = "EU",
    residual: bool = False,
    max_n: int = CWL_DEPTH,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    The U-measure: attention that falls linearly to 0 after ``length`` documents.

    ``W_i`` is proportional to ``max(0, 1 - (i - 1) / L)`` with ``L = length``
    (the cost read before rank i over the patience L; Sakai and Dou, SIGIR
    2013), and 0 at the last of the ``max_n`` ranks, as in cwl_eval's
    ``U-L@1000``. Gains, unjudged and unretrieved rows, depth and outputs as
    for :func:`inst`; the weights do not depend on the gains, so
    ``ties='average'`` is exact.

    Parameters
    ----------
    relevance
        Graded relevance labels.
    length
        L, the cost (documents) at which the weight reaches 0, > 0.
    max_rel, min_rel, output, residual, max_n, by, descending
        As for :func:`inst`.
    ties : {'stable', 'optimistic', 'pessimistic', 'average'}
        As for :func:`~polars_rankmetrics.precision_at_k`.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [3, 2, 1], "grade": [1, 0, 1]})
    >>> df.select(rm.u_measure("grade", length=4, by="score"))
    shape: (1, 1)
    ┌───────┐
    │ grade │
    │ ---   │
    │ f64   │
    ╞═══════╡
    │ 0.6   │
    └───────┘
    """
    return _evaluate(
        "u_measure", relevance, by, descending, ties, length=length, max_rel=max_rel,
        min_rel=min_rel, output=output, residual=residual, max_n=max_n,
    )  # fmt: skip


def tbg(
    relevance: IntoExpr,
    *,
    half_life: float = 224,
    max_rel: float = 1,
    min_rel: float = 0,
    output: Output = "EU",
    residual: bool = False,
    max_n: int = CWL_DEPTH,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Time-biased gain: attention that halves every ``half_life`` units of cost.

    ``W_i`` is proportional to ``H · 2**(-(i - 1) / H) / ln 2`` with
    ``H = half_life`` and ``i - 1`` the cost read before rank i (Smucker and
    Clarke, SIGIR 2012, with one unit of cost per document), as in cwl_eval's
    ``TBG-H@224``. Gains, unjudged and unretrieved rows, depth and outputs as
    for :func:`inst`; the weights do not depend on the gains, so
    ``ties='average'`` is exact.

    Parameters
    ----------
    relevance
        Graded relevance labels.
    half_life
        H, the cost after which attention has halved, > 0.
    max_rel, min_rel, output, residual, max_n, by, descending
        As for :func:`inst`.
    ties : {'stable', 'optimistic', 'pessimistic', 'average'}
        As for :func:`~polars_rankmetrics.precision_at_k`.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [3, 2, 1], "grade": [1, 0, 1]})
    >>> df.select(rm.tbg("grade", half_life=2, by="score"))
    shape: (1, 1)
    ┌─────────┐
    │ grade   │
    │ ---     │
    │ f64     │
    ╞═════════╡
    │ 0.43934 │
    └─────────┘
    """
    return _evaluate(
        "tbg", relevance, by, descending, ties, half_life=half_life, max_rel=max_rel,
        min_rel=min_rel, output=output, residual=residual, max_n=max_n,
    )  # fmt: skip


STATISTICS = {
    "inst": inst_statistic,
    "insq": insq_statistic,
    "bpm": bpm_statistic,
    "u_measure": u_statistic,
    "tbg": tbg_statistic,
}
"""The statistic of each function, by the function's name."""
