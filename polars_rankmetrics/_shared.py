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
- It then *stages* the statistic: the core statistics read the ranking only
  through per-list aggregates (:meth:`Ranked.aggregate
  <polars_rankmetrics._ranking.Ranked.aggregate>`: a sum, a count, a first
  position) combined by arithmetic. :class:`StagedRanked` records each distinct
  aggregate, one ``list.eval`` computes them all into a struct (each as a list
  reduction polars runs over all lists at once, see :func:`_per_list`), and the
  arithmetic runs after it on that struct (``struct.eval``). So R, the hits in
  the top 10 or the ideal DCG are computed once per list however many measures
  read them.
- :func:`aggregate_top` ranks only the top ``k`` rows of each group
  (``sort_by(...).head(k)``, which polars runs as a partial sort), for statistics
  that read nothing beyond rank ``k`` but R and the ideal ranking's top ``k``,
  which are computed on the unsorted group and put first in the list.

Which path a metric takes is decided in one place, :func:`fast_paths_apply`, so a
ranking option that changes how positions are read (for example a tie policy
other than keeping input order) can switch every metric back to the plain path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import polars as pl

from polars_rankmetrics._ranking import TOP_DISCOUNT_MAX_K, Ranked, Ranking

# Per-position quantities computed once per list, in dependency order, and the
# property of `Ranked` each one replaces.
_RANK = "_rank"
_TERMS = "_precision_terms"
_DISCOUNT = "_discount"
_IDEAL = "_ideal_labels"
_CODE = "_code"
_VALUE = "_value"
# Not a per-position quantity: what the probe records when a statistic reads R.
_N_RELEVANT = "_n_relevant"


def fast_paths_apply(ranking: Ranking) -> bool:
    """Whether the shared and top-k paths give the same values as the plain path.

    They read positions exactly as :meth:`Ranking.ranked` orders them, which is
    the ranking of every ``ties`` mode but ``'average'``: that one needs each
    tie group whole (a top k may cut one) and reads a list of structs.
    """
    return ranking.ties != "average"


@dataclass(frozen=True, eq=False)
class _UsageProbe(Ranked):
    """A ``Ranked`` that records which costly per-position quantities are read, and R."""

    used: set[str] = field(default_factory=set)

    @property
    def rank(self) -> pl.Expr:
        self.used.add(_RANK)
        return super().rank

    # The quantities below read the rank; a plain `Ranked` builds them, so that
    # the rank counts as used only where a statistic reads it itself.

    @property
    def precision_terms(self) -> pl.Expr:
        self.used.add(_TERMS)
        return Ranked(self.threshold).precision_terms

    @property
    def discount(self) -> pl.Expr:
        self.used.add(_DISCOUNT)
        return Ranked(self.threshold).discount

    def top_discount(self, k: int) -> pl.Expr:
        # Above this cutoff (nDCG over the whole ranking) the discount is computed
        # once for every position, shared by DCG and ideal; up to it, off a table.
        if k > TOP_DISCOUNT_MAX_K:
            self.used.add(_DISCOUNT)
        return Ranked(self.threshold).top_discount(k)

    @property
    def ideal_labels(self) -> pl.Expr:
        self.used.add(_IDEAL)
        return super().ideal_labels

    @property
    def n_relevant(self) -> pl.Expr:
        self.used.add(_N_RELEVANT)
        return super().n_relevant


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

    def top_discount(self, k: int) -> pl.Expr:
        if _DISCOUNT in self.available:
            return self._field(_DISCOUNT).head(k)
        return super().top_discount(k)

    @property
    def ideal_labels(self) -> pl.Expr:
        return self._field(_IDEAL) if _IDEAL in self.available else super().ideal_labels


def _shared_fields(threshold: float, used: set[str]) -> pl.Expr:
    """Build the struct of the encoded label and the quantities in ``used``, per position.

    Each is the expression of a plain :class:`Ranked`, so the values are the
    same. The rank is a field only when a statistic reads it itself: the
    precision terms and the discount compute it inline, which is cheaper than
    storing it and reading it back (``cum_count`` costs little).
    """
    plain = Ranked(threshold)
    quantities = {
        _RANK: plain.rank,
        _IDEAL: plain.ideal_labels,
        _TERMS: plain.precision_terms,
        _DISCOUNT: plain.discount,
    }
    fields = [pl.element().alias(_CODE)]
    fields += [expr.alias(name) for name, expr in quantities.items() if name in used]
    return pl.struct(fields)


