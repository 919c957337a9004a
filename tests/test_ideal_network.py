"""The ideal DCG@k by a sorting network (engine/ideal.py): the same bits as sorting each list."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics.engine.entry as entry
from polars_rankmetrics.engine import Ranking, Threshold, evaluate
from polars_rankmetrics.engine.ideal import NETWORK_INPUTS, layers, network_ideal_dcg
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
