"""A batch of rankings as numpy arrays, for the interleaving algorithms.

The list columns are read through their flat buffers (each ranking's documents
one after the other, and each row's length), without joining them per row.
Each row's documents are then sorted once (a ``rows x L`` table, ``L`` the
rankings' widths summed), which gives, without a loop over rows: the documents
a row's rankings share, a document repeated in one ranking (refused), and each
row's distinct documents in their order. The algorithms then run over every row
at once, one step per position of the interleaved list, and hand back flat
arrays that :func:`lists` wraps as list columns without a copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl


class Batch:
    """One batch of rows: each ranking's documents as integer ids in a ``rows x L`` table.

    Ranking ``r`` fills the columns ``starts[r] : starts[r] + depths[r]`` (its
    longest list), a shorter list padded with an id no document has. Two
    documents are the same when their ids are (integers are their own ids,
    other types their dense rank over the batch, so ids keep the documents'
    order).
    """

    def __init__(self, rankings: list[pl.Series], keys: pl.Series, names: Sequence[str]) -> None:
        import numpy as np

        self.rows, self.names = len(keys), list(names)
        self.keys = keys.to_numpy().astype(np.uint64)
        flats = [s.explode(empty_as_null=False) for s in rankings]
        same_type = all(f.dtype == flats[0].dtype for f in flats)
        self.values = pl.concat(flats, how="vertical" if same_type else "vertical_relaxed")
        self.lengths = np.stack([s.list.len().to_numpy().astype(np.int64) for s in rankings])
        sizes = [len(f) for f in flats]
        self.base = np.cumsum([0, *sizes])[:-1]
        self.offsets = np.cumsum(self.lengths, axis=1) - self.lengths
        self.depths = [int(d) for d in self.lengths.max(axis=1)] if self.rows else [0] * len(flats)
        self.starts = [int(s) for s in np.cumsum([0, *self.depths])[:-1]]
        self.width = sum(self.depths)
        ids = _ids(self.values, rank=False)
        self.padding = _padding(ids)
        if self.padding is None:  # ids over the whole Int64 range: their dense ranks instead
            ids = _ids(self.values, rank=True)
            self.padding = _padding(ids)
        self.ids = [ids[b : b + n] for b, n in zip(self.base, sizes, strict=True)]
        self.table = self._table()
        self.order = np.argsort(self.table, axis=1, kind="stable")
        self.row_starts = (np.arange(self.rows) * self.width)[:, None]
        ordered = self.table.ravel()[self.order + self.row_starts]
        self.ranking_table = np.repeat(np.arange(len(flats), dtype=np.int8), self.depths)
        self.valid = ordered != self.padding  # rows x L, in sorted order
        # same[:, i]: the i-th and (i+1)-th documents in sorted order are one document
        self.same = (ordered[:, 1:] == ordered[:, :-1]) & self.valid[:, 1:]
        self._pairs: tuple[Any, Any] | None = None
        self._check_repeats()

    def _table(self) -> Any:
        import numpy as np

        table = np.empty((self.rows, self.width), np.int64)
        for r, ids in enumerate(self.ids):
            start, depth, lengths = self.starts[r], self.depths[r], self.lengths[r]
            if (lengths == depth).all():
                table[:, start : start + depth] = ids.reshape(self.rows, depth)
                continue
            table[:, start : start + depth] = self.padding
            rows = np.repeat(np.arange(self.rows), lengths)
            inside = np.arange(len(ids)) - np.repeat(self.offsets[r], lengths)
            table[rows, start + inside] = ids
        return table

    def ranking_of(self, position: Any) -> Any:
        """The ranking that column ``position`` of the table belongs to."""
        return self.ranking_table[position]

    def _check_repeats(self) -> None:
        """Find a ranking holding a document twice: two equal ids from the same ranking.

        :attr:`repeated` is ``(ranking, row)``, the first such row of the first such ranking
        (None when there is none).
        """
        import numpy as np

        self.repeated: tuple[int, int] | None = None
        if not self.same.any():
            return
        ranking = self.ranking_of(self.order)
        repeated = self.same & (ranking[:, 1:] == ranking[:, :-1])
        for r in range(len(self.names)):
            rows = (repeated & (ranking[:, 1:] == r)).any(axis=1)
            if rows.any():
                self.repeated = (r, int(np.argmax(rows)))
                return

    def first(self) -> Any:
        """``rows x L``: for each column, the first column of the row holding the same document."""
        import numpy as np

        if len(self.names) == 2:  # a document twice: a pair of neighbours in sorted order
            row, at = self.pairs()
            table = np.tile(np.arange(self.width), (self.rows, 1))
            table.ravel()[
                self.row_starts[row, 0] + self.order.ravel()[self.row_starts[row, 0] + at + 1]
            ] = self.order.ravel()[self.row_starts[row, 0] + at]
            return table
        first = self.order.copy()
        for _ in range(len(self.names) - 1):  # a document is in at most one column per ranking
            first[:, 1:] = np.where(self.same, first[:, :-1], first[:, 1:])
        table = np.empty_like(first)
        table.ravel()[self.order + self.row_starts] = first
        return table

    def pairs(self) -> tuple[Any, Any]:
        """The rows and sorted places ``i`` where places ``i`` and ``i + 1`` hold one document."""
        import numpy as np

        if self._pairs is None:
            self._pairs = np.nonzero(self.same)
        return self._pairs

    def flat_index(self, position: Any, rows: Any) -> Any:
        """Where the document in column ``position`` of row ``rows`` is in :attr:`values`."""
        import numpy as np

        ranking = self.ranking_of(position).astype(np.int64)
        shift = (self.base - np.asarray(self.starts, np.int64))[ranking]
        return shift + self.offsets.ravel()[ranking * self.rows + rows] + position

    def documents(self, position: Any, rows: Any) -> pl.Series:
        """The documents in columns ``position`` of rows ``rows`` (flat arrays)."""
        return self.values.gather(self.flat_index(position, rows))


def _ids(values: pl.Series, *, rank: bool) -> Any:
    """Integer ids equal for equal documents, in the documents' order."""
    import numpy as np

    if not rank and values.dtype.is_integer() and values.dtype != pl.UInt64:
        return values.cast(pl.Int64).to_numpy().astype(np.int64, copy=False)
    return values.rank("dense").cast(pl.Int64).to_numpy().astype(np.int64, copy=False)


