"""ndeval's greedy ideal for many queries at once (numpy over all queries together).

:func:`greedy_values` gives, for each list of a column, what
:func:`.diversity_ideal.ideal_value` gives for one list with
``ideal='greedy'``, bit for bit: the same products, sums and divisions in the
same order. Documents with the same subtopics are interchangeable, as in
:func:`.diversity_ideal.greedy_gains`, so the greedy list is built over *pools*
(one per distinct set of subtopics of a query, holding its documents' tie-break
keys), and each rank of the greedy list is a few array operations over the
pools of every query still ranking:

- every pool's gain, ``sum_j w_j (1 - alpha)**c_j`` over its subtopics in the
  order of :func:`.diversity_ideal._documents` (sorted by their text), added
  one subtopic at a time as the Python ``sum`` does;
- the pool of largest gain, ties to the largest key (its largest remaining
  document id, or without ids its subtopic tuple), then to the pool met first;
- one document leaves that pool, and the counts of its subtopics go up by one.

The queries are ordered by the length of their greedy list, longest first, so
that at each rank the queries still ranking are a prefix of the arrays. The
ideal's value is ``sum_r discount(r) · gain_r`` added rank by rank, over the
total of the intent weights added in the order the weights are first met.

:func:`.diversity_flat.flatten` turns a column of lists into the numpy arrays
(one entry per row, one per (row, subtopic) pair, with an integer id per
(list, subtopic)); :mod:`.diversity_batched` computes the measures themselves
from the same arrays. Without numpy, for subtopics that are neither integers nor strings or
hold nulls, or weights that are null or not finite, :func:`greedy_values` calls
:func:`.diversity_ideal.ideal_value` once per list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rankmetrics.metrics.diversity_flat import (
    Flat,
    flatten,
    offsets,
    sequential_sums,
    subtopics_typed,
)
from polars_rankmetrics.metrics.diversity_ideal import Discount, _discounts, ideal_value

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Ints = npt.NDArray[np.int64]
    Floats = npt.NDArray[np.float64]

MASK_BITS = 62
"""Queries with up to this many subtopics tell their pools apart by a bit mask."""


def greedy_values(
    lists: pl.Series, *, alpha: float, discount: Discount, depth: int | None, beta: float = 0.5
) -> pl.Series:
    """The greedy ideal value of each list of ``{subtopics, weights?, doc?}`` structs (Float64)."""
    options: dict[str, Any] = {"alpha": alpha, "discount": discount, "depth": depth, "beta": beta}
    if not _vectorisable(lists):
        return _one_by_one(lists, options)
    import numpy as np

    flat = flatten(lists)
    if flat is None:
        return _one_by_one(lists, options)
    covered = covered_pairs(flat)
    if "weights" in flat.rows.struct.fields:
        weighted = _weights(flat, covered)
        if weighted is None:
            return _one_by_one(lists, options)
        weight, total = weighted
    else:
        weight = np.ones(flat.n_gid, dtype=np.float64)
        total = flat.n_subtopics.astype(np.float64)
    keys = doc_keys(flat) if "doc" in flat.rows.struct.fields else None
    values = ideal_values(
        flat, covered, keys, weight, total, alpha=alpha, discount=discount, depth=depth, beta=beta
    )
    return pl.Series(lists.name, values, dtype=pl.Float64)


def _vectorisable(lists: pl.Series) -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return subtopics_typed(lists.dtype)


def _one_by_one(lists: pl.Series, options: dict[str, Any]) -> pl.Series:
    values = [
        0.0 if batch is None else ideal_value(batch, ideal="greedy", **options) for batch in lists
    ]
    return pl.Series(lists.name, values, dtype=pl.Float64)


@dataclass(frozen=True)
class Covered:
    """The distinct subtopics of each row that covers one, sorted by text: the ideal's documents.

    ``doc_row``: the row of each document (rows with a subtopic, in order);
    ``start``: the offsets of each document's pairs in ``gid``, ``local`` and
    ``value_rank`` (see :class:`.diversity_flat.Flat`).
    """

    doc_row: Ints
    start: Ints
    gid: Ints
    local: Ints
    value_rank: Ints


def covered_pairs(flat: Flat) -> Covered:
    """Each row's distinct subtopics in text order (the order of ``covered`` in ``_documents``)."""
    import numpy as np

    row, gid, local, value = flat.pair_row, flat.gid, flat.local, flat.value_rank
    text = flat.text_rank
    same_row = row[1:] == row[:-1]
    if np.any(same_row & (text[1:] <= text[:-1])):
        order = np.lexsort((text, row))
        row, gid, local, value = row[order], gid[order], local[order], value[order]
        repeated = np.zeros(len(row), dtype=bool)
        repeated[1:] = (row[1:] == row[:-1]) & (gid[1:] == gid[:-1])
        if repeated.any():
            keep = ~repeated
            row, gid, local, value = row[keep], gid[keep], local[keep], value[keep]
    new_row = np.ones(len(row), dtype=bool)
    new_row[1:] = row[1:] != row[:-1]
    starts = np.flatnonzero(new_row)
    return Covered(
        doc_row=row[starts],
        start=np.append(starts, len(row)).astype(np.int64),
        gid=gid,
        local=local,
        value_rank=value,
    )


