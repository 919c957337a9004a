"""The fast paths over one ranking: shared per-position quantities, staging, top k.

Polars does not eliminate common subexpressions inside ``list.agg``, so a struct
of ten statistics would recompute the rank of each position, the running count
of hits and the ideal ordering once per statistic that reads them, and
cumulative operations cost a call per group. The paths here remove that
repetition without changing any value:

- :func:`probe` builds each statistic once against a recording vocabulary, to
  learn which costly per-position quantities it reads (rank, precision terms,
  discount, ideal order), whether it reads raw labels (then it needs the judged
  list), and whether it is *staged*: it reads the list only through per-list
  aggregates (:meth:`Ranked.aggregate <.ranked.Ranked.aggregate>`: a sum, a
  count, a first position) combined by arithmetic.
- :func:`staged_struct` computes the quantities read once per list with
  ``list.eval`` into a struct list (:class:`SharedRanked` reads them as
  fields); records each distinct aggregate of the staged statistics once
  (:class:`StagedRanked`), computes them all in one ``list.eval`` (each as a
  list reduction polars runs over all lists at once, see :func:`_per_list`),
  and runs the arithmetic after it on that struct. So R, the hits in the top 10
  or the ideal DCG are computed once per list however many statistics read
  them. A statistic that is not staged is computed whole, as one aggregate.
- :func:`top_value` ranks only the top ``k`` rows of each group
  (``sort_by(...).head(k)``, which polars runs as a partial sort), for a
  statistic that reads nothing beyond rank ``k`` but R and the ideal ranking's
  top ``k``, which are computed on the unsorted group and put first in the list.

The quantities are the same expressions as :class:`~.ranked.Ranked`'s, so the
values are bit for bit those of the plain path (one ``list.agg`` per statistic).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from polars_rankmetrics.engine.ideal import NETWORK_INPUTS, SORTING_NETWORK, network_ideal_dcg
from polars_rankmetrics.engine.ranked import (
    FIELDS,
    RAW,
    TOP_DISCOUNT_MAX_K,
    Ranked,
    Threshold,
    in_order,
)
from polars_rankmetrics.engine.ranking import Ranking
from polars_rankmetrics.engine.statistic import Bound, Statistic

# Per-position quantities computed once per list, in dependency order, and the
# property of `Ranked` each one replaces.
_RANK = "_rank"
_TERMS = "_precision_terms"
_DISCOUNT = "_discount"
_IDEAL = "_ideal_labels"
_CODE = "_code"
_VALUE = "_value"
# Not a per-position quantity: what the probe records when a statistic reads the
# ideal DCG (the staged paths compute it without the ideal order, see
# `StagedRanked.ideal_dcg`; the top k path reads the ideal order's top k).
_IDEAL_DCG = "_ideal_dcg"
# Not a per-position quantity: what the probe records when a statistic reads R.
# (Fields it reads, see `Ranked.field`, are recorded by their names.)
_N_RELEVANT = "_n_relevant"


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
        """The rank, read from its field where it was computed once per list."""
        return self._field(_RANK) if _RANK in self.available else super().rank

    @property
    def precision_terms(self) -> pl.Expr:
        """AP's summands, read from their field where they were computed once per list."""
        if _TERMS in self.available:
            return self._field(_TERMS)
        return super().precision_terms

    @property
    def log2_rank(self) -> pl.Expr:
        """``log2(rank + 1)``, read from its field where it was computed once per list."""
        return self._field(_DISCOUNT) if _DISCOUNT in self.available else super().log2_rank

    def top_log2_rank(self, k: int) -> pl.Expr:
        """The top ``k`` values of ``log2(rank + 1)``, from its field when there is one."""
        if _DISCOUNT in self.available:
            return self._field(_DISCOUNT).head(k)
        return super().top_log2_rank(k)

    @property
    def ideal_labels(self) -> pl.Expr:
        """The ideal order, read from its field where it was sorted once per list."""
        return self._field(_IDEAL) if _IDEAL in self.available else super().ideal_labels


