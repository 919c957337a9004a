"""The ideal DCG@k by a sorting network or by counting (engine/ideal.py): the bits of a sort."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics.engine.entry as entry
import polars_rankmetrics.engine.staged as staged
from polars_rankmetrics.engine import Ranking, Threshold, evaluate
from polars_rankmetrics.engine.ideal import (
    COUNTED_LEVELS,
    NETWORK_INPUTS,
    counted_ideal_dcg,
    layers,
    network_ideal_dcg,
)
from polars_rankmetrics.metrics.average_precision import ap_statistic
from polars_rankmetrics.metrics.dcg import ndcg_statistic


def test_network_sorts_every_zero_one_input() -> None:
    # The 0-1 principle: a comparator network that sorts every 0-1 input sorts any input.
    for bits in itertools.product([0, 1], repeat=NETWORK_INPUTS):
        values = list(bits)
        for layer in layers():
            touched = [i for pair in layer for i in pair]
            assert len(touched) == len(set(touched)), "a layer's pairs must be disjoint"
            for a, b in layer:
                values[a], values[b] = max(values[a], values[b]), min(values[a], values[b])
        assert values == sorted(bits, reverse=True)


def _reference(labels: list[float], k: int, exponential: bool) -> float:
    """The in-order sum over the sorted labels' top k, as the sorted path adds it."""
    total = 0.0
    for i, label in enumerate(sorted(labels, reverse=True)[:k]):
        gain = 2.0**label - 1.0 if exponential else label
        total += gain / math.log2(i + 2)
    return total


@pytest.mark.parametrize("exponential", [False, True])
@pytest.mark.parametrize("k", [1, 3, 10])
def test_network_ideal_dcg_is_the_sorted_sum(k: int, exponential: bool) -> None:
    rng = np.random.default_rng(k)
    lists = [[]]  # no label at all
    for size in [*range(1, 26), 40, 100]:
        for _ in range(4):
            labels = rng.choice([0.0, 0.0, 1.0, 2.0, 3.0, 0.3, 2.7, 1e-300], size)
            lists.append(labels.tolist())
    frame = pl.DataFrame({"labels": lists}, schema={"labels": pl.List(pl.Float64)})

    def gains(label: pl.Expr) -> pl.Expr:
        return pl.lit(2.0).pow(label) - 1.0 if exponential else label

    got = frame.select(network_ideal_dcg(pl.col("labels"), k, gains).alias("v"))["v"]
    want = [_reference(labels, k, exponential) for labels in lists]
    assert got.to_list() == want


def test_network_refuses_a_larger_cutoff() -> None:
    with pytest.raises(ValueError, match="top 10 at most"):
        network_ideal_dcg(pl.col("labels"), NETWORK_INPUTS + 1, lambda label: label)