def _padding(ids: Any) -> int | None:
    """An id that no document has: above the largest (below the smallest if that is the top)."""
    import numpy as np

    if not len(ids):
        return 0
    top, bottom = int(ids.max()), int(ids.min())
    if top < np.iinfo(np.int64).max:
        return top + 1
    if bottom > np.iinfo(np.int64).min:
        return bottom - 1
    return None


def repeated_message(name: str, row: int) -> str:
    """The error for a ranking holding a document twice."""
    return (
        f"`{name}`: a ranking holds a document twice (row {row}); "
        "each document appears once in a ranking"
    )


def check_ranking(series: pl.Series, name: str) -> None:
    """Refuse a column that is not a list of documents, a null ranking or a null document."""
    if not isinstance(series.dtype, pl.List):
        msg = f"`{name}` must be a list column of document ids, got {series.dtype}"
        raise ValueError(msg)
    if series.null_count():
        row = int(series.is_null().arg_true()[0])
        msg = f"`{name}`: row {row} has a null ranking (give an empty list for no documents)"
        raise ValueError(msg)
    values = series.explode(empty_as_null=False)
    if values.null_count():
        lengths = series.list.len().to_numpy()
        row = int((lengths.cumsum() > int(values.is_null().arg_true()[0])).argmax())
        msg = f"`{name}`: a ranking holds a null document (row {row})"
        raise ValueError(msg)


def lists(values: Any, counts: Any) -> pl.Series:
    """A list Series of ``values`` (flat: numpy or polars), ``counts[i]`` of them in row ``i``."""
    import numpy as np
    import pyarrow as pa

    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    flat = values.to_arrow() if isinstance(values, pl.Series) else pa.array(values)
    array = pa.LargeListArray.from_arrays(pa.array(offsets), flat)
    return pl.Series(array)
