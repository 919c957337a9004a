"""The batched diversity measures for few distinct subtopics: a bit mask per row, read from Arrow.

:mod:`.diversity_batched` computes alpha-nDCG, nERR-IA and nNRBP (equal intent
weights, greedy ideal) for all ranked lists at once. Where the subtopics are
integers or strings with at most :data:`DENSE_BITS` distinct values, it computes
them here, with the same values bit for bit and with fewer, cheaper array passes
than the general path (:mod:`.diversity_flat`, :mod:`.diversity_greedy`):

- the lists are read through their Arrow buffers (offsets and flat values,
  without copying), not exploded by polars;
- each row's subtopics are one bit mask (the sum of its bits); a query's
  distinct subtopics ``S`` are the bits of the union of its rows' masks;
- the ranking's terms, ``(1/S · (1 - alpha)**c) · discount(rank)`` for each
  retrieved (row, subtopic) pair within the cutoff, in list order, are those of
  :func:`.diversity_batched._ranked_terms`; ``c``, the rows above that cover
  the subtopic, is a running count of each bit over the (lists × cutoff) table
  of the rows' masks;
- the greedy ideal runs on a (distinct masks × lists) table of how many
  documents each list has with each set of subtopics: at each rank, each
  set's gain (its subtopics' ``(1 - alpha)**c`` added in text order, as the
  Python ``sum`` of :func:`.diversity_ideal.greedy_gains`), the largest per
  list (the first largest: the sets are in decreasing order of their subtopic
  tuples, so it is the one Python's ``max`` keeps), one document out of it and
  its subtopics' counts up by one: a few array operations over the lists still
  ranking, longest greedy list first (:mod:`.diversity_dense_greedy`; with
  document ids, ties of gain go to the set whose largest remaining id is
  largest, then to the set met first).

``tests/test_diversity_batched.py`` compares the measures with their
expressions, bit for bit, on this path and on the general one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rankmetrics.engine.ranked import DOC
from polars_rankmetrics.metrics.diversity_dense_greedy import dense_ideal
from polars_rankmetrics.metrics.diversity_flat import _value_ranks, cleaned
from polars_rankmetrics.metrics.diversity_ideal import Discount

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Ints = npt.NDArray[np.int64]
    Floats = npt.NDArray[np.float64]
    Part = tuple[Ints, Floats, Ints, bool, Floats]

DENSE_BITS = 16
"""At most this many distinct subtopic values (ranks) in the column: a row's set is a mask."""

DENSE_BLOCK = 4096
"""Lists computed together (their tables stay in the processor's caches)."""

DENSE_SETS = 4
"""A block's (lists × distinct sets) table holds at most this many entries per row (+1,024)."""

DENSE_TABLE = 1 << 20
"""At most this many entries in a block's running counts of each subtopic (lists × cutoff)."""


@dataclass(frozen=True)
class Column:
    """A column of ranked lists as read from Arrow: offsets, codes, each pair's subtopic rank.

    ``text_of``: the rank by text of each subtopic rank (unused ranks last);
    ``doc_key``: each row's document id as a dense rank among the rows with a
    subtopic (null lowest; 0 for the others), or None without ids.
    """

    row_offsets: Ints
    code: Floats
    pair_offsets: Ints
    value_rank: Ints
    text_of: Ints
    n_values: int
    doc_key: Ints | None


@dataclass(frozen=True)
class Block:
    """The rows of a block of lists (offsets from the block's first row and pair).

    ``column``: each row's set of subtopics as a column of the ideal's table
    (``len(masks)`` for a row without subtopics); ``masks``: the set of each
    column, in decreasing order of subtopic tuples; ``text``: each column's
    subtopics (value ranks) in text order, padded with ``n_values``;
    ``doc_key``: see :class:`Column`.
    """

    row_offsets: Ints
    code: Floats
    pair_offsets: Ints
    value_rank: Ints
    n_values: int
    column: Ints
    masks: Ints
    text: Ints
    doc_key: Ints | None