@dataclass(frozen=True, eq=False)
class StagedRanked(SharedRanked):
    """A ``SharedRanked`` whose aggregates become fields of one struct per list.

    :meth:`aggregate` records its value under a field name, once per distinct
    expression, and returns a reference to that field; a statistic built with it
    is arithmetic over those fields, for ``struct.eval`` on :meth:`computed`.
    """

    recorded: dict[bytes, tuple[str, pl.Expr]] = field(default_factory=dict)

    def aggregate(self, value: pl.Expr) -> pl.Expr:
        key = value.meta.serialize()
        if key not in self.recorded:
            self.recorded[key] = (f"_aggregate_{len(self.recorded)}", value)
        return pl.field(self.recorded[key][0])

    def computed(self, listed: pl.Expr) -> pl.Expr:
        """The struct of every recorded aggregate, per ranked list in ``listed``.

        ``list.agg`` would evaluate each aggregate once per list. Instead, the
        group's list is wrapped in a list of one (``implode``) and each
        aggregate is evaluated on it by :func:`_per_list` inside one
        ``list.eval``, so that polars can run the reductions over every list at
        once.
        """
        fields = [_per_list(value).alias(name) for name, value in self.recorded.values()]
        return listed.implode().list.eval(pl.struct(fields)).list.first()


_REDUCTIONS = ("sum", "any", "arg_max", "max", "first")
"""Reductions that both ``Expr`` and ``Expr.list`` have, with the same meaning."""


def _per_list(value: pl.Expr) -> pl.Expr:
    """Evaluate the aggregate ``value``, written over ``pl.element()``, on a list element.

    When ``value`` is a reduction of a per-position expression (``hits.sum()``,
    ``hit.any()``, ``hit.arg_max()``...), it is computed as ``list.eval(hits)``
    then ``.list.sum()``: polars runs an elementwise ``list.eval`` and the list
    reduction over all lists at once, where ``list.agg`` makes a call per list
    (at 100,000 lists of 100, a count of hits in the top 10 takes 3.5 ms
    instead of 10.6 ms). The values are the same. Any other aggregate (a
    whole statistic that is not staged) is evaluated with ``list.agg``.
    """
    inputs = value.meta.pop()
    if len(inputs) == 1:
        (values,) = inputs
        for reduction in _REDUCTIONS:
            if value.meta.eq(getattr(values, reduction)()):
                reduced: pl.Expr = getattr(pl.element().list.eval(values).list, reduction)()
                return reduced
    # `first` keeps a constant (trec_eval's num_q) to one value: polars 2.1
    # broadcasts a literal to the list's length in a nested `list.agg`.
    return pl.element().list.agg(value.first())


def _probe(ranking: Ranking, statistics: Sequence[Callable[[Ranked], object]]) -> set[str]:
    """Which costly per-position quantities the ``statistics`` read, and whether R."""
    probe = _UsageProbe(ranking.threshold)
    for statistic in statistics:
        statistic(probe)
    return set(probe.used)


def _shared_vocabulary(ranking: Ranking, used: set[str]) -> tuple[pl.Expr, SharedRanked]:
    """The group's ranked list with the ``used`` quantities as fields, and how to read it."""
    used = used - {_N_RELEVANT}  # an aggregate, not a per-position quantity
    if not used:
        return ranking.ranked(), SharedRanked(ranking.threshold)
    listed = ranking.ranked().list.eval(_shared_fields(ranking.threshold, used))
    code = pl.element().struct.field(_CODE)
    return listed, SharedRanked(ranking.threshold, code=code, available=frozenset(used))


def _staged(vocabulary: SharedRanked) -> StagedRanked:
    return StagedRanked(vocabulary.threshold, vocabulary.code, available=vocabulary.available)


