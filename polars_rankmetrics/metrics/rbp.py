"""Rank-biased precision (Moffat and Zobel) and its residual.

A user reads down the ranking and goes on from each rank to the next with
probability ``p`` (the persistence); RBP is the expected rate of gain.

References
----------
Moffat and Zobel, "Rank-biased precision for measurement of retrieval
effectiveness", ACM TOIS 27(1), 2008.
"""

from __future__ import annotations

import polars as pl

from polars_rankmetrics._validate import NoRelevant, check_number
from polars_rankmetrics.engine import Ranked, statistic


def check_persistence(value: object, name: str) -> float:
    """Return a persistence: a number in (0, 1)."""
    return check_number(value, name, low=0.0, high=1.0, low_open=True, high_open=True)


@statistic(p=check_persistence)
def rank_biased_precision_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, p: float = 0.9
) -> pl.Expr:
    """RBP: ``(1 - p) · sum(gain_i · p^(i-1))``, gains scaled into [0, 1].

    The gain of a row is its level; when the largest level of the query is
    above 1, levels are divided by it (trec_eval's normalisation).
    """
    gain = pl.when(ranked.retrieved).then(ranked.label).otherwise(0.0)
    top = ranked.label.max()
    scaled = pl.when(top > 1.0).then(gain / top).otherwise(gain)
    weight = pl.lit(p).pow(ranked.rank - 1.0)
    return (1.0 - p) * (scaled * weight).sum()


@statistic()
def rbp_residual_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Return the RBP mass of unjudged retrieved rows and of the ranks below the run (p = 0.9)."""
    persistence = 0.9
    unjudged = ranked.unjudged_retrieved
    weight = pl.lit(persistence).pow(ranked.rank - 1.0)
    tail = pl.lit(persistence).pow(ranked.retrieved.cast(pl.Float64).sum())
    value = tail + (1.0 - persistence) * weight.filter(unjudged).sum()
    return pl.when(unjudged.any()).then(value).otherwise(0.0)
