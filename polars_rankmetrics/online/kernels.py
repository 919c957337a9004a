"""The interleaving algorithms over every row of a :class:`.Batch` at once, in numpy.

Each function returns the interleaved list of every row as flat arrays (rows
one after the other) and the number of documents per row: the columns of the
documents in the batch's table, and what the credit needs (the team, the ranks,
``p_a``). Per-position state is kept as ``state x rows`` arrays, so that a step
reads and writes one entry per row with a flat index (``column * rows + row``).
"""

from __future__ import annotations

from typing import Any

from polars_rankmetrics.online.batch import Batch
from polars_rankmetrics.online.draws import draws


def _selected(table: Any, count: Any) -> Any:
    """The first ``count[i]`` entries of column ``i`` of ``steps x rows``, row after row."""
    import numpy as np

    inside = np.arange(table.shape[0])[None, :] < count[:, None]
    return table.T[inside]


def _running_sums(table: Any, dtype: Any = None) -> Any:
    """``numpy.cumsum(table, axis=0)``, one whole row at a time (numpy's runs down each column).

    The same sums in the same order: entry ``i`` is entry ``i - 1`` plus row ``i``.
    """
    import numpy as np

    sums = np.empty(table.shape, dtype or table.dtype)
    if len(table):
        sums[0] = table[0]
    for i in range(1, len(table)):
        np.add(sums[i - 1], table[i], out=sums[i])
    return sums


def team_draft(batch: Batch, limit: int) -> tuple[Any, Any, Any]:
    """Team-draft multileaving (Radlinski et al.'s team draft for two): columns, teams, counts.

    At each position, the rankers that have contributed the fewest documents so
    far are the candidates; the row's draw ``u`` picks the ``floor(u m)``-th of
    the ``m`` candidates (for two tied rankers: A when ``u < 1/2``), which adds its
    best document not yet shown. Stops when a ranker has no document left to
    add, or at ``limit`` documents. A document is "shown" by its first column in
    the row, so each ranking's pointer skips what another ranking added.
    """
    import numpy as np

    rows, teams = batch.rows, len(batch.names)
    first = np.ascontiguousarray(batch.first().T).ravel()  # column-major: column * rows + row
    index = np.arange(rows)
    shown = np.zeros(batch.width * rows + 1, bool)  # the last entry: where idle rows write
    pointer = np.zeros((teams, rows), np.int64)
    sizes = np.zeros((teams, rows), np.int64)
    chosen = np.zeros((max(limit, 0), rows), np.int64)
    team = np.zeros((max(limit, 0), rows), np.uint8)
    count = np.zeros(rows, np.int64)
    live = np.ones(rows, bool)
    starts = np.asarray(batch.starts, np.int64)
    for t in range(limit):
        live &= (pointer < batch.lengths).all(axis=0)
        if not live.any():
            break
        ranker = _draft_ranker(sizes, batch.keys, t)
        cell = ranker * rows + index
        at = pointer.ravel()[cell]
        code = first[np.where(live, starts[ranker] + at, 0) * rows + index]
        shown[np.where(live, code * rows + index, len(shown) - 1)] = True
        chosen[t], team[t] = code, ranker
        count += live
        cell = cell[live]
        sizes.ravel()[cell] += 1
        pointer.ravel()[cell] += 1
        _advance(batch, pointer, first, shown, live)
    return _selected(chosen, count), _selected(team, count), count


def _draft_ranker(sizes: Any, keys: Any, t: int) -> Any:
    """The ranker each row draws among those with the fewest documents (draw ``t``)."""
    import numpy as np

    if sizes.shape[0] == 2:  # two: a draw only on a tie, A when below 1/2
        tie = sizes[0] == sizes[1]
        ranker = (sizes[1] < sizes[0]).astype(np.int64)
        if tie.any():
            ranker[tie] = draws(keys[tie], t) >= 0.5
        return ranker
    candidates = sizes == sizes.min(axis=0)
    many = candidates.sum(axis=0)
    if (many == 1).all():
        return np.argmax(candidates, axis=0)
    pick = np.floor(draws(keys, t) * many).astype(np.int64)
    return np.argmax(candidates & (np.cumsum(candidates, axis=0) == pick + 1), axis=0)


