"""Rank-biased precision (Moffat and Zobel) and its residual.

A user reads down the ranking and goes on from each rank to the next with
probability ``p`` (the persistence); RBP is the expected rate of gain.

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

from typing import Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import NoRelevant, check_k, check_number, choice, optional
from polars_rankmetrics.engine import Ranked, statistic

RbpGain: TypeAlias = Literal["scaled", "binary", "label"]
"""The gain of a row in RBP: its level scaled by the query's largest level
(trec_eval), 1 when relevant (ir_measures), or its label when relevant (ranx)."""


def check_persistence(value: object, name: str) -> float:
    """Return a persistence: a number in (0, 1)."""
    return check_number(value, name, low=0.0, high=1.0, low_open=True, high_open=True)


def _gain(ranked: Ranked, gain: RbpGain) -> pl.Expr:
    """The gain of each position, 0 where the row is not retrieved."""
    label = pl.when(ranked.retrieved).then(ranked.label).otherwise(0.0)
    if gain == "scaled":
        top = ranked.label.max()
        return pl.when(top > 1.0).then(label / top).otherwise(label)
    relevant = ranked.retrieved & ranked.threshold.admits(ranked.code)
    value = pl.lit(1.0) if gain == "binary" else label
    return pl.when(relevant).then(value).otherwise(0.0)


@statistic(p=check_persistence, gain=choice(RbpGain), k=optional(check_k))
def rank_biased_precision_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    p: float = 0.9,
    gain: RbpGain = "scaled",
    k: int | None = None,
) -> pl.Expr:
    """RBP: ``(1 - p) · sum(gain_i · p^(i-1))`` over the ranks ``i`` (up to ``k``).

    With ``gain='scaled'`` (trec_eval) the gain of a row is its level, divided
    by the query's largest level when that is above 1; with ``'binary'``
    (ir_measures) 1 for a relevant row; with ``'label'`` (ranx) the label of a
    relevant row, so that graded labels can take RBP above 1.
    """
    gains = _gain(ranked, gain)
    weight = pl.lit(p).pow(ranked.rank - 1.0)
    terms = gains * weight
    return (1.0 - p) * (terms if k is None else terms.head(k)).sum()


@statistic()
def rbp_residual_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Return the RBP mass of unjudged retrieved rows and of the ranks below the run (p = 0.9)."""
    persistence = 0.9
    unjudged = ranked.unjudged_retrieved
    weight = pl.lit(persistence).pow(ranked.rank - 1.0)
    tail = pl.lit(persistence).pow(ranked.retrieved.cast(pl.Float64).sum())
    value = tail + (1.0 - persistence) * weight.filter(unjudged).sum()
    return pl.when(unjudged.any()).then(value).otherwise(0.0)
