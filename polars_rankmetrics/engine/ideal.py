"""The ideal ranking's top ``k`` without a sort per list: a sorting network.

nDCG@k divides by the DCG of the ideal ranking, the labels sorted highest
first. Sorting each list (``sort`` inside ``list.eval``, or ``list.sort``) is a
call per list: about 0.35 us, 0.035 s at 100,000 lists, a third of what
nDCG@10 adds to the grouped sort on small queries. Only the positive labels
gain anything, and most queries have few of them, so for a cutoff ``k`` up to
:data:`NETWORK_INPUTS`:

- the positive labels of each list are kept (a filter polars runs over all
  lists at once) and its first :data:`NETWORK_INPUTS` are read as columns, 0.0
  past the list's end;
- a sorting network (layers of elementwise ``max``/``min`` over those columns)
  sorts them, highest first, for every list at once;
- the lists with more positive labels than the network has inputs, and only
  those, are sorted with ``list.sort`` (a null list costs nothing).

The ideal DCG is then the sum, in rank order, of each of the top ``k`` gains
divided by its discount: the same divisions of the same numbers as the sorted
path's, and the terms this leaves out (of the labels 0, past the positive ones)
are +0.0, which leave a sum in order unchanged.

For integer labels (:func:`counted_ideal_dcg`) no network is needed where every
label is at most :data:`COUNTED_LEVELS`: the ideal order's label at position i is
the number of levels v with more than i labels of v or above, so a count per
level (a list reduction over all lists at once) gives the sorted top k; the
other lists are sorted with ``list.sort``.

Polars eliminates no common subexpression inside ``list.eval``, so each layer is
one ``struct.with_fields`` over the previous one's struct, which it evaluates
once (a layer that read the previous layer's expressions would rebuild them,
twice per layer). Every step is elementwise over the lists, so polars runs it
over all lists at once: an ``implode`` would make it a call per list.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache, wraps

import polars as pl

from polars_rankmetrics.engine.ranked import log2_table

NETWORK_INPUTS = 10
"""How many positive labels the sorting network orders; more are sorted by ``list.sort``."""

SORTING_NETWORK: ContextVar[bool] = ContextVar("rankmetrics_sorting_network", default=True)
"""Whether the staged ideal DCG@k takes the network (else it sorts each list, same bits).

Polars takes about 10-15 ms to plan and start the network's ~80 expressions, more
than it saves below a few hundred thousand rows: ``evaluate()`` turns it off there
(:func:`polars_rankmetrics.evaluation.topics.topic_values`)."""

COMPARATORS: tuple[tuple[int, int], ...] = (
    (4, 9), (3, 8), (2, 7), (1, 6), (0, 5), (1, 4), (6, 9), (0, 3), (5, 8), (0, 2),
    (3, 6), (7, 9), (0, 1), (2, 4), (5, 7), (8, 9), (1, 2), (4, 6), (7, 8), (3, 5),
    (2, 5), (6, 8), (1, 3), (4, 7), (2, 3), (6, 7), (3, 4), (5, 6), (4, 5),
)  # fmt: skip
"""Waksman's 29 comparators for 10 inputs (Knuth, TAOCP vol. 3, 5.3.4): after each
``(a, b)`` puts the larger value at ``a``, the inputs are sorted highest first."""

_POSITIVE = "_rankmetrics_positive"
_COUNT = "_rankmetrics_count"
_LONG = "_rankmetrics_long"
_SUM = "_rankmetrics_ideal_dcg"


Gains = Callable[[pl.Expr], pl.Expr]
Build = Callable[[pl.Expr, int, Gains], pl.Expr]

_BUILT: dict[tuple[str, bytes, int, bytes], pl.Expr] = {}
_GAIN_PROBE = pl.col("_rankmetrics_gain_probe")


def _remembered(build: Build) -> Build:
    """``build`` answered from a table of what it built for the same input.

    The ideal DCG's two forms are a quarter of the Python time of building
    ``metrics()`` (2 ms of 4 ms for the six benchmark measures, paid at every call,
    as polars plans it). A form is a function of its list expression, ``k`` and
    what ``gains`` does to a label, which its expression on a probe column says;
    ``gains`` that cannot be serialised are built afresh.
    """

    @wraps(build)
    def remembered(listed: pl.Expr, k: int, gains: Gains) -> pl.Expr:
        try:
            key = (build.__name__, listed.meta.serialize(), k, gains(_GAIN_PROBE).meta.serialize())
        except Exception:  # any expression that does not serialise: built afresh
            return build(listed, k, gains)
        known = _BUILT.get(key)
        if known is None:
            known = build(listed, k, gains)
            if len(_BUILT) < 1_000:
                _BUILT[key] = known
        return known

    return remembered


@cache
def layers() -> tuple[tuple[tuple[int, int], ...], ...]:
    """:data:`COMPARATORS` grouped into layers of disjoint pairs, in order."""
    grouped: list[list[tuple[int, int]]] = []
    last: dict[int, int] = {}
    for a, b in COMPARATORS:
        level = max(last.get(a, -1), last.get(b, -1)) + 1
        if level == len(grouped):
            grouped.append([])
        grouped[level].append((a, b))
        last[a] = last[b] = level
    return tuple(tuple(layer) for layer in grouped)


def _column(i: int) -> str:
    return f"_rankmetrics_ideal_{i}"


def _inputs() -> list[pl.Expr]:
    """The network's inputs, the positive count and the long lists sorted."""
    positive = pl.field(_POSITIVE)
    count = positive.list.len()
    columns = [
        positive.list.get(i, null_on_oob=True).fill_null(0.0).alias(_column(i))
        for i in range(NETWORK_INPUTS)
    ]
    long = pl.when(count > NETWORK_INPUTS).then(positive).list.sort(descending=True)
    return [count.alias(_COUNT), long.alias(_LONG), *columns]


