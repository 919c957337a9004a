"""The top k path: one statistic that reads nothing beyond rank k ranks only the top k rows.

See :func:`top_value`; the vocabulary is :class:`_TopRanked`, a
:class:`~.staged.StagedRanked` over a list that holds R, the ideal ranking's
top k and the group's top k codes. One staged statistic over the whole list
takes :func:`staged_value` (the shared path of :mod:`.staged`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from polars_rankmetrics.engine.ranked import Ranked, Threshold
from polars_rankmetrics.engine.ranking import Ranking
from polars_rankmetrics.engine.staged import (
    _IDEAL,
    _IDEAL_DCG,
    _N_RELEVANT,
    _VALUE,
    StagedRanked,
    Usage,
    _for,
    _shared_list,
)
from polars_rankmetrics.engine.statistic import Bound


@dataclass(frozen=True, eq=False)
class _TopRanked(StagedRanked):
    """A ``StagedRanked`` over a group's top ``k`` rows, after what they do not hold.

    The list is R (when the statistic reads it), then the group's ``k`` highest
    labels (when it reads the ideal ranking), then the codes of its top ``k``
    rows. The last two parts both hold ``min(k, group length)`` elements.
    """

    ideal: pl.Expr = field(default_factory=pl.element)

    @classmethod
    def over(cls, threshold: Threshold, *, with_r: bool, with_ideal: bool) -> _TopRanked:
        """Read a list with R first when ``with_r``, then the ideal labels when ``with_ideal``."""
        start = 1 if with_r else 0
        length = (pl.len() - start) // 2 if with_ideal else pl.len() - start
        code = pl.element().slice(start + length if with_ideal else start)
        return cls(threshold, code=code, ideal=pl.element().slice(start, length))

    @property
    def n_relevant(self) -> pl.Expr:
        return self.aggregate(pl.element().first())

    @property
    def shares_hits(self) -> bool:
        return False

    def top_dcg(self, k: int, gain_of: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        # The codes are a slice of the list.
        return Ranked.top_dcg(self, k, gain_of)

    def _hits(self, k: int | None) -> pl.Expr:
        # The codes are a slice of the list: cut them inside (a call per list).
        return pl.element().list.eval(self.top_hit(k).cast(pl.UInt32))

    @property
    def ideal_labels(self) -> pl.Expr:
        return self.ideal

    def ideal_dcg(self, k: int, gains: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        # The list holds the ideal top k already (sorted on the unsorted group).
        return Ranked.ideal_dcg(self, k, gains)


def top_value(ranking: Ranking, bound: Bound, k: int, usage: Usage) -> pl.Expr:
    """The staged statistic ``bound`` on each group's top ``k`` rows only (a partial sort).

    R and the ideal ranking's top ``k`` are computed on the unsorted group (R
    needs no sort, the ideal top ``k`` a sort of the labels alone) and put
    before the top ``k`` in one list: attaching them to the aggregates
    afterwards, with ``struct.with_fields``, costs polars a slow per-group path.
    """
    threshold = bound.threshold or ranking.threshold
    with_ideal = bool({_IDEAL, _IDEAL_DCG} & usage.quantities)
    parts = [ranking.order(ranking.code).head(k).cast(pl.Float64).implode()]
    if with_ideal:
        parts.insert(0, ranking.label.sort(descending=True).head(k).implode())
    if _N_RELEVANT in usage.quantities:
        parts.insert(0, threshold.admits(ranking.label).sum().cast(pl.Float64).implode())
    ranked = _TopRanked.over(
        threshold, with_r=_N_RELEVANT in usage.quantities, with_ideal=with_ideal
    )
    listed = parts[0] if len(parts) == 1 else pl.concat_list(parts)
    value = bound.build(ranked).alias(_VALUE)
    return ranked.computed(listed).struct.eval(value).struct.field(_VALUE).name.keep()


def staged_value(ranking: Ranking, bound: Bound, usage: Usage) -> pl.Expr:
    """One staged statistic by the shared path, named like the relevance column."""
    listed, staged = _shared_list(ranking, usage.quantities)
    value = bound.build(_for(staged, bound.threshold)).alias(_VALUE)
    return (
        staged.computed(listed, ranking.relevance)
        .struct.eval(value)
        .struct.field(_VALUE)
        .name.keep()
    )