def _frame(seed: int) -> pl.DataFrame:
    """Queries of 1 to 40 rows, many with more than ten positive (float) labels."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 41, 60)
    n = int(sizes.sum())
    score = rng.integers(0, 8, n).astype(float)
    score[rng.random(n) < 0.15] = np.nan
    return pl.DataFrame(
        {
            "query": np.repeat(np.arange(60), sizes),
            "score": score,
            "relevance": rng.choice([-1.0, 0.0, 1.0, 2.0, 3.0, 0.5, 2.5, 4.0], n),
        }
    ).sample(fraction=1.0, shuffle=True, seed=seed)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("relevant_only", [False, True])
@pytest.mark.parametrize("threshold", [Threshold(0.0), Threshold(2.0, inclusive=True)])
def test_fast_ndcg_equals_the_plain_path(
    seed: int, gain: str, relevant_only: bool, threshold: Threshold, monkeypatch: pytest.MonkeyPatch
) -> None:
    ranking = Ranking.build("relevance", "score", True, threshold)
    bound = [
        ndcg_statistic.bind(f"n{k}", "null", k=k, gain=gain, relevant_only=relevant_only)
        for k in (1, 2, 5, 10, 11, 20)
    ]
    frame = _frame(seed)
    fast = evaluate(ranking, bound)
    monkeypatch.setattr(entry, "FAST_PATHS", False)
    plain = evaluate(ranking, bound)
    grouped = frame.group_by("query").agg(fast.alias("fast"), plain.alias("plain")).sort("query")
    assert_frame_equal(
        grouped.select(pl.col("fast").struct.unnest()),
        grouped.select(pl.col("plain").struct.unnest()),
        check_exact=True,
    )


@pytest.mark.parametrize("exponential", [False, True])
@pytest.mark.parametrize("k", [1, 4, 10])
def test_counted_ideal_dcg_is_the_sorted_sum(k: int, exponential: bool) -> None:
    # Codes of integer labels: l >= 0 retrieved, -1 - l not retrieved; labels above
    # COUNTED_LEVELS send their list to the sort.
    rng = np.random.default_rng(k)
    lists: list[list[float]] = [[]]
    for size in [*range(1, 26), 40, 100]:
        for _ in range(4):
            labels = rng.choice([0, 0, 1, 2, 3, 4, 5, 9], size)
            retrieved = rng.random(size) < 0.8
            lists.append(
                [float(x if r else -1 - x) for x, r in zip(labels, retrieved, strict=True)]
            )
    frame = pl.DataFrame({"codes": lists}, schema={"codes": pl.List(pl.Float64)})

    def gains(label: pl.Expr) -> pl.Expr:
        return pl.lit(2.0).pow(label) - 1.0 if exponential else label

    got = frame.select(counted_ideal_dcg(pl.col("codes"), k, gains).alias("v"))["v"]
    want = [_reference([c if c >= 0 else -1 - c for c in codes], k, exponential) for codes in lists]
    assert got.to_list() == want
    assert COUNTED_LEVELS < 5  # the lists with a 5 or a 9 took the sort


@pytest.mark.parametrize("dtype", [pl.Int8, pl.Int64, pl.UInt8, pl.Boolean])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("threshold", [Threshold(0.0), Threshold(2.0, inclusive=True)])
def test_fast_ndcg_of_integer_labels_equals_the_plain_path(
    dtype: pl.DataType, gain: str, threshold: Threshold, monkeypatch: pytest.MonkeyPatch
) -> None:
    ranking = Ranking.build("relevance", "score", True, threshold)
    bound = [ndcg_statistic.bind(f"n{k}", "null", k=k, gain=gain) for k in (1, 3, 10, 20)]
    frame = _frame(0).with_columns(
        (pl.col("relevance") * 2).cast(pl.Int8).cast(dtype, strict=False).alias("relevance")
    )
    fast = evaluate(ranking, bound)
    monkeypatch.setattr(entry, "FAST_PATHS", False)
    plain = evaluate(ranking, bound)
    grouped = frame.group_by("query").agg(fast.alias("fast"), plain.alias("plain")).sort("query")
    assert_frame_equal(
        grouped.select(pl.col("fast").struct.unnest()),
        grouped.select(pl.col("plain").struct.unnest()),
        check_exact=True,
    )


def test_the_relevance_type_picks_the_counted_ideal(monkeypatch: pytest.MonkeyPatch) -> None:
    ranking = Ranking.build("relevance", "score", True, Threshold())
    bound = [ndcg_statistic.bind("n10", "null", k=10, gain="linear"), ap_statistic.bind("AP")]
    frame = _frame(1).with_columns(pl.col("relevance").cast(pl.Int16))
    by_type = frame.group_by("query").agg(evaluate(ranking, bound)).sort("query")
    for forced in (True, False):
        monkeypatch.setattr(staged, "INTEGER_LABELS", forced)
        forms = frame.group_by("query").agg(evaluate(ranking, bound)).sort("query")
        assert_frame_equal(by_type, forms, check_exact=True)
    monkeypatch.setattr(staged, "INTEGER_LABELS", None)
    assert "PipeWithDtype" in evaluate(ranking, bound).meta.serialize(format="json")