def dense_parts(
    lists: pl.Series,
    field: str,
    tables: tuple[Floats, Floats],
    k: int | None,
    *,
    alpha: float,
    discount: Discount,
    beta: float,
    clean: bool = True,
) -> list[Part] | None:
    """``(S, terms, counts, all_inside, ideal)`` of each block of lists, or None.

    As :func:`.diversity_batched.normalised_values` computes them on the general
    path: each list's number of distinct subtopics, the terms of its sum in
    order and their number, whether no pair was left out, and the greedy
    ideal over ``S``. None where this path does not apply (null lists or
    rows, subtopics neither integers nor strings, more than
    :data:`DENSE_BITS` of them, or too many distinct sets). Lists with nulls or
    repeats inside a subtopic list are cleaned first
    (:func:`.diversity_flat.cleaned`).
    """
    column = _column(lists, field)
    if column is None or column.n_values > DENSE_BITS:
        if column is None and clean:  # nulls among the subtopics
            return _dense_cleaned(lists, field, tables, k, alpha, discount, beta)
        return None
    n_lists = len(column.row_offsets) - 1
    if not n_lists:
        return []
    # Blocks of lists, as many as a multiple of the threads, computed side by side (numpy
    # releases the GIL).
    size = DENSE_BLOCK
    threads = max(1, min(pl.thread_pool_size(), -(-n_lists // size)))
    n_blocks = -(-n_lists // size)
    size = max(1, -(-n_lists // (-(-n_blocks // threads) * threads)))

    def compute(start: int) -> Part | None:
        block = _block(column, start, min(start + size, n_lists))
        return None if block is None else _part(block, tables, k, alpha, discount, beta)

    starts = range(0, n_lists, size)
    try:
        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(threads) as pool:
                parts = list(pool.map(compute, starts))
        else:
            parts = [compute(start) for start in starts]
    except _Repeated:
        return _dense_cleaned(lists, field, tables, k, alpha, discount, beta) if clean else None
    if any(part is None for part in parts):  # too many distinct sets of subtopics
        return None
    return parts  # type: ignore[return-value]


class _Repeated(Exception):
    """A subtopic repeated in a row's list: the lists are cleaned first."""


def _dense_cleaned(
    lists: pl.Series,
    field: str,
    tables: tuple[Floats, Floats],
    k: int | None,
    alpha: float,
    discount: Discount,
    beta: float,
) -> list[Part] | None:
    """:func:`dense_parts` of the lists cleaned of nulls and repeats inside subtopic lists."""
    options: dict[str, Any] = {"alpha": alpha, "discount": discount, "beta": beta, "clean": False}
    return dense_parts(cleaned(lists, field), field, tables, k, **options)


def _column(lists: pl.Series, field: str) -> Column | None:
    """The :class:`Column` of the lists, or None (see :func:`_read`)."""
    import numpy as np

    read = _read(lists, field)
    if read is None:
        return None
    row_offsets, code, pair_offsets, values, doc = read
    if values.null_count:  # type: ignore[attr-defined]
        return None
    doc_key = None if doc is None else _doc_keys(pl.from_arrow(doc), pair_offsets)  # type: ignore[arg-type]
    value_rank, text_rank, n_values = _value_ranks(pl.from_arrow(values))  # type: ignore[arg-type]
    text_of = np.arange(n_values, dtype=np.int64)
    if text_rank is not value_rank and n_values <= DENSE_BITS:  # text and value orders differ
        text_of += n_values  # unused ranks last
        text_of[value_rank] = text_rank
    return Column(row_offsets, code, pair_offsets, value_rank, text_of, n_values, doc_key)


def _block(column: Column, start: int, stop: int) -> Block | None:
    """The :class:`Block` of the lists ``start`` to ``stop``, or None: too many sets.

    Raises :class:`_Repeated` where a subtopic repeats in a row's list.
    """
    import numpy as np

    first_row, last_row = int(column.row_offsets[start]), int(column.row_offsets[stop])
    pair_offsets = column.pair_offsets[first_row : last_row + 1]
    first_pair = int(pair_offsets[0])
    value_rank = column.value_rank[first_pair : int(pair_offsets[-1])]
    pair_offsets = pair_offsets - first_pair
    # Each row's set as the sum of its bits (differences of their running total), with
    # fewer bits set than subtopics where one repeats. In 32 bits while a row's sum fits
    # (the running total wraps around; the differences do not).
    pair_counts = np.diff(pair_offsets)
    wide = len(pair_counts) and int(pair_counts.max()) >= 1 << (31 - DENSE_BITS)
    bits = (np.int64(1) << np.arange(column.n_values)).astype(np.int64 if wide else np.uint32)
    running = np.zeros(len(value_rank) + 1, dtype=bits.dtype)
    np.cumsum(bits[value_rank], out=running[1:])
    row_mask = running[pair_offsets[1:]] - running[pair_offsets[:-1]]
    if np.any(np.bitwise_count(row_mask) < pair_counts):
        raise _Repeated
    n_values = column.n_values
    present = np.zeros(1 << n_values, dtype=bool)
    present[row_mask] = True
    present[0] = False
    masks = np.flatnonzero(present)
    if (stop - start) * len(masks) > DENSE_SETS * (len(row_mask) + 1024):
        return None
    text = _text_order(masks, column.text_of, n_values)
    # Columns by decreasing subtopic tuple (values compared as Python does, a prefix first).
    filled = text < n_values
    columns = np.lexsort(np.where(filled, text + 1, 0).T[::-1])[::-1]
    masks, text = masks[columns], text[columns]
    column_of = np.full(1 << n_values, len(masks), dtype=np.int64)
    column_of[masks] = np.arange(len(masks))
    return Block(
        row_offsets=column.row_offsets[start : stop + 1] - first_row,
        code=column.code[first_row:last_row],
        pair_offsets=pair_offsets,
        value_rank=value_rank,
        n_values=n_values,
        column=column_of[row_mask],
        masks=masks,
        text=text,
        doc_key=None if column.doc_key is None else column.doc_key[first_row:last_row],
    )


def _doc_keys(doc: pl.Series, pair_offsets: Ints) -> Ints:
    """Each row's id as a dense rank (null lowest), as ``diversity_greedy.doc_keys`` ranks them.

    Only the rows with a subtopic enter the greedy ideal, so only theirs are
    ranked (the others read 0). In the calling thread: polars is not called
    from the blocks' threads (its own pool may be waiting on them).
    """
    import numpy as np

    rows = np.flatnonzero(np.diff(pair_offsets) > 0)
    keys = np.zeros(len(doc), dtype=np.int64)
    keys[rows] = doc.gather(rows).rank("dense").fill_null(0).cast(pl.Int64).to_numpy()
    return keys


def _part(
    block: Block,
    tables: tuple[Floats, Floats],
    k: int | None,
    alpha: float,
    discount: Discount,
    beta: float,
) -> Part:
    """``(S, terms, counts, all_inside, ideal)`` of a block."""
    import numpy as np

    n_lists, n_masks = len(block.row_offsets) - 1, len(block.masks)
    row_counts = np.diff(block.row_offsets)
    row_list = np.repeat(np.arange(n_lists, dtype=np.int64), row_counts)
    key = row_list * (n_masks + 1) + block.column
    table = np.bincount(key, minlength=n_lists * (n_masks + 1)).reshape(n_lists, n_masks + 1)
    available = table[:, :n_masks]
    union = np.bitwise_or.reduce(np.where(available > 0, block.masks, 0), axis=1)
    n_subtopics = np.bitwise_count(union).astype(np.int64)
    ids = None if block.doc_key is None else (block.doc_key, block.column, row_list)
    ideal = dense_ideal(
        available, n_subtopics, block.text, block.n_values, k, alpha, discount, beta, ids
    )
    if not len(block.code):
        empty = np.zeros(0, dtype=np.float64)
        return n_subtopics, empty, np.zeros(n_lists, dtype=np.int64), True, ideal
    # The ranking's terms in parts whose tables (lists × cutoff × subtopics) stay small.
    size = max(1, DENSE_TABLE // (block.n_values * len(tables[1])))
    parts = [
        _terms(block, start, row_counts[start : start + size], n_subtopics, tables)
        for start in range(0, n_lists, size)
    ]
    terms = np.concatenate([part[0] for part in parts])
    counts = np.concatenate([part[1] for part in parts])
    return n_subtopics, terms, counts, len(terms) == int(block.pair_offsets[-1]), ideal


def _text_order(masks: Ints, text_of: Ints, n_values: int) -> Ints:
    """Each mask's subtopics (value ranks) in text order, padded with ``n_values``."""
    import numpy as np

    text_order = np.argsort(text_of, kind="stable")
    has = ((masks[:, None] >> text_order[None, :]) & 1).astype(bool)
    width = max(int(has.sum(axis=1).max()) if len(masks) else 1, 1)
    place = np.argsort(~has, axis=1, kind="stable")[:, :width]
    filled = np.take_along_axis(has, place, axis=1)
    return np.where(filled, text_order[place], n_values)


def _read(lists: pl.Series, field: str) -> tuple[Ints, Floats, Ints, object, object] | None:
    """The lists' row offsets, codes (NaN where null), pair offsets, subtopics, document ids.

    Views of the Arrow buffers (offsets from 0). None for null lists or rows,
    fields other than a code, the document ids and ``field``, a null subtopic list
    that is not empty in the buffers, or subtopics neither integers nor strings.
    """
    import numpy as np
    import pyarrow as pa  # type: ignore[import-untyped]

    array = lists.to_arrow()
    if array.null_count or not isinstance(array, (pa.ListArray, pa.LargeListArray)):
        return None
    row_offsets = array.offsets.to_numpy().astype(np.int64, copy=False)
    rows = array.values.slice(int(row_offsets[0]), int(row_offsets[-1] - row_offsets[0]))
    row_offsets = row_offsets - row_offsets[0] if row_offsets[0] else row_offsets
    if not isinstance(rows, pa.StructArray) or rows.null_count:
        return None
    names = [rows.type.field(i).name for i in range(rows.type.num_fields)]
    if names[1:] not in ([field], sorted([DOC, field])):
        return None
    children = dict(zip(names[1:], rows.flatten()[1:], strict=True))
    code_array, subtopics = rows.flatten()[0], children[field]
    if not (pa.types.is_integer(code_array.type) or pa.types.is_floating(code_array.type)):
        return None
    code = code_array.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
    if not isinstance(subtopics, (pa.ListArray, pa.LargeListArray)):
        return None
    kind = subtopics.type.value_type
    text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
    if not (pa.types.is_integer(kind) or text or pa.types.is_string_view(kind)):
        return None
    pair_offsets = subtopics.offsets.to_numpy().astype(np.int64, copy=False)
    values = subtopics.values.slice(int(pair_offsets[0]), int(pair_offsets[-1] - pair_offsets[0]))
    pair_offsets = pair_offsets - pair_offsets[0] if pair_offsets[0] else pair_offsets
    if subtopics.null_count:
        null = subtopics.is_null().to_numpy(zero_copy_only=False)
        if np.any(np.diff(pair_offsets)[null]):
            return None
    return row_offsets, code, pair_offsets, values, children.get(DOC)


def _terms(
    block: Block,
    start: int,
    row_counts: Ints,
    n_subtopics: Ints,
    tables: tuple[Floats, Floats],
) -> tuple[Floats, Ints]:
    """The ranking's terms of the block's lists from ``start`` in order, and their number.

    As many lists as ``row_counts`` (their lengths).
    """
    import numpy as np

    power, discounts = tables
    n_lists = len(row_counts)
    depth = len(discounts)  # min(k, the longest list of the column)
    first = block.row_offsets[start : start + n_lists]
    position = np.arange(depth, dtype=np.int64)
    in_list = position[None, :] < row_counts[:, None]
    # The rows within the cutoff (row 0 elsewhere, left out), retrieved.
    row = np.where(in_list, first[:, None] + position[None, :], 0)
    inside = in_list & (block.code[row] >= 0.0)
    pair_first = block.pair_offsets[row]
    pair_count = np.where(inside, block.pair_offsets[row + 1] - pair_first, 0)
    width = max(int(pair_count.max()), 1)
    # The pairs in list order: (list, position, place in the row's list).
    entry = np.flatnonzero(np.arange(width) < pair_count[:, :, None])
    at = entry // width
    value = block.value_rank[pair_first.ravel()[at] + entry % width]
    column = np.where(inside, block.column[row], len(block.masks))
    counted = _earlier(column, block.masks, block.n_values, at, value)
    pair_list = at // depth
    with np.errstate(divide="ignore"):
        per_subtopic = 1.0 / n_subtopics[start : start + n_lists].astype(np.float64)
    terms = (per_subtopic[pair_list] * power[counted]) * discounts[at % depth]
    counts = np.bincount(pair_list, minlength=n_lists)
    return terms, counts


def _earlier(column: Ints, masks: Ints, n_values: int, at: Ints, value: Ints) -> Ints:
    """Each pair's ``c``: the rows above it (within the cutoff, retrieved) covering its subtopic.

    ``column``: the (lists × cutoff) table of the rows' sets (``len(masks)``: none);
    ``at``: each pair's place in it; ``value``: its subtopic. The counts of all
    subtopics run together, packed in fields of an integer, while they fit.
    """
    import numpy as np

    n_lists, depth = column.shape
    field = max(depth.bit_length(), 1)  # a count is below depth
    bit = np.arange(n_values, dtype=np.int64)
    sets = np.append(masks, 0)
    if n_values * field <= 63:
        spread = (((sets[:, None] >> bit) & 1) << (field * bit)).sum(axis=1)
        row_spread = spread[column]
        running = np.cumsum(row_spread, axis=1) - row_spread
        counted: Ints = (running.ravel()[at] >> (field * value)) & ((1 << field) - 1)
        return counted
    covered = np.empty((n_values, n_lists, depth), dtype=np.int64)
    mask = sets[column]
    for one in range(n_values):
        has = (mask >> one) & 1
        covered[one] = np.cumsum(has, axis=1) - has
    counted = covered.ravel()[value * (n_lists * depth) + at]
    return counted