def doc_keys(flat: Flat, field: str = "doc") -> Ints:
    """Each row's document id as a dense rank (larger wins the greedy's ties; null lowest)."""
    import numpy as np

    ranks = flat.rows.struct.field(field).rank("dense").fill_null(0)
    return ranks.cast(pl.Int64).to_numpy().astype(np.int64)


def _weights(flat: Flat, covered: Covered) -> tuple[Floats, Floats] | None:
    """Each (list, subtopic)'s weight, and each list's total, as ``_documents`` fills its dict.

    Row by row, first the given weights (in list order, as far as both lists
    go), then weight 1 for a covered subtopic still without one; the first
    value met wins, and the total adds them in the order met. None when a
    given weight is null or not finite.
    """
    import numpy as np

    given = flat.rows.struct.field("weights")
    values = given.list.explode(empty_as_null=False, keep_nulls=False).cast(pl.Float64)
    if values.null_count() or not values.is_finite().all():
        return None
    weight_counts = given.list.len().fill_null(0).to_numpy().astype(np.int64)
    weight_start = offsets(weight_counts)
    position = np.arange(len(flat.pair_row), dtype=np.int64) - flat.pair_start[flat.pair_row]
    usable = position < weight_counts[flat.pair_row]
    given_rows = flat.pair_row[usable]
    given_weight = values.to_numpy()[weight_start[given_rows] + position[usable]]
    # Events in the order met: by row, the given weights before the covered subtopics.
    event_row = np.concatenate([given_rows, covered_rows(covered)])
    event_gid = np.concatenate([flat.gid[usable], covered.gid])
    event_weight = np.concatenate([given_weight, np.ones(len(covered.gid))])
    part = np.concatenate([np.zeros(len(given_rows)), np.ones(len(covered.gid))])
    order = np.lexsort((part, event_row))
    event_gid, event_weight = event_gid[order], event_weight[order]
    # Every (list, subtopic) is covered by some row, so each is met.
    slots, first = np.unique(event_gid, return_index=True)
    weight = np.zeros(flat.n_gid, dtype=np.float64)
    weight[slots] = event_weight[first]
    met = slots[np.argsort(first, kind="stable")]  # by list, then in the order met
    total = sequential_sums(weight[met], offsets(flat.n_subtopics)[:-1], flat.n_subtopics)
    return weight, total


def covered_rows(covered: Covered) -> Ints:
    """The row of each covered pair."""
    import numpy as np

    return np.repeat(covered.doc_row, np.diff(covered.start))


def ideal_values(
    flat: Flat,
    covered: Covered,
    keys: Ints | None,
    weight: Floats,
    total: Floats,
    *,
    alpha: float,
    discount: Discount,
    depth: int | None,
    beta: float,
) -> Floats:
    """The greedy ideal value of each list, over its total weight (0.0 without documents).

    ``keys``: each row's tie-break key (None: each set's subtopic tuple).
    """
    import numpy as np

    n_lists = flat.n_lists
    result = np.zeros(n_lists, dtype=np.float64)
    doc_list = flat.row_list[covered.doc_row]
    n_docs = np.bincount(doc_list, minlength=n_lists)
    length = n_docs if depth is None else np.minimum(n_docs, depth)
    if not len(doc_list):
        return result
    pools = _pools(flat, covered, doc_list, length)
    tie = _tie_keys(pools, covered, keys)
    value = _greedy(pools, tie, weight, 1.0 - alpha, _discounts(discount, pools.longest, beta))
    result[pools.lists] = value
    defined = (n_docs > 0) & (total != 0.0)
    result[defined] = result[defined] / total[defined]
    result[~defined] = 0.0
    return result


