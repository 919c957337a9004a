"""The one-pass structure counts and per-position sums against plain numpy references."""

from __future__ import annotations

import numpy as np
import pytest

from polars_rankmetrics.counterfactual._runs import _counts, _position_sums


def _positions(lengths: list[int]) -> np.ndarray:
    return np.concatenate([np.arange(m) for m in lengths])


@pytest.mark.parametrize(
    "lengths", [[3, 3, 3], [3, 3, 2, 1], [1, 2, 3], [2, 1, 2, 1], [4], [1, 1, 1, 1]]
)
def test_position_sums(lengths: list[int]) -> None:
    where = _positions(lengths)
    rng = np.random.default_rng(len(lengths))
    raws, weights = rng.random(len(where)), rng.random(len(where))
    rows, raw_sums, weight_sums = _position_sums(where, raws, weights)
    np.testing.assert_array_equal(rows, np.bincount(where))
    np.testing.assert_allclose(raw_sums, np.bincount(where, raws), rtol=1e-12)
    np.testing.assert_allclose(weight_sums, np.bincount(where, weights), rtol=1e-12)


def _reference(slates: np.ndarray, index: np.ndarray) -> dict[str, int]:
    counts = dict.fromkeys(("twice", "order", "beyond"), 0)
    for row in range(len(index)):
        same = row > 0 and slates[row] == slates[row - 1]
        step = index[row] - index[row - 1] if same else None
        if same and step == 0:
            counts["twice"] += 1
        elif same and step is not None and step < 0:
            counts["order"] += 1
        elif (same and step is not None and step > 1) or (not same and index[row] > 0):
            counts["beyond"] += 1
    return counts


@pytest.mark.parametrize(
    ("slates", "index"),
    [
        ([0, 0, 0, 1, 1], [0, 1, 2, 0, 1]),
        ([0, 0, 0, 1, 1], [0, 0, 2, 0, 1]),
        ([0, 0, 0, 1, 1], [0, 2, 1, 1, 0]),
        ([0, 0, 1, 1, 1], [1, 2, 0, 3, 3]),
        ([5, 5, 2, 2], [0, 1, 0, 1]),
        ([], []),
    ],
)
def test_structure_counts(slates: list[int], index: list[int]) -> None:
    ids, positions = np.array(slates, dtype=np.int64), np.array(index, dtype=np.int64)
    same = np.zeros(len(ids), dtype=bool)
    same[1:] = ids[1:] == ids[:-1]
    assert _counts(same, positions) == _reference(ids, positions)
