"""The compiled reader of :mod:`.ranx_bulk` (imported only for a large ranx object: needs numba).

Three passes, each one compiled loop: :func:`shape` measures the dict, :func:`fill`
copies its ids into numpy unicode arrays (a plain copy of ranx's fixed-width
keys, ``[unichr x N]``) and its values into an array, and :func:`utf8` encodes
the ids' code points as the data and offsets of an Arrow string array.

For ``evaluate()`` of a ranx ``Qrels`` and ``Run``, :func:`joined` then joins
them per (query, document) without the doc ids' strings: each query's qrels
ids in a hash table of their code points, each run row looked up in it, the
rows written in trec_eval's order (:func:`trec_positions`).
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


@njit(cache=True)
def _hashes(codes: Any, lengths: Any) -> Any:  # pragma: no cover (compiled)
    """FNV-1a of each row's code points (equal ids hash alike, whatever the array's width).

    The high bits are mixed into the low ones (MurmurHash3's finaliser): a
    table slot is read from the low bits, which FNV leaves poor for ids that
    differ in their last characters. Non-negative int64 (numba types a mix of
    signed and unsigned 64-bit integers as float64).
    """
    n = codes.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        h = np.uint64(14695981039346656037)
        for j in range(lengths[i]):
            h = (h ^ np.uint64(codes[i, j])) * np.uint64(1099511628211)
        h = (h ^ (h >> np.uint64(33))) * np.uint64(0xFF51AFD7ED558CCD)
        out[i] = np.int64((h ^ (h >> np.uint64(33))) >> np.uint64(1))
    return out


@njit(cache=True)
def joined(
    run_sizes: Any,
    run_codes: Any,
    run_lengths: Any,
    scores: Any,
    positions: Any,
    qrels_sizes: Any,
    qrels_codes: Any,
    qrels_lengths: Any,
    labels: Any,
    qrels_of_run: Any,
) -> tuple[Any, Any, Any, Any, Any, Any]:  # pragma: no cover (compiled)
    """The full join of a run and qrels per (query, document), in trec_eval's order.

    ``qrels_of_run[r]``: the qrels query of run query ``r`` (-1: not judged;
    its rows are left out). A run row meets the qrels row of the same query
    with the same id (found in a hash table of the query's qrels ids, the ids
    compared whole on a hash match); the ids of a ranx dict are distinct, so
    one row at most. Rows come query by query (the run's judged queries, then
    the qrels queries the run lacks): the run's rows by ``positions`` (see
    :func:`trec_positions`), then the query's judged ids the run lacks, by id
    descending. Returns, per row: the qrels query, the score (NaN: not in the
    run), the label and the qrels row (-1: not judged), in the run, in the
    qrels.
    """
    n_run = run_codes.shape[0]
    n_qrels = qrels_codes.shape[0]
    run_hashes = _hashes(run_codes, run_lengths)
    hashes = _hashes(qrels_codes, qrels_lengths)
    qrels_start = np.zeros(len(qrels_sizes) + 1, np.int64)
    for q in range(len(qrels_sizes)):
        qrels_start[q + 1] = qrels_start[q] + qrels_sizes[q]
    match = np.full(n_run, -1, np.int64)
    matched = np.zeros(n_qrels, np.bool_)
    in_run = np.zeros(len(qrels_sizes), np.bool_)
    by_place = np.empty(n_run, np.int64)
    total = 0
    start = 0
    for r in range(len(run_sizes)):
        end = start + run_sizes[r]
        q = qrels_of_run[r]
        if q >= 0:
            in_run[q] = True
            total += end - start
            first, m = qrels_start[q], qrels_sizes[q]
            size = 2
            while size < 2 * m:
                size *= 2
            table = np.full(size, -1, np.int64)
            for k in range(first, first + m):
                slot = hashes[k] & (size - 1)
                while table[slot] >= 0:
                    slot = (slot + 1) & (size - 1)
                table[slot] = k
            for i in range(start, end):
                by_place[positions[i]] = i
                slot = run_hashes[i] & (size - 1)
                while table[slot] >= 0:
                    k = table[slot]
                    if hashes[k] == run_hashes[i] and run_lengths[i] == qrels_lengths[k]:
                        same = True
                        for j in range(run_lengths[i]):
                            if run_codes[i, j] != qrels_codes[k, j]:
                                same = False
                                break
                        if same:
                            match[i] = k
                            matched[k] = True
                            break
                    slot = (slot + 1) & (size - 1)
        start = end
    for k in range(n_qrels):
        if not matched[k]:
            total += 1
    group = np.empty(total, np.int64)
    score = np.empty(total, np.float64)
    label = np.zeros(total, np.int64)
    qrels_row = np.full(total, -1, np.int64)
    from_run = np.zeros(total, np.bool_)
    judged = np.zeros(total, np.bool_)
    unmatched = np.empty(n_qrels, np.int64)
    buffer = np.empty(n_qrels, np.int64)
    o = 0
    start = 0
    for step in range(len(run_sizes) + len(qrels_sizes)):
        if step < len(run_sizes):
            end = start + run_sizes[step]
            q = qrels_of_run[step]
            if q >= 0:
                for place in range(start, end):
                    i = by_place[place]
                    group[o], score[o], from_run[o] = q, scores[i], True
                    k = match[i]
                    if k >= 0:
                        label[o], qrels_row[o], judged[o] = labels[k], k, True
                    o += 1
            start = end
            if q < 0:
                continue
        else:
            q = step - len(run_sizes)
            if in_run[q]:
                continue
        n = 0
        for k in range(qrels_start[q], qrels_start[q + 1]):
            if not matched[k]:
                unmatched[n] = k
                n += 1
        _doc_descending(unmatched, 0, n, qrels_codes, qrels_lengths, buffer)
        for j in range(n):
            k = unmatched[j]
            group[o], score[o], label[o], qrels_row[o], judged[o] = q, np.nan, labels[k], k, True
            o += 1
    return group, score, label, qrels_row, from_run, judged
