"""The depth from which each common item of two rankings counts, summed per row.

For rankings ``a`` and ``b`` of one row, a common item counts in the overlap
``X_d`` from depth ``m = max(position in a, position in b)`` on. Every form of
RBO needs, per row, only ``X_l`` (common items), ``X_s`` (those with ``m <=
min length``) and the sums of ``W(m - 1)`` over both sets, for a table ``W``.

Two exact implementations give the same numbers:

- :func:`_by_join`: pure polars, explode both lists and join on (row, item);
- :func:`_by_sorting`: numpy, when it is installed. Each item becomes one
  64-bit key, its hash's high bits over its side (one bit) and its position;
  each row's keys are sorted (numpy's SIMD sort of a padded matrix, in blocks
  of 1,024 rows, small enough for the CPU's cache) and a common item is two
  adjacent keys that differ only in the side bit above the positions. Every
  such pair is then checked on the items themselves (integers in numpy, other
  types by polars), so a hash collision cannot give a wrong number; anything
  unusual (a collision, an item twice in a ranking, a null item) sends the
  batch to :func:`_by_join`, which reports it.
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

_BLOCK_ROWS = 1024
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
    hashes = [flat.hash(seed=0).to_numpy() for flat in flats]
    # Integer items are checked on their values; others by polars.
    values = [flat.to_numpy() for flat in flats] if flats[0].dtype.is_integer() else None
    n = lists.height
    sums = np.zeros((n, 4))
    blocks = [(begin, min(begin + _BLOCK_ROWS, n)) for begin in range(0, n, _BLOCK_ROWS)]
    # numpy's sort and ufuncs release the GIL: each worker sorts its own share of the
    # blocks with its own buffers, and writes its rows of `sums` (the same numbers
    # whatever the number of workers).
    workers = max(1, min(pl.thread_pool_size(), len(blocks)))
    shares = [blocks[worker::workers] for worker in range(workers)]

    def work(share: list[tuple[int, int]]) -> bool:
        sorter = _Sorter(lengths, starts, hashes, table.to_numpy(), flats, values)
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
    """The per-row sums of a block of rows, from sorted 64-bit keys.

    A key is an item's hash with its low bits replaced by its side (one bit: 0
    for ``a``, 1 for ``b``) over its position (1-based): sorted, the keys of one
    item sit side by side, ``a``'s first, so that two neighbours whose keys
    differ in the side bit only above the position bits are a common item.
    """

    def __init__(
        self,
        lengths: list[IntArray],
        starts: list[IntArray],
        hashes: list[KeyArray],
        weights: FloatArray,
        flats: list[pl.Series],
        values: list[IntArray] | None,
    ) -> None:
        import numpy as np

        self.lengths, self.starts, self.hashes, self.flats = lengths, starts, hashes, flats
        self.values = values
        longest = max(int(length.max(initial=0)) for length in lengths)
        bits = max(longest.bit_length(), 1)
        self.bits = np.uint64(bits)
        self.positions = np.uint64((1 << bits) - 1)
        self.high = ~np.uint64((1 << (bits + 1)) - 1)
        tags = np.arange(1, longest + 1, dtype=np.uint64)
        self.tags = (tags, tags | np.uint64(1 << bits))
        # before[m] = W(m - 1): what a common item counted from depth m takes off W(l).
        self.before = np.concatenate([[0.0], weights])
        # Buffers reused by every block: fresh large arrays cost a page fault a page.
        widest = int((lengths[0] + lengths[1]).max(initial=0))
        cells = min(_BLOCK_ROWS, lengths[0].size) * widest
        self.keys = np.empty(cells, dtype=np.uint64)
        self.spare = np.empty(cells, dtype=np.uint64)
        self.match = np.empty(cells, dtype=bool)

    def block(self, begin: int, end: int) -> FloatArray | None:
        """Sums of rows ``begin:end``; None to fall back to the join."""
        import numpy as np

        len_a, len_b = (length[begin:end] for length in self.lengths)
        rows, total = end - begin, len_a + len_b
        width = int(total.max(initial=0))
        sums = np.zeros((rows, 4))
        if width < 2:
            return sums
        keys = self.keys[: rows * width].reshape(rows, width)
        uniform = bool((len_a == len_a[0]).all() and (len_b == len_b[0]).all())
        if not uniform:
            keys.fill(np.iinfo(np.uint64).max)
        for side, (length, shift) in enumerate(((len_a, np.zeros_like(len_a)), (len_b, len_a))):
            start = self.starts[side]
            code = self.hashes[side][start[begin] : start[end]]
            if uniform:
                # Every ranking of the block has one length: slices, no scatter.
                count, offset = int(length[0]), int(shift[0])
                target = keys[:, offset : offset + count]
                np.bitwise_and(code.reshape(rows, count), self.high, out=target)
                np.bitwise_or(target, self.tags[side][:count], out=target)
                continue
            row = np.repeat(np.arange(rows), length)
            column = np.arange(code.size) - np.repeat(start[begin:end] - start[begin], length)
            keys[row, column + shift[row]] = (code & self.high) | self.tags[side][column]
        keys.sort(axis=1)
        flat = keys.ravel()
        cells = flat.size
        above = np.bitwise_xor(flat[1:], flat[:-1], out=self.spare[: cells - 1])
        np.right_shift(above, self.bits, out=above)
        above[width - 1 :: width] = 2  # the pairs across two rows: never a match
        # 0: one item twice on one side (or a collision there), or two paddings.
        paddings = int(np.maximum(width - total - 1, 0).sum())
        if np.count_nonzero(above == 0) != paddings:
            return None
        match = self.match[:cells]
        np.equal(above, 1, out=match[:-1])
        match[-1] = False
        if not uniform:  # no pair with a padding
            match.reshape(rows, width)[np.arange(width) >= (total - 1)[:, None]] = False
        counts = np.count_nonzero(match.reshape(rows, width), axis=1)
        match_row = np.repeat(np.arange(rows), counts)
        left = np.flatnonzero(match)
        pos_a = (flat[left] & self.positions).astype(np.int64)
        pos_b = (flat[left + 1] & self.positions).astype(np.int64)
        index_a = self.starts[0][begin:end][match_row] + pos_a - 1
        index_b = self.starts[1][begin:end][match_row] + pos_b - 1
        if not self.same(index_a, index_b):
            return None  # a hash collision: let the join decide
        depth = np.maximum(pos_a, pos_b)
        before = self.before[depth]
        sums[:, 0] = counts
        sums[:, 2] = np.bincount(match_row, weights=before, minlength=rows)
        if uniform and len_a[0] == len_b[0]:
            sums[:, 1], sums[:, 3] = sums[:, 0], sums[:, 2]
            return sums
        within = depth <= np.minimum(len_a, len_b)[match_row]
        sums[:, 1] = np.bincount(match_row, weights=within, minlength=rows)
        sums[:, 3] = np.bincount(match_row[within], weights=before[within], minlength=rows)
        return sums

    def same(self, index_a: IntArray, index_b: IntArray) -> bool:
        """Whether item ``index_a[i]`` of ``a`` equals item ``index_b[i]`` of ``b``, for all i."""
        if self.values is not None:
            return bool((self.values[0][index_a] == self.values[1][index_b]).all())
        return bool((self.flats[0].gather(index_a) == self.flats[1].gather(index_b)).all())
