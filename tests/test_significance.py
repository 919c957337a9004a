"""Significance tests, intervals and corrections against scipy and slow references."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from polars_rankmetrics.comparisons.significance import (
    adjust_p_values,
    bootstrap_ci,
    bootstrap_test,
    paired_t_test,
    randomization_test,
    t_ci,
)


def _slow_exact_randomization(treatment: list[float], baseline: list[float]) -> float:
    """Enumerate every sign assignment in a Python loop."""
    differences = [a - b for a, b in zip(treatment, baseline, strict=True)]
    observed = abs(sum(differences))
    # The documented tie rule: within 1e-10 * sum(|d|) counts as equal.
    slack = 1e-10 * sum(abs(d) for d in differences)
    extreme = 0
    assignments = list(itertools.product((1, -1), repeat=len(differences)))
    for signs in assignments:
        flipped = abs(sum(s * d for s, d in zip(signs, differences, strict=True)))
        if flipped >= observed - slack:
            extreme += 1
    return extreme / len(assignments)


def _slow_bootstrap_test(differences: list[float], n_resamples: int, seed: int) -> float:
    """The shifted-mean paired bootstrap test with Python's random module."""
    generator = random.Random(seed)
    n = len(differences)
    mean = sum(differences) / n
    centred = [d - mean for d in differences]
    extreme = sum(
        abs(sum(generator.choice(centred) for _ in range(n)) / n) >= abs(mean) - 1e-12
        for _ in range(n_resamples)
    )
    return (extreme + 1) / (n_resamples + 1)


def _holm_rejects(p_values: list[float], alpha: float) -> set[int]:
    """Holm's step-down procedure as published: stop at the first non-rejection."""
    m = len(p_values)
    rejected: set[int] = set()
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        if p_values[index] > alpha / (m - rank):
            break
        rejected.add(index)
    return rejected


unit_floats = st.floats(0, 1, allow_nan=False, width=32)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(unit_floats, unit_floats), min_size=2, max_size=40))
def test_t_test_equals_scipy_ttest_rel(pairs: list[tuple[float, float]]) -> None:
    treatment, baseline = (np.array(values) for values in zip(*pairs, strict=True))
    differences = treatment - baseline
    if differences.std(ddof=1) == 0:
        expected = 1.0 if differences.mean() == 0 else 0.0
    else:
        expected = stats.ttest_rel(treatment, baseline).pvalue
    assert paired_t_test(treatment, baseline) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_t_test_edge_cases() -> None:
    assert paired_t_test([0.3, 0.5, 0.7], [0.3, 0.5, 0.7]) == 1.0
    assert np.isnan(paired_t_test([0.3], [0.1]))
    assert paired_t_test([1.0, 1.0, 1.0], [0.0, 0.0, 0.0]) == 0.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(unit_floats, unit_floats), min_size=1, max_size=8))
def test_exact_randomization_equals_slow_enumeration(pairs: list[tuple[float, float]]) -> None:
    treatment, baseline = (list(values) for values in zip(*pairs, strict=True))
    assert randomization_test(treatment, baseline, n_resamples=256) == pytest.approx(
        _slow_exact_randomization(treatment, baseline)
    )


def test_exact_randomization_enumerates_in_bounded_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    # The exact test once allocated 2**n x n signs at once (24 queries: about 6 GB).
    # It enumerates in blocks of at most _BLOCK_CELLS signs; with tiny blocks the
    # p-value is still the exact enumeration's.
    import polars_rankmetrics.comparisons.significance as significance

    rng = np.random.default_rng(3)
    treatment, baseline = rng.uniform(0, 1, 9), rng.uniform(0, 1, 9)
    expected = _slow_exact_randomization(list(treatment), list(baseline))
    monkeypatch.setattr(significance, "_BLOCK_CELLS", 40)  # 4 assignments of 9 signs a block
    blocks = list(significance._blocks(1 << 9, 9))
    assert len(blocks) == 128 and max(blocks) == 4
    assert randomization_test(treatment, baseline, n_resamples=512) == pytest.approx(expected)