def aggregate_shared(ranking: Ranking, statistic: Callable[[Ranked], pl.Expr]) -> pl.Expr:
    """Evaluate ``statistic(ranked)`` on each group's ranking, sharing costly quantities.

    ``statistic`` must read the ranking only through :meth:`Ranked.aggregate`
    (the core statistics do). Equal in value to
    ``ranking.aggregate(statistic(ranking.in_list))``; it sorts each group once, as
    that does. The result is named like the relevance expression.
    """
    if not fast_paths_apply(ranking):
        return ranking.aggregate(statistic(ranking.in_list))
    listed, shared = _shared_vocabulary(ranking, _probe(ranking, [statistic]))
    staged = _staged(shared)
    value = statistic(staged).alias(_VALUE)
    return staged.computed(listed).struct.eval(value).struct.field(_VALUE).name.keep()


def aggregate_measures(
    ranking: Ranking, statistics: Sequence[tuple[str, Callable[[Ranked], pl.Expr], bool]]
) -> pl.Expr:
    """Evaluate named statistics on each group's ranking, as one struct from one sort.

    Each entry is ``(name, statistic, staged)``: a staged statistic reads the
    ranking only through :meth:`Ranked.aggregate`, and shares its aggregates with
    the others; any other statistic is computed whole, as one aggregate.
    """
    if not fast_paths_apply(ranking):
        vocabulary = ranking.in_list
        fields = [statistic(vocabulary).alias(name) for name, statistic, _ in statistics]
        return ranking.aggregate(pl.struct(fields))
    listed, shared = _shared_vocabulary(ranking, _probe(ranking, [s for _, s, _ in statistics]))
    staged = _staged(shared)
    fields = [
        (statistic(staged) if is_staged else staged.aggregate(statistic(shared))).alias(name)
        for name, statistic, is_staged in statistics
    ]
    return staged.computed(listed).struct.eval(fields)


@dataclass(frozen=True, eq=False)
class _TopRanked(StagedRanked):
    """A ``StagedRanked`` over a group's top ``k`` rows, after what they do not hold.

    The list is R (when the statistic reads it), then the group's ``k`` highest
    labels (when it reads the ideal ranking), then the codes of its top ``k``
    rows. The last two parts both hold ``min(k, group length)`` elements.
    """

    ideal: pl.Expr = field(default_factory=pl.element)

    @classmethod
    def over(cls, threshold: float, *, with_r: bool, with_ideal: bool) -> _TopRanked:
        """Read a list with R first when ``with_r``, then the ideal labels when ``with_ideal``."""
        start = 1 if with_r else 0
        length = (pl.len() - start) // 2 if with_ideal else pl.len() - start
        code = pl.element().slice(start + length if with_ideal else start)
        return cls(threshold, code=code, ideal=pl.element().slice(start, length))

    @property
    def n_relevant(self) -> pl.Expr:
        return self.aggregate(pl.element().first())

    @property
    def ideal_labels(self) -> pl.Expr:
        return self.ideal


def aggregate_top(ranking: Ranking, k: int, statistic: Callable[[Ranked], pl.Expr]) -> pl.Expr:
    """Evaluate ``statistic`` on each group's top ``k`` rows only (a partial sort).

    Valid for statistics that read nothing beyond rank ``k`` but R and the ideal
    ranking's top ``k``: precision, recall, F-beta, hit rate, AP, DCG and nDCG at
    ``k``. Both are computed on the unsorted group (R needs no sort, the ideal
    top ``k`` a sort of the labels alone) and put before the top ``k`` in one
    list: attaching them to the aggregates afterwards, with
    ``struct.with_fields``, costs polars a slow per-group path. Like
    :func:`aggregate_shared`, ``statistic`` must read the ranking only through
    :meth:`Ranked.aggregate`.
    """
    if not fast_paths_apply(ranking) or not ranking.by:
        return aggregate_shared(ranking, statistic)
    used = _probe(ranking, [statistic])
    parts = [ranking.order(ranking.encoded).head(k).implode()]
    if _IDEAL in used:
        parts.insert(0, ranking.label.sort(descending=True).head(k).implode())
    if _N_RELEVANT in used:
        parts.insert(0, (ranking.label > ranking.threshold).sum().cast(pl.Float64).implode())
    ranked = _TopRanked.over(
        ranking.threshold, with_r=_N_RELEVANT in used, with_ideal=_IDEAL in used
    )
    listed = parts[0] if len(parts) == 1 else pl.concat_list(parts)
    value = statistic(ranked).alias(_VALUE)
    return ranked.computed(listed).struct.eval(value).struct.field(_VALUE).name.keep()
