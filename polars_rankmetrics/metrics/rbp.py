"""Rank-biased precision (Moffat and Zobel) and its residual.

A user reads down the ranking and goes on from each rank to the next with
probability ``p`` (the persistence); RBP is the expected rate of gain. As in
trec_eval, the weight of rank i is ``p`` multiplied i - 1 times (not a power),
and the terms are added in rank order.

The tools that name it disagree on the gain of a graded label (``gain``):
trec_eval's ``rbp`` scales the levels into [0, 1] by the query's largest level,
ir_measures' ``RBP(rel=...)`` (cwl_eval) is binary, and ranx's ``rbp.95``
takes the label itself.

References
----------
Moffat and Zobel, "Rank-biased precision for measurement of retrieval
effectiveness", ACM TOIS 27(1), 2008.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import NoRelevant, check_k, check_number, choice, optional
from polars_rankmetrics.engine import Ranked, statistic
from polars_rankmetrics.engine.ranked import in_order
from polars_rankmetrics.metrics.dcg import Gains, check_gains, trec_gain

RbpGain: TypeAlias = Literal["scaled", "binary", "label"]
"""The gain of a row in RBP: its level scaled by the query's largest level
(trec_eval), 1 when relevant (ir_measures), or its label when relevant (ranx)."""


def check_persistence(value: object, name: str) -> float:
    """Return a persistence: a finite number (trec_eval takes any, usually in (0, 1))."""
    return check_number(value, name)


def _weights(ranked: Ranked, p: float) -> tuple[pl.Expr, pl.Expr]:
    """``p`` multiplied by itself once per rank above each position, and once per position.

    Returns the weight of each position (1, p, p·p, ...) and the weight after the
    last retrieved position (``p`` multiplied once per retrieved row), each a
    repeated multiplication as in trec_eval.
    """
    persistence = ranked.code * 0.0 + p
    product = persistence.cum_prod()
    weight = product.shift(1, fill_value=1.0)
    retrieved = ranked.retrieved.cast(pl.Float64).sum().cast(pl.Int64)
    after = pl.when(retrieved > 0).then(product.gather(retrieved - 1)).otherwise(1.0)
    return weight, after.first()


def _table_bounds(ranked: Ranked, gains: Gains) -> tuple[pl.Expr, pl.Expr]:
    """The smallest and largest gain of trec_eval's gain table for the query.

    The table holds the custom gains (of any level) and, for every other level
    from 0 to the largest judged one, the level itself.
    """
    if not gains:
        # Levels 0 to the largest label: unjudged rows count as level 0, which
        # changes nothing (the table's smallest gain is 0 either way).
        return pl.lit(0.0), ranked.label.max()
    top = ranked.raw.filter(ranked.judged).max()  # null when nothing is judged
    listed = {level for level, _ in gains}
    free = next(level for level in range(len(listed) + 1) if level not in listed)
    low = pl.when(top >= free).then(pl.lit(float(free)))
    # The largest unlisted level up to `top`: `top` itself, unless it is listed.
    chain: Any = pl
    for level in sorted(level for level in listed if level >= 0):
        lower = next((x for x in range(level - 1, -1, -1) if x not in listed), None)
        chain = chain.when(top == float(level)).then(pl.lit(lower, pl.Float64))
    high: pl.Expr = top if chain is pl else chain.otherwise(top)
    values = [pl.lit(value) for _, value in gains]
    return pl.min_horizontal(low, *values), pl.max_horizontal(high, *values)


def _in_table(ranked: Ranked, gains: Gains) -> pl.Expr:
    """Whether each row's level is in the gain table: judged, or a listed -1 or -2."""
    if not gains:
        return pl.lit(True)
    levels = {level for level, _ in gains}
    not_in_pool = ranked.raw.is_null() & pl.lit(-1 in levels)
    unjudged = (ranked.raw < 0.0).fill_null(False) & pl.lit(-2 in levels)
    return ranked.judged | not_in_pool | unjudged


def _scaled_gain(ranked: Ranked, gains: Gains) -> pl.Expr:
    """trec_eval's gain: the level (or its custom gain), rescaled into [0, 1] if needed."""
    gain = pl.when(ranked.retrieved).then(trec_gain(ranked, gains)).otherwise(0.0)
    low, high = _table_bounds(ranked, gains)
    rescale = ((low < 0.0) | (high > 1.0)) & _in_table(ranked, gains) & ranked.retrieved
    return pl.when(rescale).then(ranked.at_each(gain - low, high - low)).otherwise(gain)


def _gain(ranked: Ranked, gain: RbpGain, gains: Gains) -> pl.Expr:
    """The gain of each position, 0 where the row is not retrieved."""
    if gain == "scaled":
        return _scaled_gain(ranked, gains)
    label = pl.when(ranked.retrieved).then(ranked.label).otherwise(0.0)
    relevant = ranked.retrieved & ranked.threshold.admits(ranked.code)
    value = pl.lit(1.0) if gain == "binary" else label
    return pl.when(relevant).then(value).otherwise(0.0)


@statistic(p=check_persistence, gain=choice(RbpGain), k=optional(check_k), gains=check_gains)
def rank_biased_precision_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    p: float = 0.9,
    gain: RbpGain = "scaled",
    k: int | None = None,
    gains: Gains = (),
) -> pl.Expr:
    """RBP: ``(1 - p) · sum(gain_i · p^(i-1))`` over the ranks ``i`` (up to ``k``).

    With ``gain='scaled'`` (trec_eval) the gain of a row is its level, or its
    level's custom ``gains``; when a gain of the query's gain table (the custom
    gains, and every level up to the largest judged one) lies outside [0, 1],
    every table gain g becomes ``(g - min) / (max - min)``, trec_eval's
    normalisation: with the default gains, levels are divided by the largest
    judged level when it is above 1. With ``'binary'`` (ir_measures) the gain is
    1 for a relevant row; with ``'label'`` (ranx) the label of a relevant row,
    so that graded labels can take RBP above 1. trec_eval takes any persistence;
    the binary and label gains (ir_measures, ranx: Moffat and Zobel's RBP) take
    ``p`` in (0, 1) only, where RBP is a rate of gain.
    """
    if gains and gain != "scaled":
        msg = "RBP: custom `gains` are trec_eval's; they need gain='scaled'"
        raise ValueError(msg)
    if gain != "scaled" and not 0.0 < p < 1.0:
        msg = f"RBP: `p` must be a number in (0, 1) with gain={gain!r}, got {p!r}"
        raise ValueError(msg)
    weight, _ = _weights(ranked, p)
    terms = _gain(ranked, gain, gains) * weight
    return (1.0 - p) * in_order(terms if k is None else terms.head(k))


@statistic(p=check_persistence)
def rbp_residual_statistic(ranked: Ranked, no_relevant: NoRelevant, *, p: float = 0.9) -> pl.Expr:
    """RBP's residual: the weight of unjudged retrieved rows and of the ranks below the run.

    ``p^n + (1 - p) · sum(p^(i-1) over unjudged retrieved ranks i)`` for n
    retrieved rows, 0 when every retrieved row is judged (trec_eval's ``rbp_resid``).
    """
    unjudged = ranked.unjudged_retrieved
    weight, after = _weights(ranked, p)
    value = after + (1.0 - p) * in_order(weight.filter(unjudged))
    return pl.when(unjudged.any()).then(value).otherwise(0.0)
