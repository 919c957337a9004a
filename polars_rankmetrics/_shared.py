"""Cheaper evaluation paths over one ranking: shared per-position quantities and top-k.

:meth:`Ranking.aggregate <polars_rankmetrics._ranking.Ranking.aggregate>` evaluates a
statistic written with :class:`~polars_rankmetrics._ranking.Ranked` on each group's
ranked list. Polars does not eliminate common subexpressions inside ``list.agg``, so
a struct of ten statistics recomputes the rank of each position, the running count
of hits and the ideal ordering once per statistic that reads them, and cumulative
operations cost a call per group. This module removes that repetition without
changing any result:

- :func:`aggregate_shared` first *probes* the statistic (builds it once against a
  recording vocabulary) to learn which per-position quantities it reads, computes
  just those once per list with ``list.eval`` into a struct list, then evaluates
  the statistic against a vocabulary (:class:`SharedRanked`) that reads them as
  struct fields. The quantities are the same expressions as in ``Ranked``, so the
  values are bit-for-bit the same.
- :func:`aggregate_top` ranks only the top ``k`` rows of each group
  (``sort_by(...).head(k)``, which polars runs as a partial sort), for statistics
  that read nothing beyond rank ``k`` and nothing global such as R.

Which path a metric takes is decided in one place, :func:`fast_paths_apply`, so a
ranking option that changes how positions are read (for example a tie policy
other than keeping input order) can switch every metric back to the plain path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from polars_rankmetrics._ranking import Ranked, Ranking

# Per-position quantities computed once per list, in dependency order, and the
# property of `Ranked` each one replaces.
_RANK = "_rank"
_TERMS = "_precision_terms"
_DISCOUNT = "_discount"
_IDEAL = "_ideal_labels"
_CODE = "_code"


def fast_paths_apply(ranking: Ranking) -> bool:
    """Whether the shared and top-k paths give the same values as the plain path.

    They read positions exactly as :meth:`Ranking.ranked` orders them, which is
    the ranking of every ``ties`` mode but ``'average'``: that one needs each
    tie group whole (a top k may cut one) and reads a list of structs.
    """
    return ranking.ties != "average"


@dataclass(frozen=True, eq=False)
class _UsageProbe(Ranked):
    """A ``Ranked`` that records which costly per-position quantities are read."""

    used: set[str] = field(default_factory=set)

    @property
    def rank(self) -> pl.Expr:
        self.used.add(_RANK)
        return super().rank

    @property
    def precision_terms(self) -> pl.Expr:
        self.used.add(_TERMS)
        return super().precision_terms

    @property
    def discount(self) -> pl.Expr:
        self.used.add(_DISCOUNT)
        return super().discount

    @property
    def ideal_labels(self) -> pl.Expr:
        self.used.add(_IDEAL)
        return super().ideal_labels


@dataclass(frozen=True, eq=False)
class SharedRanked(Ranked):
    """A ``Ranked`` over a struct list whose costly quantities are precomputed fields.

    Each element is a struct with the encoded label in ``_code`` and one field
    per quantity in ``available``; the others are computed as in ``Ranked``.
    """

    available: frozenset[str] = frozenset()

    def _field(self, name: str) -> pl.Expr:
        return pl.element().struct.field(name)

    @property
    def rank(self) -> pl.Expr:
        return self._field(_RANK) if _RANK in self.available else super().rank

    @property
    def precision_terms(self) -> pl.Expr:
        if _TERMS in self.available:
            return self._field(_TERMS)
        return super().precision_terms

    @property
    def discount(self) -> pl.Expr:
        return self._field(_DISCOUNT) if _DISCOUNT in self.available else super().discount

    @property
    def ideal_labels(self) -> pl.Expr:
        return self._field(_IDEAL) if _IDEAL in self.available else super().ideal_labels


def _shared_fields(threshold: float, used: set[str]) -> pl.Expr:
    """Build the struct of the encoded label and the quantities in ``used``, per position."""
    plain = Ranked(threshold)
    # The rank is read by the precision terms and the discount, so it is computed
    # once whenever either is used; `cum_count` gives 1..n (the list has no nulls)
    # at a fraction of the cost of `int_range`.
    needs_rank = bool(used & {_RANK, _TERMS, _DISCOUNT})
    fields: dict[str, pl.Expr] = {_CODE: pl.element()}
    if needs_rank:
        fields[_RANK] = pl.element().cum_count().cast(pl.Float64)
    if _IDEAL in used:
        fields[_IDEAL] = plain.ideal_labels
    shared = pl.struct([expr.alias(name) for name, expr in fields.items()])
    derived: dict[str, pl.Expr] = {}
    with_rank = SharedRanked(threshold, code=pl.field(_CODE), available=frozenset())
    rank = pl.field(_RANK)
    if _TERMS in used:
        hit = with_rank.hit
        derived[_TERMS] = hit * hit.cum_sum() / rank
    if _DISCOUNT in used:
        derived[_DISCOUNT] = 1.0 / (rank + 1.0).log(2)
    if not derived:
        return shared
    return shared.struct.with_fields([expr.alias(name) for name, expr in derived.items()])


def aggregate_shared(ranking: Ranking, statistic: Callable[[Ranked], pl.Expr]) -> pl.Expr:
    """Evaluate ``statistic(ranked)`` on each group's ranking, sharing costly quantities.

    Equal in value to ``ranking.aggregate(statistic(ranking.in_list))``; it sorts
    each group once, as that does.
    """
    if not fast_paths_apply(ranking):
        return ranking.aggregate(statistic(ranking.in_list))
    probe = _UsageProbe(ranking.threshold)
    statistic(probe)
    used = set(probe.used)
    if not used:
        return ranking.aggregate(statistic(ranking.in_list))
    shared = SharedRanked(
        ranking.threshold, code=pl.element().struct.field(_CODE), available=frozenset(used)
    )
    fields = _shared_fields(ranking.threshold, used)
    return ranking.ranked().list.eval(fields).list.agg(statistic(shared))


def aggregate_top(ranking: Ranking, k: int, statistic: Callable[[Ranked], pl.Expr]) -> pl.Expr:
    """Evaluate ``statistic`` on each group's top ``k`` rows only (a partial sort).

    Valid only for statistics that read nothing beyond rank ``k`` and nothing
    about the whole group (such as R): precision, hit rate and DCG at ``k``.
    """
    if not fast_paths_apply(ranking) or not ranking.by:
        return ranking.aggregate(statistic(ranking.in_list))
    top = ranking.order(ranking.encoded).head(k).implode()
    return top.list.agg(statistic(ranking.in_list))
