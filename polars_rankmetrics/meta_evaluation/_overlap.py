"""The depth from which each common item of two rankings counts, summed per row.

For rankings ``a`` and ``b`` of one row, a common item counts in the overlap
``X_d`` from depth ``m = max(position in a, position in b)`` on. Every form of
RBO needs, per row, only ``X_l`` (common items), ``X_s`` (those with ``m <=
min length``) and the sums of ``W(m - 1)`` over both sets, for a table ``W``.

Two exact implementations give the same numbers:

- :func:`_by_join`: pure polars, explode both lists and join on (row, item);
- :func:`_by_sorting`: numpy, when it is installed. Each item becomes one
  64-bit key, its hash's high bits over its position and side; each row's keys
  are sorted (numpy's SIMD sort of a padded matrix, in blocks of rows) and a
  common item is two adjacent keys with the same high bits. Every such pair is
  then checked on the items themselves, so a hash collision cannot give a
  wrong number; anything unusual (a collision, an item twice in a ranking, a
  null item) sends the batch to :func:`_by_join`, which reports it.
"""

from __future__ import annotations

import importlib.util
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeAlias

import polars as pl

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray: TypeAlias = npt.NDArray[np.int64]
    KeyArray: TypeAlias = npt.NDArray[np.uint64]
    FloatArray: TypeAlias = npt.NDArray[np.float64]

_BLOCK_ROWS = 16_384
_AGGREGATES = ("x_l", "x_s", "w_sum", "w_sum_short")


def per_row_sums(lists: pl.DataFrame, table: pl.Series, names: tuple[str, str]) -> pl.DataFrame:
    """``row, x_l, x_s, w_sum, w_sum_short`` for the rows of ``lists`` (``row, a, b``)."""
    if importlib.util.find_spec("numpy") is not None:
        sums = _by_sorting(lists, table)
        if sums is not None:
            return sums
    return _by_join(lists, table, names)


def _by_join(lists: pl.DataFrame, table: pl.Series, names: tuple[str, str]) -> pl.DataFrame:
    checks = lists.select(
        "row",
        dup_a=pl.col("a").list.n_unique() != pl.col("a").list.len(),
        dup_b=pl.col("b").list.n_unique() != pl.col("b").list.len(),
    )
    for flag, name in (("dup_a", names[0]), ("dup_b", names[1])):
        duplicated = checks.filter(pl.col(flag))
        if duplicated.height:
            row = duplicated["row"][0]
            msg = f"`{name}` holds an item twice in row {row}: a ranking must not repeat items"
            raise pl.exceptions.ComputeError(msg)
    exploded = [
        lists.select("row", side, pos=pl.int_ranges(1, pl.col(side).list.len() + 1))
        .explode(side, "pos")
        .drop_nulls()
        .rename({side: "item", "pos": f"pos_{side}"})
        for side in ("a", "b")
    ]
    short = pl.min_horizontal(pl.col("a").list.len(), pl.col("b").list.len()).alias("short")
    sums = (
        exploded[0]
        .join(exploded[1], on=["row", "item"], how="inner")
        .join(lists.select("row", short), on="row")
        .with_columns(m=pl.max_horizontal("pos_a", "pos_b"))
        .with_columns(w_before=pl.lit(table).gather(pl.col("m") - 1))
        .group_by("row")
        .agg(
            x_l=pl.len().cast(pl.Float64),
            x_s=(pl.col("m") <= pl.col("short")).sum().cast(pl.Float64),
            w_sum=pl.col("w_before").sum(),
            w_sum_short=pl.col("w_before").filter(pl.col("m") <= pl.col("short")).sum(),
        )
    )
    return (
        lists.select("row")
        .join(sums, on="row", how="left")
        .with_columns(pl.col(*_AGGREGATES).fill_null(0.0))
        .sort("row")
    )


def _by_sorting(lists: pl.DataFrame, table: pl.Series) -> pl.DataFrame | None:
    import numpy as np

    first, second = lists["a"], lists["b"]
    if first.dtype != second.dtype:
        return None
    flats = [side.explode(empty_as_null=False, keep_nulls=False) for side in (first, second)]
    if any(flat.null_count() for flat in flats):
        return None  # null items: the join path lets them match nothing
    lengths = [side.list.len().fill_null(0).to_numpy().astype(np.int64) for side in (first, second)]
    starts = [np.concatenate([[0], np.cumsum(length)]) for length in lengths]
    longest = max(int(length.max(initial=0)) for length in lengths)
    low = np.uint64(longest.bit_length() + 1)
    hashes = [flat.hash(seed=0).to_numpy() >> low << low for flat in flats]
    weights = table.to_numpy()
    n = lists.height
    sums = np.zeros((n, 4))
    blocks = [(begin, min(begin + _BLOCK_ROWS, n)) for begin in range(0, n, _BLOCK_ROWS)]
    # numpy's sort and ufuncs release the GIL: each worker sorts its own share of the
    # blocks with its own buffers, and writes its rows of `sums` (the same numbers
    # whatever the number of workers).
    workers = max(1, min(pl.thread_pool_size(), len(blocks)))
    shares = [blocks[worker::workers] for worker in range(workers)]

    def work(share: list[tuple[int, int]]) -> bool:
        sorter = _Sorter(lengths, starts, hashes, low, weights, flats)
        for begin, end in share:
            block = sorter.block(begin, end)
            if block is None:
                return False
            sums[begin:end] = block
        return True

    if workers == 1:
        done = [work(shares[0])]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            done = list(pool.map(work, shares))
    if not all(done):
        return None
    frame = pl.DataFrame(dict(zip(_AGGREGATES, sums.T, strict=True)))
    return frame.with_columns(lists["row"]).select("row", *_AGGREGATES)


