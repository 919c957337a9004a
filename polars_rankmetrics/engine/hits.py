"""The hits of each ranked list, computed once for every count and AP sum that reads them.

Polars shares no subexpression inside ``list.eval``, so two staged aggregates
that read the hits (P@10's count of hits in the top 10, AP's sum over the hits,
AP@10's sum over the hits in the top 10, R@100's count) would each build the
hit list and its ranks again. :func:`shared_hits` builds one struct per list
instead, in two ``struct.with_fields`` layers (each evaluated once, see
:mod:`.ideal`):

1. ``hits``: 1 (UInt32) at each hit, else 0;
2. the count of hits in the first ``k`` positions for each ``k`` read
   (``hits.list.head(k).list.sum()``), and AP's terms ``j / r_j`` at the j-th
   hit, at rank ``r_j``, one per hit (``int_ranges``, a filter);
3. AP's sum (``terms.list.sum()``) and AP@k's sum: the sum of the first
   ``count_k`` terms, which are the terms of the hits ranked ``<= k``.

Each value is computed by the same operations on the same numbers as the
unshared aggregates of :class:`.staged.StagedRanked` (AP@k's terms are the first
terms of AP's, added in the same order), so the bits are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal

import polars as pl

from polars_rankmetrics.engine.expressions import literal_value

HitsRead = Literal["count", "any", "ap"]
"""What an aggregate reads from the hits: a count, whether there is one, AP's sum."""

HITS = "_rankmetrics_hits"
TERMS = "_rankmetrics_terms"


def count_field(k: int | None) -> str:
    """The field of the count of hits in the first ``k`` positions (all with ``None``)."""
    return "_rankmetrics_hits_in_all" if k is None else f"_rankmetrics_hits_in_{k}"


def ap_field(k: int | None) -> str:
    """The field of AP's sum over the hits in the first ``k`` positions (all with ``None``)."""
    return "_rankmetrics_ap_sum" if k is None else f"_rankmetrics_ap_sum_{k}"


def ap_terms(hits: pl.Expr) -> pl.Expr:
    """AP's terms ``j / r_j`` over the hits only, in rank order, from a list of 0/1 hits.

    At the j-th hit, at rank r, the running count of hits is j: the dense term
    ``hit * found / rank`` is the same division of the same two numbers.
    """
    ranks = pl.int_ranges(1, hits.list.len() + 1, dtype=pl.UInt32) * hits
    hit_ranks = ranks.list.eval(pl.element().filter(pl.element() > 0)).cast(pl.List(pl.Float64))
    found = pl.int_ranges(1, hits.list.sum() + 1).cast(pl.List(pl.Float64))
    return found / hit_ranks


def terms_sum(terms: pl.Expr) -> pl.Expr:
    """The in-order sum of AP's terms, read where a statistic sums ``precision_terms``.

    It equals the dense ``in_order(precision_terms)`` bit for bit: at the j-th
    hit, at rank r, the running count of hits is j, so the dense term ``hit *
    found / rank`` is ``j / r``, the same division of the same two numbers; the
    terms elsewhere are +0.0, which leave a sum in order unchanged, and
    ``list.sum`` adds in order. ``abs`` turns the empty sum (-0.0) into the
    dense one's +0.0 (polars drops a ``+ 0.0``) and leaves the others (>= 0) as
    they are. Every step is a list operation that polars runs over all lists at
    once (``int_ranges``, list arithmetic, a filter), where the dense
    ``cum_sum``/``cum_count`` cost a call per list.
    """
    return terms.list.sum().abs()


def shared_hits(hits: pl.Expr, counts: Iterable[int | None], sums: Iterable[int | None]) -> pl.Expr:
    """The struct of the hit ``counts`` and AP ``sums`` read, per list of 0/1 ``hits``.

    ``counts`` and ``sums`` hold cutoffs (``None``: the whole list); the fields
    are named by :func:`count_field` and :func:`ap_field`.
    """
    sums = sorted(set(sums), key=lambda k: -1 if k is None else k)
    needed = set(counts) | {k for k in sums if k is not None}
    listed = pl.field(HITS)
    first = [
        (listed.list.sum() if k is None else listed.list.head(k).list.sum())
        .cast(pl.UInt32)
        .alias(count_field(k))
        for k in sorted(needed, key=lambda k: -1 if k is None else k)
    ]
    chain = pl.struct(hits.alias(HITS))
    if sums:
        first.append(ap_terms(listed).alias(TERMS))
    chain = chain.struct.with_fields(first)
    if sums:
        terms = pl.field(TERMS)
        second = [
            terms_sum(terms if k is None else terms.list.head(pl.field(count_field(k)))).alias(
                ap_field(k)
            )
            for k in sums
        ]
        chain = chain.struct.with_fields(second)
    return chain


def read_shared(shared: pl.Expr, kind: HitsRead, k: int | None) -> pl.Expr:
    """What an aggregate of ``kind`` to cutoff ``k`` reads from the ``shared`` struct."""
    if kind == "ap":
        return shared.struct.field(ap_field(k))
    count = shared.struct.field(count_field(k))
    return count > 0 if kind == "any" else count


def hits_read(
    value: pl.Expr, top_hit: Callable[[int | None], pl.Expr]
) -> tuple[HitsRead, int | None] | None:
    """``('count', k)`` for ``top_hit(k).sum()``, ``('any', k)`` for ``.any()``, else None."""
    inputs = value.meta.pop()
    if len(inputs) != 1:
        return None
    (hits,) = inputs
    # Only a sum or an any of one input can be a hit count (checked before
    # the cutoffs are read and each candidate built: most aggregates are not).
    if not (value.meta.eq(hits.sum()) or value.meta.eq(hits.any())):
        return None
    cutoffs: list[int | None] = [None]
    for part in hits.meta.pop():
        cutoffs += [literal_value(sub) for sub in part.meta.pop() if sub.meta.is_literal()]
    for k in cutoffs:
        if k is None or (isinstance(k, int) and not isinstance(k, bool)):
            top = top_hit(k)
            if value.meta.eq(top.sum()):
                return "count", k
            if value.meta.eq(top.any()):
                return "any", k
    return None
