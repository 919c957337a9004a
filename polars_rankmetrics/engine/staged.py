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
  list reduction polars runs over all lists at once, see :func:`.per_list.per_list`),
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

from polars_rankmetrics.engine.expressions import literal_value, reads_element
from polars_rankmetrics.engine.hits import (
    HitsRead,
    ap_terms,
    hits_read,
    read_shared,
    shared_hits,
    terms_sum,
)
from polars_rankmetrics.engine.ideal import (
    NETWORK_INPUTS,
    SORTING_NETWORK,
    ByLabelType,
    columns_dcg,
    counted_ideal_dcg,
    network_ideal_dcg,
)
from polars_rankmetrics.engine.narrow import all_safe, narrow_list, typed
from polars_rankmetrics.engine.per_list import (
    PER_LIST,
    constant,
    linear_gain,
    per_list,
    running_at,
    summed_in_order,
)
from polars_rankmetrics.engine.ranked import FIELDS, RAW, TOP_DISCOUNT_MAX_K, Ranked, Threshold
from polars_rankmetrics.engine.ranking import Ranking
from polars_rankmetrics.engine.statistic import Bound, Statistic

# Per-position quantities computed once per list, in dependency order, and the
# property of `Ranked` each one replaces.
_RANK = "_rank"
_TERMS = "_precision_terms"
_DISCOUNT = "_discount"
_IDEAL = "_ideal_labels"
_RUNNING_DCG = "_running_dcg"
_RUNNING_IDEAL = "_running_ideal_dcg"
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

    @property
    def running_dcg(self) -> pl.Expr:
        """DCG to each rank, read from its field where it was computed once per list."""
        if _RUNNING_DCG in self.available:
            return self._field(_RUNNING_DCG)
        return super().running_dcg

    @property
    def running_ideal_dcg(self) -> pl.Expr:
        """The ideal DCG to each rank, read from its field where it was computed once per list."""
        if _RUNNING_IDEAL in self.available:
            return self._field(_RUNNING_IDEAL)
        return super().running_ideal_dcg