def _layer(comparators: tuple[tuple[int, int], ...]) -> list[pl.Expr]:
    """One layer of the network: the larger of each pair first (the other columns stay)."""
    out = []
    for a, b in comparators:
        pair = pl.field(_column(a)), pl.field(_column(b))
        out += [
            pl.max_horizontal(*pair).alias(_column(a)),
            pl.min_horizontal(*pair).alias(_column(b)),
        ]
    return out


def _ideal_sum(k: int, gains: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """The in-order sum of the top ``k`` gains over their discounts, from the sorted columns."""
    count = pl.field(_COUNT)
    # A true division by a column (polars multiplies by the reciprocal of a literal).
    width = count.cast(pl.Float64) * 0.0
    total: pl.Expr | None = None
    for i, discount in enumerate(log2_table(k)):
        label = (
            pl.when(count <= NETWORK_INPUTS)
            .then(pl.field(_column(i)))
            .otherwise(pl.field(_LONG).list.get(i, null_on_oob=True))
        )
        term = gains(label) / (width + discount)
        total = term if total is None else total + term
    assert total is not None  # k >= 1
    return total.alias(_SUM)


@_remembered
def network_ideal_dcg(labels: pl.Expr, k: int, gains: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """The ideal DCG@k of each list of labels (>= 0, Float64), for ``k <= NETWORK_INPUTS``.

    ``labels`` is a list per row, as ``pl.element()`` is where the staged
    aggregates are computed (:meth:`.staged.StagedRanked.computed`);
    ``gains`` maps the ideal order's labels to gains elementwise. The value is
    the same, bit for bit, as the in-order sum of ``gains(sorted labels)[:k]``
    divided by :func:`~.ranked.log2_table` (see the module docstring).
    """
    if not 1 <= k <= NETWORK_INPUTS:
        msg = f"the sorting network orders the top {NETWORK_INPUTS} at most, not {k}"
        raise ValueError(msg)
    positive = labels.list.eval(pl.element().filter(pl.element() > 0.0))
    chain = pl.struct(positive.alias(_POSITIVE)).struct.with_fields(_inputs())
    for layer in layers():
        chain = chain.struct.with_fields(_layer(layer))
    return chain.struct.with_fields(_ideal_sum(k, gains)).struct.field(_SUM)


def columns_dcg(codes: pl.Expr, k: int, gain_of: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """DCG@k of each list of ``codes``, ``k <= NETWORK_INPUTS``, from its first ``k`` as columns.

    The same bits as ``list.eval(gain_of(codes.head(k)) / discounts).list.sum()``,
    where the slice and the table cost a call per list: the position ``i`` is
    ``codes.list.get(i)``, its term the same true division (by a column), and
    the terms are added in rank order. Past a list's end the term is -0.0,
    which leaves any sum as it is (``x + -0.0 == x``, -0.0 included), and
    ``list.sum`` of an empty list is -0.0 too.
    """
    if not 1 <= k <= NETWORK_INPUTS:
        msg = f"the DCG by columns reads the top {NETWORK_INPUTS} at most, not {k}"
        raise ValueError(msg)
    # The +0.0 that makes each divisor a column, once per list (a field, not k copies).
    chain = pl.struct(codes.alias(_CODES), (codes.list.len().cast(pl.Float64) * 0.0).alias(_WIDTH))
    total: pl.Expr | None = None
    for i, discount in enumerate(log2_table(k)):
        code = pl.field(_CODES).list.get(i, null_on_oob=True).cast(pl.Float64)  # narrow codes too
        term = (gain_of(code) / (pl.field(_WIDTH) + discount)).fill_null(-0.0)
        total = term if total is None else total + term
    assert total is not None  # k >= 1
    return chain.struct.with_fields(total.alias(_SUM)).struct.field(_SUM)


COUNTED_LEVELS = 4
"""The highest integer label :func:`counted_ideal_dcg` counts (trec's 0-4 scales); a list
with a higher label is sorted instead."""

_CODES = "_rankmetrics_codes"
_FITS = "_rankmetrics_fits"
_WIDTH = "_rankmetrics_width"


def _at_least(level: int) -> str:
    return f"_rankmetrics_at_least_{level}"


@_remembered
def counted_ideal_dcg(codes: pl.Expr, k: int, gains: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """The ideal DCG@k of each list of codes of *integer* labels, by counting.

    ``codes`` is a list per row of :mod:`.ranked`'s codes (a label ``l >= 0``, or
    ``-1 - l`` for an unretrieved row), of whole numbers: the caller knows the
    relevance column's type. Where every label is at most :data:`COUNTED_LEVELS`,
    the ideal order's label at position ``i`` is the number of levels ``v >= 1``
    with more than ``i`` labels ``>= v``; the other lists are sorted (``list.sort``
    on their positive labels; the lists that fit are null there, which costs
    nothing). The labels are the same whole numbers as the sorted order's, and
    the terms are :func:`_ideal_sum`'s, added in the same order: the same bits as
    :func:`network_ideal_dcg`.
    """
    if not 1 <= k <= NETWORK_INPUTS:
        msg = f"the counted ideal orders the top {NETWORK_INPUTS} at most, not {k}"
        raise ValueError(msg)
    code = pl.element()
    levels = range(1, COUNTED_LEVELS + 2)
    # A label >= v is a code >= v (retrieved) or <= -1 - v (not retrieved).
    counts = [
        codes.list.eval((code >= v) | (code <= -1 - v)).list.sum().alias(_at_least(v))
        for v in levels
    ]
    chain = pl.struct(codes.alias(_CODES), *counts)
    fits = pl.field(_at_least(COUNTED_LEVELS + 1)) == 0
    label = pl.when(code >= 0).then(code).otherwise(-1.0 - code).cast(pl.Float64)
    long = (
        pl.when(fits)
        .then(None)
        .otherwise(pl.field(_CODES))
        .list.eval(label)
        .list.eval(code.filter(code > 0.0))
        .list.sort(descending=True)
    )
    width = pl.field(_at_least(1)).cast(pl.Float64) * 0.0  # a true division, as _ideal_sum's
    chain = chain.struct.with_fields(fits.alias(_FITS), long.alias(_LONG), width.alias(_WIDTH))
    width = pl.field(_WIDTH)  # computed once per list
    total: pl.Expr | None = None
    for i, discount in enumerate(log2_table(k)):
        counted = pl.sum_horizontal([pl.field(_at_least(v)) > i for v in levels[:-1]])
        sorted_label = pl.field(_LONG).list.get(i, null_on_oob=True).fill_null(0.0)
        ideal = pl.when(pl.field(_FITS)).then(counted.cast(pl.Float64)).otherwise(sorted_label)
        term = gains(ideal) / (width + discount)
        total = term if total is None else total + term
    assert total is not None  # k >= 1
    return chain.struct.with_fields(total.alias(_SUM)).struct.field(_SUM)


@dataclass(frozen=True)
class ByLabelType:
    """``pipe_with_dtype``'s choice: ``integer`` for integer or Boolean labels, else ``other``.

    A module-level class, so that the expression pickles without cloudpickle.
    """

    integer: pl.Expr
    other: pl.Expr

    def __call__(self, relevance: pl.Expr, dtype: pl.DataType) -> pl.Expr:
        """The form for labels of type ``dtype`` (a struct's first field: :func:`.narrow.typed`)."""
        label = dtype.fields[0].dtype if isinstance(dtype, pl.Struct) else dtype
        return self.integer if label.is_integer() or label == pl.Boolean else self.other