def test_randomization_uses_exact_test_up_to_n_resamples() -> None:
    treatment = [0.5, 0.6, 0.9, 0.7, 0.3, 0.8]
    baseline = [0.4, 0.5, 0.5, 0.5, 0.4, 0.6]
    exact = _slow_exact_randomization(treatment, baseline)
    # 2**6 = 64 sign vectors: exact (and seed-independent) at 64 resamples, Monte Carlo at 63.
    assert randomization_test(treatment, baseline, n_resamples=64, seed=1) == exact
    assert randomization_test(treatment, baseline, n_resamples=64, seed=2) == exact
    monte_carlo = {
        randomization_test(treatment, baseline, n_resamples=63, seed=s) for s in range(8)
    }
    assert len(monte_carlo) > 1  # random draws depend on the seed
    assert all(p * 64 == pytest.approx(round(p * 64)) for p in monte_carlo)  # (b + 1) / 64


def test_monte_carlo_randomization_is_close_to_exact() -> None:
    rng = np.random.default_rng(7)
    treatment = rng.uniform(0, 1, 16)
    baseline = np.clip(treatment - rng.normal(0.08, 0.2, 16), 0, 1)
    exact = _slow_exact_randomization(list(treatment), list(baseline))
    assert 0.01 < exact < 0.5  # an informative case
    estimate = randomization_test(treatment, baseline, n_resamples=20_000, seed=3)
    # Standard error of the estimate: sqrt(p (1 - p) / 20000) < 0.0036.
    assert estimate == pytest.approx(exact, abs=0.012)


def test_resampling_tests_are_deterministic_per_seed() -> None:
    rng = np.random.default_rng(0)
    treatment, baseline = rng.uniform(0, 1, 40), rng.uniform(0, 1, 40)
    for test in (randomization_test, bootstrap_test):
        first = test(treatment, baseline, n_resamples=999, seed=11)
        assert test(treatment, baseline, n_resamples=999, seed=11) == first
        others = {test(treatment, baseline, n_resamples=999, seed=s) for s in range(5)}
        assert len(others) > 1
    low_high = bootstrap_ci(treatment, n_resamples=999, seed=5)
    assert bootstrap_ci(treatment, n_resamples=999, seed=5) == low_high


def test_resampling_is_blockwise_but_independent_of_block_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import polars_rankmetrics.comparisons.significance as significance

    rng = np.random.default_rng(1)
    treatment, baseline = rng.uniform(0, 1, 30), rng.uniform(0, 1, 30)
    whole = randomization_test(treatment, baseline, n_resamples=3000, seed=4)
    monkeypatch.setattr(significance, "_BLOCK_CELLS", 30 * 7)  # blocks of 7 resamples
    blocked = randomization_test(treatment, baseline, n_resamples=3000, seed=4)
    # Another block size draws other signs, but the p-value estimates the same quantity.
    assert blocked == pytest.approx(whole, abs=0.03)


def test_bootstrap_test_matches_a_slow_loop() -> None:
    rng = np.random.default_rng(2)
    baseline = rng.uniform(0, 1, 25)
    treatment = np.clip(baseline + rng.normal(0.05, 0.15, 25), 0, 1)
    slow = _slow_bootstrap_test(list(treatment - baseline), 4000, seed=9)
    fast = bootstrap_test(treatment, baseline, n_resamples=20_000, seed=9)
    assert 0.01 < slow < 0.9
    assert fast == pytest.approx(slow, abs=0.025)


def test_bootstrap_test_holds_its_level_under_the_null() -> None:
    rng = np.random.default_rng(3)
    rejections = 0
    trials = 200
    for trial in range(trials):
        baseline = rng.uniform(0, 1, 30)
        treatment = baseline + rng.normal(0, 0.1, 30)  # no true difference
        rejections += bootstrap_test(treatment, baseline, n_resamples=400, seed=trial) <= 0.05
    assert 0.01 <= rejections / trials <= 0.11


