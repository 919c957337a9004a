"""The greedy ideal of the bit-mask path (:mod:`.diversity_dense`), for a block of lists at once.

ndeval's greedy ideal over a (sets of subtopics × lists) table of how many
documents each list has with each set: at each rank, each set's gain (its
subtopics' ``(1 - alpha)**c`` added in text order, as the Python ``sum`` of
:func:`.diversity_ideal.greedy_gains`), the largest per list (the first
largest: the sets are in decreasing order of their subtopic tuples, so it is
the one Python's ``max`` keeps), one document out of it and its subtopics'
counts up by one: a few array operations over the lists still ranking,
longest greedy list first. With document ids, ties of gain go to the set whose
largest remaining id is largest, then to the set met first (:class:`_Ties`).
The same values as :func:`.diversity_greedy.ideal_values`, bit for bit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rankmetrics.metrics.diversity_ideal import Discount, _discounts

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Ints = npt.NDArray[np.int64]
    Floats = npt.NDArray[np.float64]


def dense_ideal(
    available: Ints,
    n_subtopics: Ints,
    text: Ints,
    n_values: int,
    k: int | None,
    alpha: float,
    discount: Discount,
    beta: float,
    ids: tuple[Ints, Ints, Ints] | None = None,
) -> Floats:
    """The greedy ideal of each list over its ``S`` (0.0 without documents).

    ``available``: the (lists × sets) table of documents; ``text``: each set's
    subtopics (value ranks, below ``n_values``) in text order, padded with
    ``n_values``; ``ids``: each row's id key, set (column) and list, where the
    documents have ids.
    """
    import numpy as np

    n_lists, n_masks = available.shape
    result = np.zeros(n_lists, dtype=np.float64)
    n_docs = available.sum(axis=1)
    length = n_docs if k is None else np.minimum(n_docs, k)
    if not n_masks or not length.any():
        return result
    width = text.shape[1]
    covers = np.zeros((n_masks, n_values + 1), dtype=np.int64)
    np.put_along_axis(covers, text, 1, axis=1)
    covers[:, n_values] = 0
    # Lists by greedy length, longest first: those still ranking are a prefix.
    lists = np.argsort(-length, kind="stable")
    lists = lists[length[lists] > 0]
    ranking = -length[lists]
    longest = int(length.max())
    keep = 1.0 - alpha
    power = np.asarray([keep**count for count in range(longest + 1)], dtype=np.float64)
    n = len(lists)
    # (sets × lists) and (subtopics × lists) tables.
    left = np.ascontiguousarray(available[lists].T)
    blocked = np.where(left > 0, 0.0, -np.inf)
    counts = np.zeros((n_values + 1, n), dtype=np.int64)
    covers_t = np.ascontiguousarray(covers.T)
    value = np.zeros(n, dtype=np.float64)
    every = np.arange(n, dtype=np.int64)
    ties = None if ids is None else _Ties(*ids, available, lists)
    for rank, weight in enumerate(_discounts(discount, longest, beta)):
        active = int(np.searchsorted(ranking, -rank, side="left"))  # lists with length > rank
        if not active:
            break
        term = power[counts[:, :active]]
        term[n_values] = 0.0
        gain = np.take(term, text[:, 0], axis=0)
        for j in range(1, width):  # left to right, as Python's sum over the sorted subtopics
            gain += np.take(term, text[:, j], axis=0)
        gain += blocked[:, :active]
        best = gain[0].copy()
        pick = np.zeros(active, dtype=np.int64)
        for column in range(1, n_masks):  # the first largest: the largest subtopic tuple
            better = gain[column] > best
            np.maximum(best, gain[column], out=best)
            pick[better] = column
        if ties is not None:  # among the largest, the largest document id, then first met
            pick = ties.pick(gain, best)
        value[:active] += weight * best
        flat = pick * n + every[:active]
        left.ravel()[flat] -= 1
        blocked.ravel()[flat[left.ravel()[flat] == 0]] = -np.inf
        if ties is not None:
            ties.take(flat)
        counts[:, :active] += np.take(covers_t, pick, axis=1)
    result[lists] = value
    defined = (n_docs > 0) & (n_subtopics != 0)
    result[defined] = result[defined] / n_subtopics[defined].astype(np.float64)
    result[~defined] = 0.0
    return result


class _Ties:
    """With document ids: each set's tie-break key (larger wins), as documents leave it.

    A set's key is its largest remaining document id (a dense rank) times the
    number of sets, plus its place among its list's sets from the last met (a
    set met first wins a tie of ids, as Python's ``max`` keeps the first); a
    (sets × lists) table like the greedy's, over the lists in its order.
    """

    def __init__(
        self, doc_key: Ints, column: Ints, row_list: Ints, available: Ints, lists: Ints
    ) -> None:
        import numpy as np

        n_lists, n_masks = available.shape
        row = np.flatnonzero(column < n_masks)  # the documents, in list order
        pool = row_list[row] * n_masks + column[row]
        key = doc_key[row]
        self.keys = np.sort(pool * (int(key.max()) + 1) + key) % (int(key.max()) + 1)  # by set, id
        last = np.cumsum(available.ravel()) - 1  # each set's largest id
        first = np.full(n_lists * n_masks, len(column), dtype=np.int64)
        np.minimum.at(first, pool, row)
        met = np.argsort(np.argsort(first.reshape(n_lists, n_masks), axis=1, kind="stable"), axis=1)
        self.span = n_masks
        self.base = np.ascontiguousarray((n_masks - 1 - met)[lists].T)
        self.pointer = np.ascontiguousarray(last.reshape(n_lists, n_masks)[lists].T)
        self.key = self.keys[np.maximum(self.pointer, 0)] * self.span + self.base

    def pick(self, gain: Floats, best: Floats) -> Ints:
        """The set each list takes: of largest gain, then of largest key."""
        import numpy as np

        active = gain.shape[1]
        pick = np.zeros(active, dtype=np.int64)
        top = np.where(gain[0] == best, self.key[0, :active], -1)
        for column in range(1, gain.shape[0]):
            candidate = np.where(gain[column] == best, self.key[column, :active], -1)
            better = candidate > top
            np.maximum(top, candidate, out=top)
            pick[better] = column
        return pick

    def take(self, flat: Ints) -> None:
        """One document out of each set of ``flat`` (places in the flattened tables)."""
        import numpy as np

        pointer = self.pointer.ravel()
        pointer[flat] -= 1
        key = self.keys[np.maximum(pointer[flat], 0)]
        self.key.ravel()[flat] = key * self.span + self.base.ravel()[flat]