def _advance(batch: Batch, pointer: Any, first: Any, shown: Any, live: Any) -> None:
    """Move each ranking's pointer past the documents already shown (to its length at most)."""
    import numpy as np

    rows = batch.rows
    for r, start in enumerate(batch.starts):
        at, lengths = pointer[r], batch.lengths[r]
        moving = np.flatnonzero(live & (at < lengths))
        while moving.size:
            code = first[(start + at[moving]) * rows + moving]
            moving = moving[shown[code * rows + moving]]
            at[moving] += 1
            moving = moving[at[moving] < lengths[moving]]


def balanced(batch: Batch, limit: int) -> tuple[Any, Any, Any, Any]:
    """Balanced interleaving (Radlinski et al. 2008, algorithm 1): columns, ranks, counts.

    With A first, the rankings offer ``A1 B1 A2 B2 ...`` (B first: ``B1 A1 ...``),
    until the one whose turn it is has nothing left; a document is added when
    offered for the first time. So a document of A at depth ``i`` is added unless
    B offered it before (at a depth ``j < i``, or ``j = i`` with B first), and the
    list is the offers kept, cut at ``limit``: no step loop.
    """
    import numpy as np

    rows = batch.rows
    depth_a = batch.depths[0]
    depth = max(batch.depths)
    length_a, length_b = batch.lengths
    # depth x rows: the depth in B of A's document at each depth (-1: none), and back
    match_a = np.full((depth, rows), -1, np.int64)
    match_b = np.full((depth, rows), -1, np.int64)
    row, at = batch.pairs()  # one document, first in A (stable sort), then in B
    in_a, in_b = batch.order[row, at], batch.order[row, at + 1] - depth_a
    match_a.ravel()[in_a * rows + row], match_b.ravel()[in_b * rows + row] = in_b, in_a
    a_first = draws(batch.keys, 0) < 0.5
    i = np.arange(depth)[:, None]
    offers = np.where(
        a_first,
        np.where(length_a <= length_b, 2 * length_a - 1, 2 * length_b),
        np.where(length_b <= length_a, 2 * length_b - 1, 2 * length_a),
    )
    keep_a = ~((match_a >= 0) & ((match_a < i) | ((match_a == i) & ~a_first)))
    keep_b = ~((match_b >= 0) & ((match_b < i) | ((match_b == i) & a_first)))
    keep_a &= 2 * i + ~a_first < offers
    keep_b &= 2 * i + a_first < offers
    keep = np.empty((2 * depth, rows), bool)  # in the order of the offers
    keep[0::2], keep[1::2] = np.where(a_first, keep_a, keep_b), np.where(a_first, keep_b, keep_a)
    if limit < 2 * depth:
        keep &= _running_sums(keep, np.int64) <= limit
    row, slot = np.nonzero(np.ascontiguousarray(keep.T))
    i = slot // 2
    of_a = (slot % 2 == 0) == a_first[row]
    cell = i * rows + row
    of_b_in_a = match_b.ravel()[cell]  # for B's documents: the depth in A
    rank_a = np.where(of_a, i + 1, of_b_in_a + 1)
    rank_b = np.where(of_a, match_a.ravel()[cell] + 1, i + 1)
    column = np.where(of_a | (of_b_in_a >= 0), np.where(of_a, i, of_b_in_a), depth_a + i)
    return column, rank_a, rank_b, keep.sum(axis=0)


