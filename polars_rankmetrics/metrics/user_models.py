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

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import (
    IntoExpr,
    NoRelevant,
    Ties,
    check_bool,
    check_k,
    check_number,
    check_positive,
    choice,
)
from polars_rankmetrics.engine import Ranked, Ranking, evaluate_one, statistic
from polars_rankmetrics.engine.ties import tie_mean

Output: TypeAlias = Literal["EU", "ETU", "EC", "ETC", "ED"]
"""cwl_eval's outputs: expected utility, total utility, cost, total cost, documents read."""

CWL_DEPTH = 1000
"""cwl_eval's ``max_n``: the ranking is cut or padded to this many ranks."""

Weights = Callable[[pl.Expr, pl.Expr], tuple[pl.Expr, pl.Expr]]
"""``model(rank, gain) -> (C, W)``: the continuation and examination vectors."""


def _check_max_n(value: object, name: str) -> int:
    k = check_k(value, name)
    if k > 100_000:
        msg = f"`{name}` must be at most 100000 (every query's vector has this length), got {k}"
        raise ValueError(msg)
    return k


_SCALE: dict[str, Any] = {
    "max_rel": check_positive,
    "min_rel": lambda value, name: check_number(value, name, low=0.0),
    "output": choice(Output),
    "residual": check_bool,
    "max_n": _check_max_n,
}


@dataclass(frozen=True)
class Scale:
    """How labels become gains, how deep the user may read, and which output to give."""

    max_rel: float
    min_rel: float
    output: Output
    residual: bool
    max_n: int


def _gains(ranked: Ranked, scale: Scale, best: bool) -> pl.Expr:
    """The gain of ranks 1..max_n: ir_measures' scaling of the label, padded.

    A label becomes ``(clip(label, min_rel, max_rel) - min_rel) / (max_rel -
    min_rel)``, negative and null labels 0 (ir_measures' cwl provider); in the
    best case an unjudged row and every rank past the run gain 1.
    """
    low, high = scale.min_rel, scale.max_rel
    if low >= high:
        msg = f"`min_rel` must be below `max_rel`, got {low:g} and {high:g}"
        raise ValueError(msg)
    gain = (ranked.label.clip(lower_bound=low, upper_bound=high) - low) / (high - low)
    if best:
        gain = pl.when(ranked.raw.is_null()).then(1.0).otherwise(gain)
    gain = tie_mean(ranked, pl.when(ranked.retrieved).then(gain).otherwise(0.0))
    gain = gain.filter(ranked.retrieved).head(scale.max_n)
    return gain.extend_constant(1.0 if best else 0.0, pl.lit(scale.max_n) - gain.len())


def _from_continuation(continuation: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    reach = continuation.cum_prod().shift(1, fill_value=1.0)
    return continuation, reach / reach.sum()


def _from_weights(raw: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    weight = raw / raw.sum()
    following = weight.shift(-1, fill_value=0.0)
    continuation = pl.when(weight > 0.0).then(following / weight).otherwise(0.0)
    return continuation, weight


def _measure(ranked: Ranked, model: Weights, scale: Scale, best: bool) -> pl.Expr:
    gain = _gains(ranked, scale, best)
    rank = pl.int_range(1, gain.len() + 1).cast(pl.Float64)
    continuation, weight = model(rank, gain)
    output = scale.output
    if output == "EU":
        return (weight * gain).sum()
    if output == "EC":
        return weight.sum()
    if output == "ED":
        return 1.0 / weight.first()
    stop = continuation.cum_prod().shift(1, fill_value=1.0) * (1.0 - continuation)
    total = gain.cum_sum() if output == "ETU" else rank
    return (stop * total).sum()


def _cwl(ranked: Ranked, model: Weights, scale: Scale) -> pl.Expr:
    worst = _measure(ranked, model, scale, best=False)
    if not scale.residual:
        return worst
    return _measure(ranked, model, scale, best=True) - worst


@statistic(exact_average=False, target=check_positive, **_SCALE)
def inst_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    target: float = 1.0,
    max_rel: float = 1.0,
    min_rel: float = 0.0,
    output: Output = "EU",
    residual: bool = False,
    max_n: int = CWL_DEPTH,
) -> pl.Expr:
    """INST: ``C_i = ((i + T + T_i - 1) / (i + T + T_i))**2``, ``T_i = T - gain so far``."""

    def model(rank: pl.Expr, gain: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
        still = target - gain.cum_sum()
        return _from_continuation(
            ((rank + target + still - 1.0) / (rank + target + still)).pow(2.0)
        )

    return _cwl(ranked, model, Scale(max_rel, min_rel, output, residual, max_n))


@statistic(exact_average=True, target=check_positive, **_SCALE)
def insq_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    target: float = 1.0,
    max_rel: float = 1.0,
    min_rel: float = 0.0,
    output: Output = "EU",
    residual: bool = False,
    max_n: int = CWL_DEPTH,
) -> pl.Expr:
    """INSQ: ``C_i = ((i + 2T - 1) / (i + 2T))**2``."""

    def model(rank: pl.Expr, gain: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
        return _from_continuation(((rank + 2.0 * target - 1.0) / (rank + 2.0 * target)).pow(2.0))

    return _cwl(ranked, model, Scale(max_rel, min_rel, output, residual, max_n))


@statistic(exact_average=False, target=check_positive, budget=check_positive, **_SCALE)
def bpm_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    target: float = 1.0,
    budget: float = 10.0,
    max_rel: float = 1.0,
    min_rel: float = 0.0,
    output: Output = "EU",
    residual: bool = False,
    max_n: int = CWL_DEPTH,
) -> pl.Expr:
    """BPM (static): continue while the gain so far is below T and the cost below K."""

    def model(rank: pl.Expr, gain: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
        going = (gain.cum_sum() < target) & (rank < budget)
        return _from_continuation(going.cast(pl.Float64))

    return _cwl(ranked, model, Scale(max_rel, min_rel, output, residual, max_n))


@statistic(exact_average=True, length=check_positive, **_SCALE)
def u_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    length: float = 1000.0,
    max_rel: float = 1.0,
    min_rel: float = 0.0,
    output: Output = "EU",
    residual: bool = False,
    max_n: int = CWL_DEPTH,
) -> pl.Expr:
    """U-measure: ``W_i`` proportional to ``max(0, 1 - (cost before i) / L)``, 0 at the end."""

    def model(rank: pl.Expr, gain: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
        decay = (1.0 - (rank - 1.0) / length).clip(lower_bound=0.0)
        return _from_weights(pl.when(rank < rank.max()).then(decay).otherwise(0.0))

    return _cwl(ranked, model, Scale(max_rel, min_rel, output, residual, max_n))


@statistic(exact_average=True, half_life=check_positive, **_SCALE)
def tbg_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    half_life: float = 224.0,
    max_rel: float = 1.0,
    min_rel: float = 0.0,
    output: Output = "EU",
    residual: bool = False,
    max_n: int = CWL_DEPTH,
) -> pl.Expr:
    """TBG: ``W_i`` proportional to ``H · 2**(-(cost before i) / H) / ln 2``."""

    def model(rank: pl.Expr, gain: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
        decay = half_life * pl.lit(2.0).pow(-(rank - 1.0) / half_life) / math.log(2.0)
        return _from_weights(decay)

    return _cwl(ranked, model, Scale(max_rel, min_rel, output, residual, max_n))


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
        T, the gain the user wants, > 0.
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