@dataclass(frozen=True, eq=False)
class StagedRanked(SharedRanked):
    """A ``SharedRanked`` whose aggregates become fields of one struct per list.

    :meth:`aggregate` records its value under a field name, once per distinct
    expression, and returns a reference to that field; a statistic built with it
    is arithmetic over those fields, for ``struct.eval`` on :meth:`computed`.
    """

    recorded: dict[bytes, tuple[str, pl.Expr]] = field(default_factory=dict)
    reads_hits: dict[str, tuple[Threshold, HitsRead, int | None]] = field(default_factory=dict)
    """The recorded aggregates that read the hits, by field name: the threshold, what they
    read (a count, whether there is one, AP's sum) and to which cutoff (see :meth:`computed`)."""
    integer_forms: dict[str, pl.Expr] = field(default_factory=dict)
    """Recorded aggregates (by field name) with a cheaper form for integer labels."""
    r_fields: dict[Threshold, pl.Expr] = field(default_factory=dict)

    @property
    def n_relevant(self) -> pl.Expr:
        """R's field, recorded once per threshold (most statistics read R; ~0.1 ms each)."""
        if self.threshold not in self.r_fields:
            self.r_fields[self.threshold] = super().n_relevant
        return self.r_fields[self.threshold]

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
        value, read = self._sparse(value)
        key = value.meta.serialize()
        known = self.recorded.get(key)
        if known is None:
            name = f"_aggregate_{len(self.recorded)}"
            self.recorded[key] = (name, value)
            # What it reads of the hits, found once per distinct aggregate (the same
            # expression reads the same): 81 of the default measures' 192 calls repeat one.
            read = read or self._hits_read(value)
            if read is not None:
                self.reads_hits[name] = (self.threshold, *read)
        else:
            name = known[0]
        return pl.field(name)

    def _sparse(self, value: pl.Expr) -> tuple[pl.Expr, tuple[HitsRead, int | None] | None]:
        """``value`` as a sum over the hits, where it is a sum of AP's summands in rank order."""
        summed = summed_in_order(value)
        if summed is None or _TERMS_NAME not in summed.meta.root_names():
            return value, None
        if summed.meta.eq(_TERMS_PLACEHOLDER):
            return self._sparse_terms_sum(None), ("ap", None)
        literals = [part for part in summed.meta.pop() if part.meta.is_literal()]
        if literals:
            k = literal_value(literals[0])
            if isinstance(k, int) and summed.meta.eq(_TERMS_PLACEHOLDER.head(k)):
                return self._sparse_terms_sum(k), ("ap", k)
        return value, None

    def _hits_read(self, value: pl.Expr) -> tuple[HitsRead, int | None] | None:
        """``('count', k)`` for ``top_hit(k).sum()``, ``('any', k)`` for ``.any()``, else None."""
        return hits_read(value, self.top_hit)

    def _hits(self, k: int | None) -> pl.Expr:
        """1 (UInt32) at each hit of the list's first ``k`` positions, else 0: a list per list."""
        listed = pl.element() if k is None else pl.element().list.head(k)
        return listed.list.eval(self.top_hit(None).cast(pl.UInt32))

    def best_precision_from_hits(self) -> pl.Expr:
        """The same from AP's terms ``j / r_j`` (the same divisions): list operations, no rank."""
        best = pl.element().reverse().cum_max().reverse()
        return self.aggregate(ap_terms(self._hits(None)).list.eval(best).alias(PER_LIST))

    def _sparse_terms_sum(self, k: int | None) -> pl.Expr:
        """``in_order(precision_terms.head(k))`` summed over the hits only, per list.

        The same bits as the dense sum, by list operations only (see :func:`.hits.terms_sum`).
        """
        return terms_sum(ap_terms(self._hits(k))).alias(PER_LIST)

    def top_dcg(self, k: int, gain_of: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """DCG@k: the running DCG at rank k where it is a field (linear gains), else off the codes.

        The first ``k`` codes as columns for ``k <= NETWORK_INPUTS`` (:func:`.ideal.columns_dcg`),
        else the list's sum: the same bits each way (see :func:`.per_list.running_at`).
        """
        if _RUNNING_DCG in self.available and linear_gain(gain_of, clipped=True):
            return self.aggregate(running_at(_RUNNING_DCG, k))
        if k > NETWORK_INPUTS or not self.code.meta.eq(pl.element()):
            return super().top_dcg(k, gain_of)
        return self.aggregate(columns_dcg(pl.element(), k, gain_of).alias(PER_LIST))

    def ideal_dcg(self, k: int, gains: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """The ideal DCG@k, by a sorting network for ``k <= NETWORK_INPUTS`` (no sort per list).

        The same bits as the sorted path (:func:`.ideal.network_ideal_dcg`); a larger
        ``k`` reads the ideal order sorted once per list, and so does any ``k``
        where another statistic has it sorted already (nDCG over the whole ranking).
        """
        if _RUNNING_IDEAL in self.available and linear_gain(gains, clipped=False):
            return self.aggregate(running_at(_RUNNING_IDEAL, k))
        if k > NETWORK_INPUTS or _IDEAL in self.available or not SORTING_NETWORK.get():
            return super().ideal_dcg(k, gains)
        labels = pl.element().list.eval(self.label)
        value = network_ideal_dcg(labels, k, gains).alias(PER_LIST)
        recorded = self.aggregate(value)
        codes = (
            pl.element() if self.code.meta.eq(pl.element()) else pl.element().list.eval(self.code)
        )
        name = self.recorded[value.meta.serialize()][0]
        self.integer_forms[name] = counted_ideal_dcg(codes, k, gains).alias(PER_LIST)
        return recorded

    def divide(self, numerator: pl.Expr, denominator: float) -> pl.Expr:
        """A true division of the per-list values, by a per-list field (see ``Ranked.divide``)."""
        return numerator / self.aggregate(constant(float(denominator)))

    def computed(
        self,
        listed: pl.Expr,
        relevance: pl.Expr | None = None,
        narrow: pl.Expr | None = None,
    ) -> pl.Expr:
        """The struct of every recorded aggregate, per ranked list in ``listed``.

        The group's list is wrapped in a list of one (``implode``) and each aggregate
        evaluated on it by :func:`.per_list.per_list` in one ``list.eval``: polars runs
        the reductions over every list at once (``list.agg``: a call per list). For
        integer labels (the type of ``relevance`` picks the form when the plan is built;
        :data:`INTEGER_LABELS` forces one) the cheaper forms (the ideal DCG by counting)
        read ``narrow``, the codes in their own type, where all allow it (:mod:`.narrow`).
        """
        other = self._per_lists(listed, {})
        if relevance is None or INTEGER_LABELS is False:
            return other
        by = relevance if narrow is None else typed(relevance, narrow)
        if narrow is not None and not all_safe(self, self.recorded.values(), set(self.reads_hits)):
            narrow = None
        if not self.integer_forms and narrow is None:
            return other
        integer = self._per_lists(listed if narrow is None else narrow, self.integer_forms)
        if INTEGER_LABELS:
            return integer
        return by.pipe_with_dtype(ByLabelType(integer, other))

    def _per_lists(self, listed: pl.Expr, forms: dict[str, pl.Expr]) -> pl.Expr:
        """:meth:`computed` with the aggregates of ``forms`` in place of the recorded ones."""
        shared = self._shared_reads()
        fields = [
            per_list(forms.get(name, value)).alias(name)
            for name, value in self.recorded.values()
            if name not in shared
        ]
        if not shared:
            return listed.implode().list.eval(pl.struct(fields)).list.first()
        counts = {k for kind, k in shared.values() if kind != "ap"}
        sums = {k for kind, k in shared.values() if kind == "ap"}
        fields.append(shared_hits(self._hits(None), counts, sums).alias(_SHARED))
        reads = [
            read_shared(pl.field(_SHARED), kind, k).alias(name)
            for name, (kind, k) in shared.items()
        ]
        each_list = pl.struct(fields).struct.with_fields(reads)
        return listed.implode().list.eval(each_list).list.first()

    def _shared_reads(self) -> dict[str, tuple[HitsRead, int | None]]:
        """The aggregates that read this threshold's hits, when there are two or more.

        They are computed from one :func:`.hits.shared_hits` struct (the hits, their
        counts and AP's terms once per list) instead of each on its own.
        """
        shared = {
            name: (kind, k)
            for name, (threshold, kind, k) in self.reads_hits.items()
            if threshold == self.threshold
        }
        return shared if self.shares_hits and len(shared) > 1 else {}

    @property
    def shares_hits(self) -> bool:
        """Whether :meth:`computed` may share the hits (the top k path reads a cut list)."""
        return True


INTEGER_LABELS: bool | None = None
"""Which form of the aggregates :meth:`StagedRanked.computed` builds: ``None`` picks by
the relevance column's type when the plan is built (the integer forms for integer and
Boolean labels); tests and ``benchmarks.profile_metrics`` force one (``True`` only on
integer labels: the integer forms read whole numbers)."""
_SHARED = "_rankmetrics_shared_hits"
_TERMS_NAME = "_rankmetrics_precision_terms"
_TERMS_PLACEHOLDER = pl.col(_TERMS_NAME)
"""What a staged statistic reads as AP's summands: it never reaches polars (see
``StagedRanked.precision_terms``)."""


# ------------------------------------------------------------------- probing


@dataclass(frozen=True, eq=False)
class _Probe(StagedRanked):
    """A ``StagedRanked`` that records which costly quantities are read, R, and fields."""

    used: set[str] = field(default_factory=set)

    def _hits_read(self, value: pl.Expr) -> tuple[HitsRead, int | None] | None:
        # Which hits an aggregate reads matters to the build only (40 µs each).
        return None

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
    def running_dcg(self) -> pl.Expr:
        self.used.add(_RUNNING_DCG)
        return Ranked(self.threshold).running_dcg

    @property
    def running_ideal_dcg(self) -> pl.Expr:
        self.used.add(_RUNNING_IDEAL)
        return Ranked(self.threshold).running_ideal_dcg

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
    is_staged = bool(recorder.recorded) and not reads_element(value)
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
    # Built only where used: the discount's table of log2 values costs milliseconds.
    quantities: dict[str, Callable[[], pl.Expr]] = {
        _RANK: lambda: plain.rank,
        _IDEAL: lambda: plain.ideal_labels,
        _TERMS: lambda: plain.precision_terms,
        _DISCOUNT: lambda: plain.log2_rank,
        _RUNNING_DCG: lambda: plain.running_dcg,
        _RUNNING_IDEAL: lambda: plain.running_ideal_dcg,
    }
    fields = [pl.element().alias(_CODE)]
    fields += [build().alias(name) for name, build in quantities.items() if name in used]
    return pl.struct(fields)


def _shared_list(
    ranking: Ranking, used: frozenset[str], ranked: pl.Expr | None = None
) -> tuple[pl.Expr, StagedRanked]:
    """The group's ranked list with the ``used`` quantities as fields, and how to read it.

    ``ranked`` is the ranked list when it was sorted already (:meth:`.Ranking.ranked`'s).
    """
    ranked = ranking.ranked() if ranked is None else ranked
    used = used & {_RANK, _TERMS, _DISCOUNT, _IDEAL, _RUNNING_DCG, _RUNNING_IDEAL}
    if not used:
        return ranked, StagedRanked(ranking.threshold)
    listed = ranked.list.eval(_shared_fields(ranking.threshold, used))
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
    aggregates, fields = staged_parts(ranking, statistics, usage)
    return aggregates.struct.eval(fields)


def staged_parts(
    ranking: Ranking,
    statistics: Sequence[Bound],
    usage: Usage,
    ranked: pl.Expr | None = None,
) -> tuple[pl.Expr, list[pl.Expr]]:
    """:func:`staged_struct` in two parts: the struct of the aggregates, and the statistics.

    The statistics are expressions over the aggregates' fields (``pl.field``), for
    ``struct.eval`` on the first part. ``ranked`` is the ranked list where it was sorted
    already (see :func:`_shared_list`).
    """
    listed, staged = _shared_list(ranking, usage.quantities, ranked)
    narrow = narrow_list(ranking) if ranked is None and not staged.available else None
    fields = []
    for bound, is_staged in zip(statistics, usage.staged, strict=True):
        vocabulary = _for(staged, bound.threshold)
        if is_staged:
            value = bound.build(vocabulary)
        else:
            whole = SharedRanked(vocabulary.threshold, vocabulary.code, available=staged.available)
            value = vocabulary.aggregate(bound.build(whole))
        fields.append(value.alias(bound.name))
    return staged.computed(listed, ranking.relevance, narrow), fields
