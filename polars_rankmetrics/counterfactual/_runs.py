"""One pass over a log's slate and position columns: the structure checks and per-position sums.

The slate estimators' checks compare each row with the one above it (same
slate? next position?). Written as separate polars expressions, each check
recomputes the shifted columns; here one Python call per batch (per segment in
``group_by``) computes them once, over numpy views of the columns, and returns
every count in one struct. The self-normalised forms' per-position sums are
``numpy.bincount`` over the positions, not a hash ``over(position)``.
"""

from __future__ import annotations

import numpy as np
import polars as pl

STRUCTURE: tuple[str, ...] = ("twice", "order", "beyond")
"""The fields of :func:`structure_counts`, in the order their checks are reported."""

_COUNTS = pl.Struct(dict.fromkeys(STRUCTURE, pl.Int64))


def _counts(same: np.ndarray, index: np.ndarray) -> dict[str, int]:
    """Rows at a position twice, out of order, and beyond the slate's length or skipped."""
    if index.size == 0:
        return dict.fromkeys(STRUCTURE, 0)
    inside = same[1:]
    # a row is right when it is its slate's next position, or position 0 on a slate's first row
    expected = index[:-1] + 1
    np.multiply(expected, inside, out=expected)
    if index[0] == 0 and not np.count_nonzero(np.not_equal(index[1:], expected)):
        return dict.fromkeys(STRUCTURE, 0)
    step = index[1:] - index[:-1]
    skipped = np.count_nonzero(inside & (step > 1))
    return {
        "twice": int(np.count_nonzero(inside & (step == 0))),
        "order": int(np.count_nonzero(inside & (step < 0))),
        "beyond": int(skipped + np.count_nonzero(~same & (index > 0))),
    }


def _same(ids: pl.Series) -> np.ndarray:
    """True on a row whose slate id equals the row above's."""
    if not ids.dtype.is_integer() or ids.null_count():
        return (ids == ids.shift(1)).fill_null(False).to_numpy()
    values = ids.to_numpy()
    same = np.zeros(len(values), dtype=bool)
    np.equal(values[1:], values[:-1], out=same[1:])
    return same


def structure_counts(slate: pl.Expr, index: pl.Expr) -> pl.Expr:
    """A struct of the structure checks' counts (:data:`STRUCTURE`), one per batch or group.

    A null position makes every count 0: the null check reports it first.
    """

    def count(batch: pl.Series) -> pl.Series:
        ids, positions = batch.struct.field("slate"), batch.struct.field("index")
        if positions.null_count():
            counts = dict.fromkeys(STRUCTURE, 0)
        else:
            same = _same(ids)
            counts = _counts(same, positions.to_numpy())
        return pl.Series([counts], dtype=_COUNTS)

    both = pl.struct(slate.alias("slate"), index.alias("index"))
    return both.map_batches(count, return_dtype=_COUNTS, returns_scalar=True)


def _position_sums(
    where: np.ndarray, raws: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows, and sums of ``raws`` and ``weights``, at each position.

    When every slate has the same length ``m`` (each ``m``-th row from row
    ``m - 1`` at position ``m - 1``: with the structure checks passed, the log
    is then blocks of positions ``0 .. m - 1``), the sums are column sums of
    the ``(n / m, m)`` reshape; otherwise ``numpy.bincount``.
    """
    m = int(where.max()) + 1
    n = len(where)
    if n % m == 0 and bool((where[m - 1 :: m] == m - 1).all()):
        rows = np.full(m, n // m)
        # einsum's column sums run in one sweep over the rows (numpy's sum(axis=0) is slower)
        return (
            rows,
            np.einsum("ij->j", raws.reshape(-1, m)),
            np.einsum("ij->j", weights.reshape(-1, m)),
        )
    return np.bincount(where), np.bincount(where, raws), np.bincount(where, weights)


def position_normalised_sum(index: pl.Expr, raw: pl.Expr, weight: pl.Expr) -> pl.Expr:
    r"""The sum of ``raw / mean(weight at the row's position)``, one per batch or group.

    Equal to :math:`\sum_k R_k\, n_k / W_k` with :math:`R_k`, :math:`W_k` the
    sums of ``raw`` and ``weight`` at position :math:`k` and :math:`n_k` its
    rows. Null when a position is null, negative or beyond the rows (the
    checks then refuse the log).
    """

    def total(batch: pl.Series) -> pl.Series:
        positions = batch.struct.field("index")
        n = len(positions)
        if n == 0 or positions.null_count():
            return pl.Series([None], dtype=pl.Float64)
        where = positions.to_numpy()
        if where.min() < 0 or where.max() >= n:
            return pl.Series([None], dtype=pl.Float64)
        raws = batch.struct.field("raw").to_numpy()
        weights = batch.struct.field("weight").to_numpy()
        rows, raw_sums, weight_sums = _position_sums(where, raws, weights)
        with np.errstate(divide="ignore", invalid="ignore"):
            per = raw_sums * rows / weight_sums
        return pl.Series([float(per[rows > 0].sum())], dtype=pl.Float64)

    both = pl.struct(index.alias("index"), raw.alias("raw"), weight.alias("weight"))
    return both.map_batches(total, return_dtype=pl.Float64, returns_scalar=True)
