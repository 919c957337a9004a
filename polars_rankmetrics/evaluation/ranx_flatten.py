"""The compiled reader of :mod:`.ranx_bulk` (imported only for a large ranx object: needs numba).

Three passes, each one compiled loop: :func:`shape` measures the dict, :func:`fill`
copies its ids into numpy unicode arrays (a plain copy of ranx's fixed-width
keys, ``[unichr x N]``) and its values into an array, and :func:`utf8` encodes
the ids' code points as the data and offsets of an Arrow string array.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit


@njit(cache=True)
def shape(nested: Any) -> tuple[int, int, int]:  # pragma: no cover (compiled)
    """The number of entries, and the longest doc id and query id (at least 1)."""
    total = 0
    doc_width = 1
    query_width = 1
    for query in nested:
        query_width = max(query_width, len(query))
        inner = nested[query]
        total += len(inner)
        for doc in inner.keys():
            doc_width = max(doc_width, len(doc))
    return total, doc_width, query_width


@njit(cache=True)
def outer_shape(nested: Any) -> tuple[int, int]:  # pragma: no cover (compiled)
    """The number of entries and the longest query id (at least 1).

    :func:`shape` without its pass over the doc ids, for keys of a fixed width.
    """
    total = 0
    query_width = 1
    for query in nested:
        query_width = max(query_width, len(query))
        total += len(nested[query])
    return total, query_width


@njit(cache=True)
def fill(
    nested: Any,
    queries: Any,
    query_lengths: Any,
    sizes: Any,
    docs: Any,
    doc_lengths: Any,
    values: Any,
) -> None:  # pragma: no cover (compiled)
    """Each query id, its length and its number of entries; each doc id, its length, its value."""
    i = 0
    q = 0
    for query in nested:
        queries[q] = query
        query_lengths[q] = len(query)
        inner = nested[query]
        sizes[q] = len(inner)
        for doc, number in inner.items():
            docs[i] = doc
            doc_lengths[i] = len(doc)
            values[i] = number
            i += 1
        q += 1


@njit(cache=True)
def utf8(codes: Any, lengths: Any) -> tuple[Any, Any, bool]:  # pragma: no cover (compiled)
    """The UTF-8 bytes and the offsets of each row's first ``lengths`` code points.

    False where a code point is a lone surrogate (no UTF-8 for it). Ids are
    mostly ASCII: one pass writes them a byte each, and the first code point
    above 127 hands the whole array to :func:`utf8_wide`, which sizes the
    bytes first.
    """
    n = codes.shape[0]
    size = 0
    for i in range(n):
        size += lengths[i]
    data = np.empty(size, np.uint8)
    offsets = np.empty(n + 1, np.int64)
    offsets[0] = 0
    k = 0
    for i in range(n):
        for j in range(lengths[i]):
            c = codes[i, j]
            if c >= 0x80:
                return utf8_wide(codes, lengths)
            data[k] = c
            k += 1
        offsets[i + 1] = k
    return data, offsets, True


@njit(cache=True)
def utf8_wide(codes: Any, lengths: Any) -> tuple[Any, Any, bool]:  # pragma: no cover (compiled)
    """:func:`utf8` of ids with code points above 127: sized in a first pass, then written."""
    n = codes.shape[0]
    size = 0
    for i in range(n):
        for j in range(lengths[i]):
            c = codes[i, j]
            if 0xD800 <= c <= 0xDFFF:
                return np.empty(0, np.uint8), np.empty(0, np.int64), False
            size += 1 if c < 0x80 else 2 if c < 0x800 else 3 if c < 0x10000 else 4
    data = np.empty(size, np.uint8)
    offsets = np.empty(n + 1, np.int64)
    offsets[0] = 0
    k = 0
    for i in range(n):
        for j in range(lengths[i]):
            c = codes[i, j]
            if c < 0x80:
                data[k] = c
                k += 1
            elif c < 0x800:
                data[k] = 0xC0 | (c >> 6)
                data[k + 1] = 0x80 | (c & 0x3F)
                k += 2
            elif c < 0x10000:
                data[k] = 0xE0 | (c >> 12)
                data[k + 1] = 0x80 | ((c >> 6) & 0x3F)
                data[k + 2] = 0x80 | (c & 0x3F)
                k += 3
            else:
                data[k] = 0xF0 | (c >> 18)
                data[k + 1] = 0x80 | ((c >> 12) & 0x3F)
                data[k + 2] = 0x80 | ((c >> 6) & 0x3F)
                data[k + 3] = 0x80 | (c & 0x3F)
                k += 4
        offsets[i + 1] = k
    return data, offsets, True


@njit(cache=True)
def _greater(codes: Any, lengths: Any, a: int, b: int) -> bool:  # pragma: no cover (compiled)
    """Whether id ``a`` sorts after id ``b`` (code points; a prefix sorts first)."""
    shorter = min(lengths[a], lengths[b])
    for j in range(shorter):
        if codes[a, j] != codes[b, j]:
            return bool(codes[a, j] > codes[b, j])
    return bool(lengths[a] > lengths[b])


@njit(cache=True)
def _doc_descending(
    order: Any, lo: int, hi: int, codes: Any, lengths: Any, buffer: Any
) -> None:  # pragma: no cover (compiled)
    """Sort ``order[lo:hi]`` (row numbers of distinct ids) by id, descending: a merge sort."""
    width = 1
    while width < hi - lo:
        i = lo
        while i < hi:
            middle = min(i + width, hi)
            end = min(i + 2 * width, hi)
            a, b, k = i, middle, i
            while a < middle and b < end:
                if _greater(codes, lengths, order[b], order[a]):
                    buffer[k] = order[b]
                    b += 1
                else:
                    buffer[k] = order[a]
                    a += 1
                k += 1
            while a < middle:
                buffer[k] = order[a]
                a += 1
                k += 1
            while b < end:
                buffer[k] = order[b]
                b += 1
                k += 1
            i = end
        for j in range(lo, hi):
            order[j] = buffer[j]
        width *= 2


@njit(cache=True)
def trec_positions(
    values: Any, sizes: Any, codes: Any, lengths: Any
) -> tuple[Any, bool]:  # pragma: no cover (compiled)
    """Each row's place in trec_eval's order: by query, score descending, id descending.

    The rows of a query are contiguous (``sizes``); ranx keeps them sorted by
    score already (then only the runs of tied scores are sorted, by id). The
    ids compare by code point, which is the order of their UTF-8 bytes.
    Scores compare with ``==`` (``-0.0`` ties ``0.0``, as in polars' sort).
    False where a score is NaN.
    """
    n = values.shape[0]
    order = np.empty(n, np.int64)
    buffer = np.empty(n, np.int64)
    positions = np.empty(n, np.int64)
    start = 0
    for size in sizes:
        end = start + size
        ordered = True
        for i in range(start, end):
            if np.isnan(values[i]):
                return positions[:0], False
            if i > start and values[i - 1] < values[i]:
                ordered = False
            order[i] = i
        if not ordered:
            local = np.argsort(-values[start:end], kind="mergesort")
            for i in range(size):
                order[start + i] = start + local[i]
        i = start
        while i < end:
            j = i + 1
            while j < end and values[order[j]] == values[order[i]]:
                j += 1
            if j - i > 1:
                _doc_descending(order, i, j, codes, lengths, buffer)
            i = j
        for i in range(start, end):
            positions[order[i]] = i
        start = end
    return positions, True