@dataclass
class Pools:
    """The pools of every list that ranks, lists ordered by their greedy length (longest first).

    ``lists``: the list of each position in that order; ``starts``: each
    list's first pool; ``length``: each list's greedy length; pools in order of
    list, then first met; ``first_doc``, ``size`` and ``index`` (within its list)
    of each pool; ``doc_pool``: each document's pool; ``plane``: the pools'
    subtopic ids, one row per place in their text order (``n_gid`` where unused);
    ``mask``: each pool's set of subtopics in the dense layout (else None).
    """

    lists: Ints
    starts: Ints
    length: Ints
    pool_list: Ints
    first_doc: Ints
    size: Ints
    index: Ints
    doc_pool: Ints
    plane: Ints
    n_gid: int
    longest: int
    mask: Ints | None


def _pools(flat: Flat, covered: Covered, doc_list: Ints, length: Ints) -> Pools:
    import numpy as np

    n_docs = len(doc_list)
    if flat.row_mask is not None or int(flat.n_subtopics.max()) <= MASK_BITS:
        if flat.row_mask is not None:
            mask = flat.row_mask[covered.doc_row]
        else:
            bits = np.left_shift(np.int64(1), covered.local)
            mask = np.bitwise_or.reduceat(bits, covered.start[:-1])
        widest = int(mask.max()).bit_length()
        if widest <= 16:  # radix sort: by mask, then (stable) by list and document
            order = np.argsort(mask.astype(np.uint16), kind="stable")
        elif (int(flat.n_lists).bit_length() + widest) <= MASK_BITS:
            order = np.argsort((doc_list << widest) | mask, kind="stable")
        else:
            order = np.lexsort((np.arange(n_docs), mask, doc_list))
        by_list, by_mask = doc_list[order], mask[order]
        new = np.ones(n_docs, dtype=bool)
        new[1:] = (by_list[1:] != by_list[:-1]) | (by_mask[1:] != by_mask[:-1])
    else:
        width = int(np.diff(covered.start).max())
        padded = np.full((n_docs, width), -1, dtype=np.int64)
        place = np.arange(len(covered.gid)) - np.repeat(covered.start[:-1], np.diff(covered.start))
        padded[covered_rows_index(covered), place] = covered.gid
        order = np.lexsort((np.arange(n_docs), *padded.T[::-1], doc_list))
        ident = np.vstack([doc_list[order], padded[order].T])
        new = np.ones(n_docs, dtype=bool)
        new[1:] = np.any(ident[:, 1:] != ident[:, :-1], axis=0)
    pool_of_sorted = np.cumsum(new) - 1
    first_doc = order[new]
    size = np.bincount(pool_of_sorted)
    doc_pool = np.empty(n_docs, dtype=np.int64)
    doc_pool[order] = pool_of_sorted
    # Lists by greedy length, longest first; pools by list in that order, then first met.
    lists = np.argsort(-length, kind="stable")
    lists = lists[length[lists] > 0]
    position = np.full(flat.n_lists, len(lists), dtype=np.int64)
    position[lists] = np.arange(len(lists))
    pool_list = doc_list[first_doc]
    by_list = np.lexsort((first_doc, position[pool_list]))
    renumber = np.empty(len(by_list), dtype=np.int64)
    renumber[by_list] = np.arange(len(by_list))
    first_doc, size, pool_list = first_doc[by_list], size[by_list], pool_list[by_list]
    per_list = np.bincount(position[pool_list], minlength=len(lists))
    starts = offsets(per_list)
    index = np.arange(len(by_list)) - np.repeat(starts[:-1], per_list)
    cover = np.diff(covered.start)[first_doc]
    n_gid = flat.n_gid
    plane = np.full((int(cover.max()), len(by_list)), n_gid, dtype=np.int64)
    for j in range(plane.shape[0]):
        has = cover > j
        plane[j, has] = covered.gid[covered.start[first_doc[has]] + j]
    return Pools(
        lists=lists,
        starts=starts,
        length=length[lists],
        pool_list=position[pool_list],
        first_doc=first_doc,
        size=size,
        index=index,
        doc_pool=renumber[doc_pool],
        plane=plane,
        n_gid=n_gid,
        longest=int(length.max()),
        mask=None if flat.row_mask is None else flat.row_mask[covered.doc_row][first_doc],
    )


def covered_rows_index(covered: Covered) -> Ints:
    """The document (0-based, in order) of each covered pair."""
    import numpy as np

    return np.repeat(np.arange(len(covered.doc_row)), np.diff(covered.start))


@dataclass
class Ties:
    """Each pool's tie-break key (larger wins), and how it changes as documents leave."""

    key: Ints
    sorted_keys: Ints | None
    pointer: Ints | None
    base: Ints