@dataclass(frozen=True, eq=False)
class StagedRanked(SharedRanked):
    """A ``SharedRanked`` whose aggregates become fields of one struct per list.

    :meth:`aggregate` records its value under a field name, once per distinct
    expression, and returns a reference to that field; a statistic built with it
    is arithmetic over those fields, for ``struct.eval`` on :meth:`computed`.
    """

    recorded: dict[bytes, tuple[str, pl.Expr]] = field(default_factory=dict)

    @property
    def precision_terms(self) -> pl.Expr:
        """AP's summands, as a placeholder that :meth:`aggregate` sums over the hits only.

        A staged statistic reads them only in ``in_order(terms)`` or
        ``in_order(terms.head(k))`` (see :func:`_sparse_terms_sum`); the probe
        treats any other reading as unstaged (:func:`probe`).
        """
        return _TERMS_PLACEHOLDER

    def aggregate(self, value: pl.Expr) -> pl.Expr:
        """Record ``value`` (once per distinct expression); return its field."""
        value = self._sparse(value)
        key = value.meta.serialize()
        if key not in self.recorded:
            self.recorded[key] = (f"_aggregate_{len(self.recorded)}", value)
        return pl.field(self.recorded[key][0])

    def _sparse(self, value: pl.Expr) -> pl.Expr:
        """``value`` as a sum over the hits, where it is a sum of AP's summands in rank order."""
        summed = _summed_in_order(value)
        if summed is None or _TERMS_NAME not in summed.meta.root_names():
            return value
        if summed.meta.eq(_TERMS_PLACEHOLDER):
            return self._sparse_terms_sum(None)
        literals = [part for part in summed.meta.pop() if part.meta.is_literal()]
        if literals:
            k = pl.select(literals[0]).item()
            if isinstance(k, int) and summed.meta.eq(_TERMS_PLACEHOLDER.head(k)):
                return self._sparse_terms_sum(k)
        return value

    def _hits(self, k: int | None) -> pl.Expr:
        """1 (UInt32) at each hit of the list's first ``k`` positions, else 0: a list per list."""
        listed = pl.element() if k is None else pl.element().list.head(k)
        return listed.list.eval(self.top_hit(None).cast(pl.UInt32))

    def _sparse_terms_sum(self, k: int | None) -> pl.Expr:
        """``in_order(precision_terms.head(k))`` summed over the hits only, per list.

        At the j-th hit, at rank r, the running count of hits is j, so its term
        ``hit * found / rank`` is ``j / r``: the same division of the same two
        numbers. The terms elsewhere are +0.0, which leave a sum in order
        unchanged, so ``list.sum`` (which adds in order) over the hits gives the
        same bits; ``abs`` turns the empty sum (-0.0) into the dense one's +0.0
        (polars drops a ``+ 0.0``), and leaves the others, >= 0, as they are.
        Every step is a list operation that polars runs over all lists at once
        (``int_ranges``, list arithmetic, a filter), where the dense
        ``cum_sum``/``cum_count`` cost a call per list.
        """
        hits = self._hits(k)
        ranks = pl.int_ranges(1, hits.list.len() + 1, dtype=pl.UInt32) * hits
        hit_ranks = ranks.list.eval(pl.element().filter(pl.element() > 0)).cast(pl.List(pl.Float64))
        found = pl.int_ranges(1, hits.list.sum() + 1).cast(pl.List(pl.Float64))
        return (found / hit_ranks).list.sum().abs().alias(_PER_LIST)

    def ideal_dcg(self, k: int, gains: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """The ideal DCG@k, by a sorting network for ``k <= NETWORK_INPUTS`` (no sort per list).

        The same bits as the sorted path (:func:`.ideal.network_ideal_dcg`); a larger
        ``k`` reads the ideal order sorted once per list, and so does any ``k``
        where another statistic has it sorted already (nDCG over the whole ranking).
        """
        if k > NETWORK_INPUTS or _IDEAL in self.available or not SORTING_NETWORK.get():
            return super().ideal_dcg(k, gains)
        labels = pl.element().list.eval(self.label)
        return self.aggregate(network_ideal_dcg(labels, k, gains).alias(_PER_LIST))

    def divide(self, numerator: pl.Expr, denominator: float) -> pl.Expr:
        """A true division of the per-list values, by a per-list field (see ``Ranked.divide``)."""
        return numerator / self.aggregate(_constant(float(denominator)))

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


_CONSTANT = "_rankmetrics_constant"
_PER_LIST = "_rankmetrics_per_list"
"""The name of an aggregate already written as a reduction over each list (no rewriting)."""
_TERMS_NAME = "_rankmetrics_precision_terms"
_TERMS_PLACEHOLDER = pl.col(_TERMS_NAME)
"""What a staged statistic reads as AP's summands: it never reaches polars (see
``StagedRanked.precision_terms``)."""


def _constant(value: float) -> pl.Expr:
    """A number that the fast paths hold once per list (a divisor, see ``StagedRanked.divide``)."""
    return pl.lit(value, dtype=pl.Float64).alias(_CONSTANT)


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
    if value.meta.output_name(raise_if_undetermined=False) == _PER_LIST:
        return value
    if value.meta.output_name(raise_if_undetermined=False) == _CONSTANT:
        # The number once per list, by a list length (no call per list).
        return pl.element().list.len().cast(pl.Float64) * 0.0 + value
    inputs = value.meta.pop()
    if len(inputs) == 1:
        (values,) = inputs
        for reduction in _REDUCTIONS:
            if value.meta.eq(getattr(values, reduction)()):
                listed = pl.element().list.eval(values).list
                if reduction == "any":
                    # polars 2.1's `list.any()` is a `list.agg` (a call per list); a
                    # count of the true values is a list reduction: the same Booleans.
                    return listed.sum() > 0
                reduced: pl.Expr = getattr(listed, reduction)()
                return reduced
    summed = _summed_in_order(value)
    if summed is not None:
        # `list.sum` adds in list order, as `in_order` does (tests/test_fast_paths.py).
        return pl.element().list.eval(summed).list.sum()
    # `first` keeps a constant (trec_eval's num_q) to one value: polars 2.1
    # broadcasts a literal to the list's length in a nested `list.agg`.
    return pl.element().list.agg(value.first())


def _summed_in_order(value: pl.Expr) -> pl.Expr | None:
    """The values that ``value`` sums with :func:`~.ranked.in_order`, if it is such a sum."""
    for outer in value.meta.pop():
        inner = outer.meta.pop()
        if len(inner) == 1:
            summed = inner[0].meta.pop()
            if len(summed) == 1 and value.meta.eq(in_order(summed[0])):
                return summed[0]
    return None


# ------------------------------------------------------------------- probing


@dataclass(frozen=True, eq=False)
class _Probe(StagedRanked):
    """A ``StagedRanked`` that records which costly quantities are read, R, and fields."""

    used: set[str] = field(default_factory=set)

    @property
    def rank(self) -> pl.Expr:
        self.used.add(_RANK)
        return super().rank

    # The quantities below read the rank; a plain `Ranked` builds them, so that
    # the rank counts as used only where a statistic reads it itself.

    # `precision_terms` is StagedRanked's placeholder: it costs nothing where a
    # staged statistic sums it (see `probe`).

    @property
    def log2_rank(self) -> pl.Expr:
        self.used.add(_DISCOUNT)
        return Ranked(self.threshold).log2_rank

    def top_log2_rank(self, k: int) -> pl.Expr:
        # Above this cutoff (nDCG over the whole ranking) the discount is computed
        # once for every position, shared by DCG and ideal; up to it, off a table.
        if k > TOP_DISCOUNT_MAX_K:
            self.used.add(_DISCOUNT)
        return Ranked(self.threshold).top_log2_rank(k)

    @property
    def ideal_labels(self) -> pl.Expr:
        self.used.add(_IDEAL)
        return super().ideal_labels

    @property
    def n_relevant(self) -> pl.Expr:
        self.used.add(_N_RELEVANT)
        return super().n_relevant

    def ideal_dcg(self, k: int, gains: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        self.used.add(_IDEAL_DCG)
        return super().ideal_dcg(k, gains)

    def field(self, name: str) -> pl.Expr:
        self.used.add(name)
        return super().field(name)


def _reads_element(expr: pl.Expr) -> bool:
    """Whether ``expr`` reads ``pl.element()`` itself (outside recorded aggregates)."""
    if expr.meta.eq(pl.element()):
        return True
    return any(_reads_element(part) for part in expr.meta.pop())


@dataclass(frozen=True)
class Usage:
    """What a set of statistics reads, found by :func:`probe`.

    ``fields`` holds, per statistic, the fields it reads (:data:`.ranked.FIELDS`).
    """

    quantities: frozenset[str]
    staged: tuple[bool, ...]
    fields: tuple[frozenset[str], ...] = ()

    @property
    def read_fields(self) -> frozenset[str]:
        """Every field some statistic reads: then every one reads the list of fields."""
        return frozenset().union(*self.fields)

    @property
    def reads_raw(self) -> bool:
        """Whether a statistic reads raw labels."""
        return RAW in self.read_fields


def probe(
    statistics: Sequence[Bound], threshold: Threshold, fields: frozenset[str] = frozenset()
) -> Usage:
    """Build each statistic once against a recording vocabulary (see the module docstring).

    A statistic is staged when it records at least one aggregate and reads no
    list element outside them; a constant is not (it is computed whole).
    ``fields`` are the fields the ranking gives (:attr:`.Ranked.fields`).
    """
    used: set[str] = set()
    staged = []
    read = []
    for bound in statistics:
        one_used, is_staged = _probe_remembered(bound, bound.threshold or threshold, fields)
        used |= one_used
        read.append(frozenset(one_used & FIELDS.keys()))
        staged.append(is_staged)
    return Usage(frozenset(used), tuple(staged), tuple(read))


def _probe_one(
    bound: Bound, threshold: Threshold, fields: frozenset[str]
) -> tuple[frozenset[str], bool]:
    """What one statistic uses, and whether it is staged."""
    recorder = _Probe(threshold, fields=fields)
    value = bound.build(recorder)
    used = set(recorder.used)
    is_staged = bool(recorder.recorded) and not _reads_element(value)
    # AP's summands read otherwise than summed in order: computed whole, densely.
    dense_terms = [value, *(expr for _, expr in recorder.recorded.values())]
    if any(_TERMS_NAME in expr.meta.root_names() for expr in dense_terms):
        used.add(_TERMS)
        is_staged = False
    return frozenset(used), is_staged


_PROBED: dict[tuple[Any, ...], tuple[Statistic, frozenset[str], bool]] = {}
""":func:`_probe_one`'s answers by statistic (its identity: statistics are made once, at
import), parameters, threshold and fields. Building a statistic to probe it costs 0.1 to
3 ms, and ``all_trec`` probes about 100 at every call of the CLI or of ``evaluate``."""


def _probe_remembered(
    bound: Bound, threshold: Threshold, fields: frozenset[str]
) -> tuple[frozenset[str], bool]:
    """:func:`_probe_one`, answered from :data:`_PROBED` when the same statistic was probed."""
    try:
        statistic = (id(bound.statistic), bound.name, bound.no_relevant, bound.params)
        # With the network off, the ideal DCG reads the ideal order: another answer.
        key = (*statistic, threshold, fields, SORTING_NETWORK.get())
        hash(key)
    except TypeError:  # a parameter that cannot be hashed: probe it afresh
        return _probe_one(bound, threshold, fields)
    known = _PROBED.get(key)
    if known is not None and known[0] is bound.statistic:
        return known[1], known[2]
    used, is_staged = _probe_one(bound, threshold, fields)
    if len(_PROBED) < 10_000:
        _PROBED[key] = (bound.statistic, used, is_staged)
    return used, is_staged


# -------------------------------------------------------------- the paths


def _shared_fields(threshold: Threshold, used: frozenset[str]) -> pl.Expr:
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
        _DISCOUNT: plain.log2_rank,
    }
    fields = [pl.element().alias(_CODE)]
    fields += [expr.alias(name) for name, expr in quantities.items() if name in used]
    return pl.struct(fields)


def _shared_list(ranking: Ranking, used: frozenset[str]) -> tuple[pl.Expr, StagedRanked]:
    """The group's ranked list with the ``used`` quantities as fields, and how to read it."""
    used = used & {_RANK, _TERMS, _DISCOUNT, _IDEAL}
    if not used:
        return ranking.ranked(), StagedRanked(ranking.threshold)
    listed = ranking.ranked().list.eval(_shared_fields(ranking.threshold, used))
    code = pl.element().struct.field(_CODE)
    return listed, StagedRanked(ranking.threshold, code=code, available=used)


def _for(vocabulary: StagedRanked, threshold: Threshold | None) -> StagedRanked:
    """``vocabulary`` for a statistic with its own threshold (precision terms depend on it)."""
    if threshold is None or threshold == vocabulary.threshold:
        return vocabulary
    return replace(vocabulary, threshold=threshold, available=vocabulary.available - {_TERMS})


def staged_struct(ranking: Ranking, statistics: Sequence[Bound], usage: Usage) -> pl.Expr:
    """The struct of ``statistics`` over each group's ranking, by the shared and staged path.

    Staged statistics share their aggregates; any other is computed whole, as
    one aggregate. Valid when the ranking keeps one order for its ties (not
    ``'average'``) and no statistic reads raw labels.
    """
    listed, staged = _shared_list(ranking, usage.quantities)
    fields = []
    for bound, is_staged in zip(statistics, usage.staged, strict=True):
        vocabulary = _for(staged, bound.threshold)
        if is_staged:
            value = bound.build(vocabulary)
        else:
            whole = SharedRanked(vocabulary.threshold, vocabulary.code, available=staged.available)
            value = vocabulary.aggregate(bound.build(whole))
        fields.append(value.alias(bound.name))
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
    def over(cls, threshold: Threshold, *, with_r: bool, with_ideal: bool) -> _TopRanked:
        """Read a list with R first when ``with_r``, then the ideal labels when ``with_ideal``."""
        start = 1 if with_r else 0
        length = (pl.len() - start) // 2 if with_ideal else pl.len() - start
        code = pl.element().slice(start + length if with_ideal else start)
        return cls(threshold, code=code, ideal=pl.element().slice(start, length))

    @property
    def n_relevant(self) -> pl.Expr:
        return self.aggregate(pl.element().first())

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
    return staged.computed(listed).struct.eval(value).struct.field(_VALUE).name.keep()
