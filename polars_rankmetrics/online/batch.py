"""A batch of rankings as numpy arrays, for the interleaving algorithms.

The documents of each row get local integer codes (their rank among the row's
distinct documents), so that "already in the interleaved list" is a boolean
row, and the algorithms run over every row of the batch at once, one step per
position. :class:`Batch` converts the list columns in, and the chosen codes
back to documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl


class Batch:
    """One batch of rows as numpy arrays: each ranking's documents as local integer codes.

    A document's code is its rank among the distinct documents of its row (0, 1,
    ...), so that a row's "already shown" set is a boolean row of width ``U``,
    the most distinct documents of any row.
    """

    def __init__(self, rankings: list[pl.Series], keys: pl.Series, names: Sequence[str]) -> None:
        import numpy as np

        for series, name in zip(rankings, names, strict=True):
            _check_ranking(series, name)
        self.rows = len(keys)
        self.keys = keys.to_numpy().astype(np.uint64)
        self.concatenated = pl.select(
            pl.concat_list([s.alias(str(i)) for i, s in enumerate(rankings)])
        ).to_series()
        lengths = [s.list.len().fill_null(0).to_numpy().astype(np.int64) for s in rankings]
        self.lengths = np.stack(lengths, axis=1) if lengths else np.zeros((self.rows, 0), np.int64)
        total = self.lengths.sum(axis=1)
        flat = _local_codes(self.concatenated, total)
        self.distinct = (flat.max(axis=1) + 1) if flat.shape[1] else np.zeros(self.rows, np.int64)
        self.width = int(self.distinct.max()) if self.rows else 0
        self.codes = []
        start = np.zeros(self.rows, np.int64)
        depth = int(self.lengths.max()) if self.lengths.size else 0
        for i in range(len(rankings)):
            columns = start[:, None] + np.arange(depth)[None, :]
            inside = np.arange(depth)[None, :] < self.lengths[:, i : i + 1]
            picked = np.take_along_axis(
                flat, np.minimum(columns, max(flat.shape[1] - 1, 0)), axis=1
            )
            self.codes.append(
                np.where(inside, picked, -1) if flat.size else np.full((self.rows, depth), -1)
            )
            start = start + self.lengths[:, i]
        # code -> its first index in the rankings joined: the rankings written last to first,
        # so that the earliest one holding a document writes it last
        self.first = np.zeros((self.rows, self.width + 1), np.int64)
        offsets = np.cumsum(self.lengths, axis=1) - self.lengths
        self._positions = [self._ranks(i) for i in range(len(rankings))]
        for i, name in enumerate(names):  # a document twice in a ranking leaves one entry
            _check_repeats((self._positions[i] > 0).sum(axis=1), self.lengths[:, i], name)
        for i in range(len(rankings) - 1, -1, -1):
            ranks = self._positions[i]
            held = ranks > 0
            self.first[held] = (ranks + offsets[:, i : i + 1] - 1)[held]

    def positions(self, ranking: int) -> Any:
        """``rows x (U + 1)``: each code's 1-based rank in ``ranking``, 0 if absent."""
        return self._positions[ranking]

    def _ranks(self, ranking: int) -> Any:
        import numpy as np

        table = np.zeros((self.rows, self.width + 1), np.int64)
        codes = self.codes[ranking]
        valid = codes >= 0  # a ranking holds a document once: no write is overwritten
        rows = np.broadcast_to(np.arange(self.rows)[:, None], codes.shape)
        ranks = np.broadcast_to(np.arange(1, codes.shape[1] + 1)[None, :], codes.shape)
        table[rows[valid], codes[valid]] = ranks[valid]
        return table

    def indices(self, chosen: Any, count: Any) -> pl.Series:
        """Where the codes ``chosen`` (the first ``count`` per row) are in the rankings joined."""
        import numpy as np

        rows = np.arange(self.rows)[:, None]
        return lists(self.first[rows, np.maximum(chosen, 0)], count)


def _check_ranking(series: pl.Series, name: str) -> None:
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


def _check_repeats(distinct: Any, lengths: Any, name: str) -> None:
    """Refuse a ranking holding a document twice: fewer distinct documents than entries."""
    import numpy as np

    repeated = distinct != lengths
    if repeated.any():
        msg = (
            f"`{name}`: a ranking holds a document twice (row {int(np.argmax(repeated))}); "
            "each document appears once in a ranking"
        )
        raise ValueError(msg)


def _local_codes(concatenated: pl.Series, lengths: Any) -> Any:
    """``rows x max(lengths)``: each document's rank among its row's distinct ones, -1 padding.

    Integer ids are their own order; other ids get their dense rank over the batch.
    Each row is then sorted (``rows x width``, small), the changes counted and the
    counts put back in place: a dense rank within each row.
    """
    import numpy as np

    rows = len(concatenated)
    width = int(lengths.max()) if rows else 0
    values = concatenated.explode(empty_as_null=False)
    if values.dtype.is_integer():
        order_codes = values.cast(pl.Int64).to_numpy()
    else:
        order_codes = values.rank("dense").cast(pl.Int64).to_numpy()
    padding = np.iinfo(np.int64).max
    table = np.full((rows, width), padding, np.int64)
    row_index = np.repeat(np.arange(rows), lengths)
    offsets = np.cumsum(lengths) - lengths
    table[row_index, np.arange(len(order_codes)) - np.repeat(offsets, lengths)] = order_codes
    order = np.argsort(table, axis=1, kind="stable")
    ordered = np.take_along_axis(table, order, axis=1)
    new = np.ones(ordered.shape, bool)
    new[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    # a running count over the flat buffer, less each row's first: quicker than along axis 1
    counted = np.cumsum(new.ravel()).reshape(new.shape)
    local = np.empty(ordered.shape, np.int64)
    np.put_along_axis(local, order, counted - counted[:, :1], axis=1)
    local[table == padding] = -1
    return local


def lists(table: Any, count: Any) -> pl.Series:
    """The first ``count[i]`` entries of each row of the 2-D array ``table``, as a list Series."""
    import numpy as np

    if table.shape[1] == 0:
        table = np.zeros((table.shape[0], 1), table.dtype)
    frame = pl.DataFrame({"table": table, "count": count})
    return frame.select(pl.col("table").arr.to_list().list.head(pl.col("count"))).to_series()