def test_tests_agree_on_a_clear_difference() -> None:
    rng = np.random.default_rng(4)
    baseline = rng.uniform(0, 0.6, 50)
    treatment = baseline + rng.uniform(0.0, 0.3, 50)
    assert paired_t_test(treatment, baseline) < 1e-6
    assert randomization_test(treatment, baseline, n_resamples=2000) == 1 / 2001
    assert bootstrap_test(treatment, baseline, n_resamples=2000) == 1 / 2001


def test_bootstrap_ci_matches_scipy_percentile_bootstrap() -> None:
    rng = np.random.default_rng(5)
    values = rng.beta(2, 5, 60)
    ours = bootstrap_ci(values, n_resamples=20_000, seed=1)
    theirs = stats.bootstrap(
        (values,), np.mean, n_resamples=20_000, method="percentile", random_state=2
    ).confidence_interval
    assert ours[0] == pytest.approx(theirs.low, abs=0.004)
    assert ours[1] == pytest.approx(theirs.high, abs=0.004)


def test_bootstrap_ci_coverage_on_known_data() -> None:
    rng = np.random.default_rng(6)
    true_mean = 0.4
    trials = 300
    covered = 0
    for trial in range(trials):
        sample = rng.normal(true_mean, 0.15, 40)
        low, high = bootstrap_ci(sample, confidence=0.9, n_resamples=500, seed=trial)
        covered += low <= true_mean <= high
    # Nominal 90%; the percentile interval undercovers slightly at n = 40.
    assert 0.84 <= covered / trials <= 0.95


def test_t_ci_equals_scipy_t_interval() -> None:
    values = np.array([0.1, 0.4, 0.35, 0.8, 0.55, 0.2])
    expected = stats.t.interval(0.9, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    assert t_ci(values, confidence=0.9) == pytest.approx(expected)


def test_intervals_of_degenerate_samples() -> None:
    assert bootstrap_ci([0.3], n_resamples=10) == (0.3, 0.3)
    assert all(np.isnan(bound) for bound in bootstrap_ci([], n_resamples=10))
    assert all(np.isnan(bound) for bound in t_ci([0.3]))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=12))
def test_holm_rejects_exactly_what_the_step_down_procedure_rejects(
    p_values: list[float],
) -> None:
    adjusted = adjust_p_values(p_values, "holm")
    for alpha in (0.001, 0.01, 0.05, 0.1, 0.5):
        assert {i for i, p in enumerate(adjusted) if p <= alpha} == _holm_rejects(p_values, alpha)
    assert all(adjusted >= np.array(p_values))
    assert all(adjusted <= 1)


def test_corrections_on_a_hand_computed_example() -> None:
    p_values = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 -> 0.02, 0.03, 0.06, 0.04,
    # then the running maximum: 0.02, 0.03, 0.06, 0.06.
    assert adjust_p_values(p_values, "holm").tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert adjust_p_values(p_values, "bonferroni").tolist() == pytest.approx(
        [0.04, 0.16, 0.12, 0.02]
    )
    assert adjust_p_values(p_values, None).tolist() == p_values
    with_nan = adjust_p_values([0.01, float("nan"), 0.04], "bonferroni")
    assert with_nan[0] == pytest.approx(0.02) and np.isnan(with_nan[1])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: randomization_test([1.0], [0.0], n_resamples=0), "n_resamples"),
        (lambda: bootstrap_test([1.0], [0.0], n_resamples=True), "n_resamples"),
        (lambda: bootstrap_ci([1.0], confidence=1.0), "confidence"),
        (lambda: t_ci([1.0, 2.0], confidence=0), "confidence"),
        (lambda: adjust_p_values([0.1], "fdr"), "correction"),  # type: ignore[arg-type]
        (lambda: paired_t_test([1.0, 2.0], [1.0]), "equal length"),
        (lambda: paired_t_test([1.0, float("nan")], [1.0, 0.0]), "NaN"),
    ],
)
def test_bad_parameters_raise(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]