def _tie_keys(pools: Pools, covered: Covered, keys: Ints | None) -> Ties:
    """Keys ordered by document key, then by the pool met first (a lower index wins).

    Without document ids, a pool's key is the rank of its subtopic tuple,
    compared as Python compares tuples (by value, element by element, a prefix
    first): its values as ranks from 1, padded with 0, sorted as rows.
    """
    import numpy as np

    span = int(pools.index.max()) + 1
    base = span - 1 - pools.index
    if keys is None:
        # Pools of equal bit masks (the dense layout) have equal tuples: ranked once.
        first_doc, shared = pools.first_doc, None
        if pools.mask is not None:
            _, first, shared = np.unique(pools.mask, return_index=True, return_inverse=True)
            first_doc = first_doc[first]
        cover = np.diff(covered.start)[first_doc]
        padded = np.zeros((len(cover), int(cover.max())), dtype=np.int64)
        for j in range(padded.shape[1]):
            has = cover > j
            padded[has, j] = covered.value_rank[covered.start[first_doc[has]] + j] + 1
        order = np.lexsort(padded.T[::-1])
        ordered = padded[order]
        new = np.ones(len(order), dtype=np.int64)
        new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.cumsum(new)
        if shared is not None:
            rank = rank[shared]
        return Ties(rank * span + base, None, None, base)
    doc_keys = keys[covered.doc_row]
    order = np.lexsort((doc_keys, pools.doc_pool))
    sorted_keys = doc_keys[order]
    pointer = offsets(pools.size)[1:] - 1
    return Ties(sorted_keys[pointer] * span + base, sorted_keys, pointer, base)


def _greedy(pools: Pools, tie: Ties, weight: Floats, keep: float, discounts: list[float]) -> Floats:
    """``sum_r discounts[r] · gain_r`` of the greedy list of each list that ranks (in order)."""
    import numpy as np

    n = len(pools.lists)
    span = int(pools.index.max()) + 1
    # Two more slots: the unused places of a pool's subtopics (a term of 0.0: the same sum)
    # and the first place of an empty pool (-inf: it cannot win).
    unused, empty = pools.n_gid, pools.n_gid + 1
    weights = np.append(weight, [0.0, -np.inf])
    counts = np.zeros(pools.n_gid + 2, dtype=np.int64)
    remaining = pools.size.copy()
    plane = pools.plane.copy()
    key = tie.key.copy()
    pointer = None if tie.pointer is None else tie.pointer.copy()
    # keep**c as Python computes it (float ** int), read off a table.
    power = np.asarray([keep**count for count in range(pools.longest + 1)], dtype=np.float64)
    value = np.zeros(n, dtype=np.float64)
    ranking = -pools.length
    for rank, discount in enumerate(discounts):
        active = int(np.searchsorted(ranking, -rank, side="left"))  # lists with length > rank
        if not active:
            break
        end = int(pools.starts[active])
        term = weights * power[counts]
        gain = term[plane[0, :end]]
        for j in range(1, plane.shape[0]):  # left to right, as Python's sum over `covered`
            gain += term[plane[j, :end]]
        starts = pools.starts[:active]
        best = np.maximum.reduceat(gain, starts)
        owner = pools.pool_list[:end]
        candidate = np.where(gain == best[owner], key[:end], -1)
        winner = np.maximum.reduceat(candidate, starts)
        chosen = np.flatnonzero(candidate == winner[owner])
        value[:active] += discount * best
        for j in range(plane.shape[0]):
            counts[plane[j, chosen]] += 1
        counts[unused] = 0
        remaining[chosen] -= 1
        plane[0, chosen[remaining[chosen] == 0]] = empty
        if pointer is not None and tie.sorted_keys is not None:
            pointer[chosen] -= 1
            more = chosen[remaining[chosen] > 0]
            key[more] = tie.sorted_keys[pointer[more]] * span + tie.base[more]
    return value


def greedy_expr(
    fields: pl.Expr, *, alpha: float, discount: Discount, depth: int | None, beta: float = 0.5
) -> pl.Expr:
    """:func:`greedy_values` of each list, for ``list.agg`` over a list of ``fields`` structs.

    The structs of each list are imploded, and the function is marked
    elementwise over those lists: polars then calls it once with the lists of
    all groups (or a chunk of them) rather than once per group.
    """
    return fields.implode().map_batches(
        lambda lists: greedy_values(lists, alpha=alpha, discount=discount, depth=depth, beta=beta),
        return_dtype=pl.Float64,
        is_elementwise=True,
    )
