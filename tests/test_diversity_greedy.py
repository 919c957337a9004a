"""The batched greedy ideal (numpy over blocks of queries) against the per-query Python one.

:func:`~polars_rankmetrics.metrics.diversity_ideal.ideal_value` (one Python call
per query, ndeval's greedy list written out) is the slow reference; the batched
:func:`~polars_rankmetrics.metrics.diversity_greedy.greedy_values` must give the
same bits for every list, with ties of gain and of key, duplicate subtopics,
intent weights (some lists shorter than the subtopics, some missing), string and
integer subtopics and document ids, empty queries, and every discount.
"""

from __future__ import annotations

import random
import zlib
from typing import Any

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.metrics import (
    diversity_dense,
    diversity_flat,
    diversity_greedy,
)
from polars_rankmetrics.metrics.diversity_ideal import ideal_value


def _lists(
    seed: int, *, n_queries: int, doc: str | None, weights: bool, text: bool, wide: bool
) -> pl.Series:
    rng = random.Random(seed)
    universe = [f"s{i}" for i in range(12)] if text else list(range(-3, 14) if wide else range(6))
    rows: list[list[dict[str, Any]] | None] = []
    for _ in range(n_queries):
        if rng.random() < 0.05:
            rows.append(None if rng.random() < 0.5 else [])
            continue
        query: list[dict[str, Any]] = []
        ids = rng.sample(range(1000), 40)
        for i in range(rng.randint(1, 25)):
            subtopics = [rng.choice(universe) for _ in range(rng.randint(1, 4))]
            row: dict[str, Any] = {"subtopics": subtopics}
            if weights:
                # Some lists short or missing (weight 1 then), some subtopics weighted twice.
                n = rng.choice([0, len(subtopics), len(subtopics), max(len(subtopics) - 1, 0)])
                row["weights"] = (
                    None
                    if rng.random() < 0.1
                    else [rng.choice([0.1, 0.25, 0.5, 2.0]) for _ in range(n)]
                )
            if doc == "int":
                # Duplicate ids now and then: the tie then goes to the set met first.
                row["doc"] = ids[i] if rng.random() < 0.9 else ids[0]
            elif doc == "str":
                row["doc"] = f"d{ids[i]}"
            query.append(row)
        rows.append(query)
    # The type is given, not inferred: a first row without weights would make them Null.
    fields: dict[str, pl.DataType] = {"subtopics": pl.List(pl.String if text else pl.Int64)}
    if weights:
        fields["weights"] = pl.List(pl.Float64)
    if doc is not None:
        fields["doc"] = pl.Int64() if doc == "int" else pl.String()
    return pl.Series("lists", rows, dtype=pl.List(pl.Struct(fields)))


CASES = [
    {"doc": None, "weights": False, "text": False, "wide": False},
    {"doc": None, "weights": False, "text": False, "wide": True},
    {"doc": "int", "weights": False, "text": False, "wide": True},
    {"doc": "str", "weights": False, "text": True, "wide": False},
    {"doc": None, "weights": True, "text": True, "wide": False},
    {"doc": "int", "weights": True, "text": False, "wide": False},
    {"doc": "str", "weights": True, "text": False, "wide": True},
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    ("alpha", "discount", "depth"),
    [(0.5, "log", 20), (0.0, "reciprocal", 5), (1.0, "log", 3), (0.3, "geometric", None)],
)
def test_batched_greedy_equals_the_per_query_reference(
    case: dict[str, Any],
    alpha: float,
    discount: Any,
    depth: int | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("the batched path fell back to the reference")

    monkeypatch.setattr(diversity_greedy, "_one_by_one", refuse)
    # A seed that does not follow PYTHONHASHSEED, so that every run draws the same data.
    lists = _lists(zlib.crc32(f"{case}{alpha}".encode()) % 1000, n_queries=60, **case)
    options: dict[str, Any] = {"alpha": alpha, "discount": discount, "depth": depth, "beta": 0.7}
    ours = diversity_greedy.greedy_values(lists, **options).to_list()
    expected = [
        0.0 if batch is None else ideal_value(batch, ideal="greedy", **options) for batch in lists
    ]
    assert ours == expected  # bit for bit


@pytest.mark.parametrize("mask_bits", [0, 8, 62])
def test_pools_told_apart_by_mask_or_by_subtopic_ids(
    mask_bits: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sets of subtopics as bit masks (packed with the query or not) or as padded id rows.

    The flat arrays in the dense layout (few distinct subtopics) or numbered by sorting.
    """
    monkeypatch.setattr(diversity_greedy, "MASK_BITS", mask_bits)
    monkeypatch.setattr(diversity_flat, "MASK_BITS", mask_bits)
    for doc in (None, "int"):
        lists = _lists(7, n_queries=80, doc=doc, weights=True, text=False, wide=True)
        options: dict[str, Any] = {"alpha": 0.5, "discount": "log", "depth": 10}
        expected = [0.0 if b is None else ideal_value(b, **options) for b in lists]
        assert diversity_greedy.greedy_values(lists, **options).to_list() == expected


def test_without_numpy_it_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    lists = _lists(3, n_queries=10, doc=None, weights=False, text=False, wide=False)
    monkeypatch.setattr(diversity_greedy, "_vectorisable", lambda _: False)
    options: dict[str, Any] = {"alpha": 0.5, "discount": "log", "depth": 5}
    expected = [0.0 if b is None else ideal_value(b, **options) for b in lists]
    assert diversity_greedy.greedy_values(lists, **options).to_list() == expected


@pytest.mark.parametrize("weighted", [False, True])
def test_the_measures_call_it_once_for_all_queries(
    weighted: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alpha-nDCG, nERR-IA and nNRBP read the batched ideal: one call, not one per query.

    Without intent weights the whole measure is batched (``diversity_batched``);
    with them the ideal alone (``greedy_values``).
    """
    calls: list[int] = []
    if weighted:
        original = diversity_greedy.ideal_values

        def counted(flat: Any, *args: Any, **options: Any) -> Any:
            calls.append(flat.n_lists)
            return original(flat, *args, **options)

        monkeypatch.setattr(diversity_greedy, "ideal_values", counted)
    else:  # the bit-mask path of the batched measures (small integer subtopics)
        dense_ideal = diversity_dense.dense_ideal

        def counted_dense(available: Any, *args: Any) -> Any:
            calls.append(len(available))
            return dense_ideal(available, *args)

        monkeypatch.setattr(diversity_dense, "dense_ideal", counted_dense)
    frame = pl.DataFrame(
        {
            "query": [1, 1, 1, 2, 2, 3],
            "score": [0.9, 0.5, 0.1, 0.3, 0.2, 0.7],
            "subtopics": [[1, 2], [2], [], [1], [1, 3], [2]],
            "weights": [[0.5, 0.5], [0.5], [], [1.0], [1.0, 1.0], [1.0]],
        }
    )
    options: dict[str, Any] = {"by": "score"}
    if weighted:
        options["intent_weights"] = "weights"
    frame.group_by("query").agg(
        rm.alpha_ndcg_at_k("subtopics", 2, **options),
        rm.nerr_ia_at_k("subtopics", 2, **options).alias("e"),
        rm.nnrbp("subtopics", **options).alias("n"),
    )
    assert calls == [3, 3, 3]