def probabilistic(batch: Batch, limit: int, tau: float) -> tuple[Any, Any, Any, Any]:
    """Probabilistic interleaving (Hofmann et al. 2011): columns, teams, ``p_a``, counts.

    Each ranking is a softmax over the row's distinct documents, in their order:
    ``P_X(d)`` proportional to ``rank_X(d) ** -tau`` over the documents not shown
    yet (a document a ranking lacks has its length + 1 as rank). At position
    ``t``, draw ``2t`` picks the ranking (A when below 1/2), draw ``2t + 1``
    samples a document from its softmax (the first whose running sum of weights
    exceeds the draw times their total). ``p_a`` is ``P_A(d) / (P_A(d) + P_B(d))``
    at that step. The weights are ``documents x rows``: the running sums add
    whole rows of the array, in the documents' order.
    """
    import numpy as np

    rows = batch.rows
    weights, first, distinct = _softmax_weights(batch, tau)
    documents = weights[0].shape[0]
    limit = min(limit, documents)
    flat_a, flat_b = weights[0].ravel(), weights[1].ravel()
    chosen = np.zeros((max(limit, 0), rows), np.int64)
    team = np.zeros((max(limit, 0), rows), np.uint8)
    p_a = np.zeros((max(limit, 0), rows))
    index = np.arange(rows)
    count = np.minimum(distinct, limit)
    for t in range(limit):
        live = t < count
        if not live.any():
            break
        from_a = draws(batch.keys, 2 * t) < 0.5
        sums_a, sums_b = _running_sums(weights[0]), _running_sums(weights[1])
        total_a, total_b = sums_a[-1], sums_b[-1]
        target = draws(batch.keys, 2 * t + 1) * np.where(from_a, total_a, total_b)
        sums = np.where(from_a, sums_a, sums_b)
        code = np.minimum((sums <= target).sum(axis=0), documents - 1)
        flat = code * rows + index
        left_a, left_b = flat_a[flat], flat_b[flat]
        # a rounding at the very end can land past the last document left: take that one
        off = np.flatnonzero(np.where(from_a, left_a, left_b) <= 0)
        if off.size:
            pool = np.where(from_a[off], weights[0][:, off], weights[1][:, off]) > 0
            code[off] = documents - 1 - np.argmax(pool[::-1], axis=0)
            flat = code * rows + index
            left_a, left_b = flat_a[flat], flat_b[flat]
        probability_a = left_a / np.where(total_a > 0, total_a, 1.0)
        probability_b = left_b / np.where(total_b > 0, total_b, 1.0)
        both = probability_a + probability_b
        chosen[t], team[t] = code, ~from_a
        p_a[t] = probability_a / np.where(both > 0, both, 1.0)
        flat_a[flat[live]] = 0.0
        flat_b[flat[live]] = 0.0
    columns = first.ravel()[_selected(chosen, count) * rows + np.repeat(index, count)]
    return columns, _selected(team, count), _selected(p_a, count), count


def _softmax_weights(batch: Batch, tau: float) -> tuple[list[Any], Any, Any]:
    """The softmax weights, each document's first column, each row's number of documents.

    The weights: one ``documents x rows`` array per ranking, the row's distinct
    documents in their order; the first columns: the same shape.
    """
    import numpy as np

    rows = batch.rows
    new = batch.valid.copy()
    new[:, 1:] &= ~batch.same
    # each document's rank among its row's: a running count over the flat buffer, less the row's
    counted = np.cumsum(new.ravel()).reshape(new.shape)
    code = counted - (counted[:, :1] - new[:, :1]) - 1
    distinct = new.sum(axis=1)
    documents = int(distinct.max()) if rows else 0
    ranking = batch.ranking_of(batch.order)
    rank = batch.order - np.asarray(batch.starts, np.int64)[ranking] + 1
    powers = np.arange(1, max(batch.depths, default=0) + 2, dtype=np.float64) ** -tau
    cells = (np.arange(rows) * (documents + 1))[:, None]  # rows x (documents + 1), then a sink
    sink = cells + documents
    weights = []
    for r in range(2):
        ranks = np.zeros((rows, documents + 1), np.int64)
        ranks.ravel()[np.where(batch.valid & (ranking == r), cells + code, sink)] = rank
        ranks = ranks[:, :documents]
        ranks = np.where(ranks > 0, ranks, batch.lengths[r][:, None] + 1)
        valid = np.arange(documents)[None, :] < distinct[:, None]
        weights.append(np.ascontiguousarray(np.where(valid, powers[ranks - 1], 0.0).T))
    first = np.zeros((rows, documents + 1), np.int64)
    first.ravel()[np.where(new, cells + code, sink)] = batch.order
    return weights, np.ascontiguousarray(first[:, :documents].T), distinct
