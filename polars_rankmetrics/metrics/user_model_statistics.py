"""The statistics of the C/W/L user models (see :mod:`.user_models` for the framework).

Each model gives the continuation vector ``C`` and the examination weights
``W`` over ranks 1..max_n (:data:`Weights`); :func:`_measure` reads cwl_eval's
outputs off them, in the worst case (unjudged rows gain 0) and, for a
residual, the best case (unjudged rows and padded ranks gain 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import (
    NoRelevant,
    check_bool,
    check_k,
    check_number,
    check_positive,
    choice,
)
from polars_rankmetrics.engine import Ranked, statistic
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


MAX_MODEL_SCALE = 1e300
"""The largest T (INST, INSQ) or H (TBG): beyond it the models' sums overflow a double."""


def _check_model_scale(value: object, name: str) -> float:
    """A positive T or H of at most :data:`MAX_MODEL_SCALE`."""
    number = check_positive(value, name)
    if number > MAX_MODEL_SCALE:
        msg = f"`{name}` must be at most {MAX_MODEL_SCALE:g} (the model overflows), got {value!r}"
        raise ValueError(msg)
    return number


def _check_inst_target(value: object, name: str) -> float:
    """INST's T: at least 0.25, so that every continuation ``C_i`` is at most 1.

    ``C_i = ((x - 1) / x)**2`` with ``x = i + 2T - (gain of ranks 1..i)``, and
    ``x >= 2T`` since each gain is at most 1: ``C_i <= 1`` exactly when ``x >= 1/2``.
    """
    target = _check_model_scale(value, name)
    if target < 0.25:
        msg = (
            f"`{name}` (INST's T) must be at least 0.25: below it the continuation "
            f"can exceed 1, got {value!r}"
        )
        raise ValueError(msg)
    return target


@statistic(exact_average=False, target=_check_inst_target, **_SCALE)
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


@statistic(exact_average=True, target=_check_model_scale, **_SCALE)
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


def _check_u_max_n(value: object, name: str) -> int:
    """U's depth: at least 2, since its last rank weighs 0 (one rank would weigh nothing)."""
    k = _check_max_n(value, name)
    if k < 2:
        msg = f"`{name}` must be at least 2 for U (its last rank weighs 0), got {value!r}"
        raise ValueError(msg)
    return k


@statistic(exact_average=True, length=check_positive, **{**_SCALE, "max_n": _check_u_max_n})
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


@statistic(exact_average=True, half_life=_check_model_scale, **_SCALE)
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