class _Sorter:
    """The per-row sums of a block of rows, from sorted 64-bit keys."""

    def __init__(
        self,
        lengths: list[IntArray],
        starts: list[IntArray],
        hashes: list[KeyArray],
        low: np.uint64,
        weights: FloatArray,
        flats: list[pl.Series],
    ) -> None:
        import numpy as np

        self.lengths, self.starts, self.hashes = lengths, starts, hashes
        self.low, self.weights, self.flats = low, weights, flats
        # Buffers reused by every block: fresh large arrays cost a page fault a page.
        widest = int((lengths[0] + lengths[1]).max(initial=0))
        cells = min(_BLOCK_ROWS, lengths[0].size) * widest
        self.buffers = (np.empty(cells, dtype=np.uint64), np.empty(cells, dtype=np.uint64))
        self.equal = np.empty(max(cells - 1, 0), dtype=bool)

    def block(self, begin: int, end: int) -> FloatArray | None:
        """Sums of rows ``begin:end``; None to fall back to the join."""
        import numpy as np

        len_a, len_b = (length[begin:end] for length in self.lengths)
        rows, total = end - begin, len_a + len_b
        width = int(total.max(initial=0))
        sums = np.zeros((rows, 4))
        if width == 0:
            return sums
        keys = self.buffers[0][: rows * width].reshape(rows, width)
        keys.fill(np.iinfo(np.uint64).max)
        one = np.uint64(1)
        for side, (length, shift) in enumerate(((len_a, np.zeros_like(len_a)), (len_b, len_a))):
            start = self.starts[side]
            code = self.hashes[side][start[begin] : start[end]] | np.uint64(side)
            if (length == length[0]).all() and (shift == shift[0]).all():
                # Every ranking of the block has one length: slices, no scatter.
                count, offset = int(length[0]), int(shift[0])
                position = np.arange(1, count + 1, dtype=np.uint64) << one
                keys[:, offset : offset + count] = code.reshape(rows, count) | position
                continue
            row = np.repeat(np.arange(rows), length)
            column = np.arange(code.size) - np.repeat(start[begin:end] - start[begin], length)
            keys[row, column + shift[row]] = code | ((column + 1).astype(np.uint64) << one)
        keys.sort(axis=1)
        flat = keys.ravel()
        high = np.right_shift(flat, self.low, out=self.buffers[1][: flat.size])
        equal = np.equal(high[1:], high[:-1], out=self.equal[: flat.size - 1])
        candidates = np.flatnonzero(equal)
        match_row, match_column = np.divmod(candidates, width)
        keep = match_column < (total - 1)[match_row]  # not padding, not across rows
        candidates, match_row = candidates[keep], match_row[keep]
        if (np.diff(candidates) == 1).any():
            return None  # three keys alike: a repeated item or a collision
        left, right = flat[candidates], flat[candidates + 1]
        if ((left & one) == (right & one)).any():
            return None  # one side twice: a repeated item (or a collision)
        mask = (one << self.low) - one
        a_left = (left & one) == 0
        pos_left = ((left & mask) >> one).astype(np.int64)
        pos_right = ((right & mask) >> one).astype(np.int64)
        pos_a = np.where(a_left, pos_left, pos_right)
        pos_b = np.where(a_left, pos_right, pos_left)
        item_a = self.flats[0].gather(self.starts[0][match_row + begin] + pos_a - 1)
        item_b = self.flats[1].gather(self.starts[1][match_row + begin] + pos_b - 1)
        if not (item_a == item_b).all():
            return None  # a hash collision: let the join decide
        depth = np.maximum(pos_a, pos_b)
        before = self.weights[depth - 1]
        within = depth <= np.minimum(len_a, len_b)[match_row]
        sums[:, 0] = np.bincount(match_row, minlength=rows)
        sums[:, 1] = np.bincount(match_row, weights=within, minlength=rows)
        sums[:, 2] = np.bincount(match_row, weights=before, minlength=rows)
        sums[:, 3] = np.bincount(match_row, weights=before * within, minlength=rows)
        return sums
