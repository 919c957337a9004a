"""Comparing many systems: parity of each test with its reference package.

- corrections == ``statsmodels.stats.multitest.multipletests`` (1e-12);
- Wilcoxon == ``scipy.stats.wilcoxon`` (every zero_method, correction, method),
  sign test == ``scipy.stats.binomtest`` (1e-12);
- one-way Tukey HSD == ``scipy.stats.tukey_hsd`` (1e-9); two-way Tukey HSD ==
  statsmodels' two-way ANOVA residual + ``scipy.stats.studentized_range`` (1e-9);
- ANOVA tables == statsmodels ``anova_lm`` (one- and two-way) and ``AnovaRM`` (1e-9);
- randomised Tukey HSD == a slow exact permutation p-value written here (exact
  path: equal; sampled path: within 0.01), deterministic with a seed.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.comparisons.corrections import CORRECTIONS, correct
from polars_rankmetrics.comparisons.rank_tests import sign_test, wilcoxon_test
from polars_rankmetrics.comparisons.tukey import (
    randomised_tukey_hsd,
    tukey_hsd,
    tukey_hsd_two_way,
)

stats = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest")


def _frame(values: np.ndarray, metric: str = "ap") -> pl.DataFrame:
    k, n = values.shape
    return pl.DataFrame(
        {
            "system": [f"s{i}" for i in range(k) for _ in range(n)],
            "query": [f"q{j}" for _ in range(k) for j in range(n)],
            metric: values.reshape(-1),
        }
    )


@pytest.mark.parametrize("method", sorted(CORRECTIONS))
def test_corrections_equal_multipletests(method: str) -> None:
    rng = np.random.default_rng(7)
    for size in (1, 2, 5, 17, 60):
        for p in (rng.random(size), rng.random(size) ** 6, np.round(rng.random(size), 1)):
            with np.errstate(divide="ignore"):
                expected = multitest.multipletests(p, method=method)[1]
            np.testing.assert_allclose(correct(p, method), expected, rtol=0, atol=1e-12)


def test_corrections_keep_nan_out_of_the_family() -> None:
    p = np.array([0.01, np.nan, 0.04, 0.03])
    adjusted = correct(p, "holm")
    assert np.isnan(adjusted[1])
    expected = multitest.multipletests(p[[0, 2, 3]], method="holm")[1]
    np.testing.assert_allclose(adjusted[[0, 2, 3]], expected, atol=1e-12)
    assert correct(p, None) is not p
    with pytest.raises(ValueError, match="`method` must be one of 'bonferroni'"):
        correct(p, "hochberg")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"lie in \[0, 1\]"):
        correct([0.5, 1.5], "holm")


def _paired_samples(rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    samples = []
    for n in (1, 3, 8, 13, 14, 30, 50, 51, 80):
        samples.append((rng.random(n), rng.random(n)))  # no ties: exact up to 50
        graded = rng.integers(0, 4, size=(2, n)) / 3.0  # ties and zeros
        samples.append((graded[0], graded[1]))
    samples.append((np.full(6, 0.5), np.full(6, 0.5)))  # every difference 0
    return samples


# Every method x zero_method pair runs, with one of the two corrections (rotating; the
# seeded sample of tests/sweep.py; RANKMETRICS_SWEEP=all runs all 18).
@pytest.mark.sweep(by=("method", "zero_method"), keep=1)
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("correction", [False, True])
@pytest.mark.parametrize("method", ["auto", "exact", "asymptotic"])
def test_wilcoxon_equals_scipy(zero_method: str, correction: bool, method: str) -> None:
    rng = np.random.default_rng(3)
    compared = 0
    for treatment, baseline in _paired_samples(rng):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected = stats.wilcoxon(
                    treatment,
                    baseline,
                    zero_method=zero_method,
                    correction=correction,
                    method=method,
                ).pvalue
            except ValueError:
                continue
        ours = wilcoxon_test(
            treatment,
            baseline,
            zero_method=zero_method,  # type: ignore[arg-type]
            correction=correction,
            method=method,  # type: ignore[arg-type]
        )
        if np.isnan(expected):
            assert np.isnan(ours)
        else:
            assert ours == pytest.approx(expected, abs=1e-12, rel=0)
            compared += 1
    assert compared > 10


def test_sign_test_equals_binomtest() -> None:
    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 20, 101):
        for _ in range(5):
            treatment, baseline = rng.integers(0, 3, size=(2, n)) / 2.0
            k = int((treatment > baseline).sum())
            m = int((treatment != baseline).sum())
            expected = stats.binomtest(k, m).pvalue if m else 1.0
            assert sign_test(treatment, baseline) == pytest.approx(expected, abs=1e-12, rel=0)


def test_tukey_hsd_equals_scipy() -> None:
    rng = np.random.default_rng(11)
    for k, n in ((2, 5), (3, 10), (6, 40)):
        values = rng.random((k, n)) + rng.random(k)[:, None] * 0.3
        expected = stats.tukey_hsd(*values).pvalue
        np.testing.assert_allclose(tukey_hsd(values), expected, rtol=0, atol=1e-9)


def _statsmodels_two_way(values: np.ndarray) -> tuple[object, float, float]:
    smf = pytest.importorskip("statsmodels.formula.api")
    sm_anova = pytest.importorskip("statsmodels.stats.anova")
    pd = pytest.importorskip("pandas")
    k, n = values.shape
    data = pd.DataFrame(
        {
            "y": values.reshape(-1),
            "system": np.repeat(np.arange(k), n).astype(str),
            "topic": np.tile(np.arange(n), k).astype(str),
        }
    )
    table = sm_anova.anova_lm(smf.ols("y ~ C(system) + C(topic)", data=data).fit())
    residual_ms = table.loc["Residual", "sum_sq"] / table.loc["Residual", "df"]
    return table, residual_ms, table.loc["Residual", "df"]


def test_two_way_tukey_equals_statsmodels_residual_and_studentized_range() -> None:
    rng = np.random.default_rng(13)
    for k, n in ((3, 6), (5, 25)):
        values = rng.random((k, n)) * 0.5 + rng.random(n)[None, :] + rng.random(k)[:, None] * 0.2
        _, residual_ms, df = _statsmodels_two_way(values)
        means = values.mean(axis=1)
        expected = np.ones((k, k))
        for i, j in itertools.combinations(range(k), 2):
            q = abs(means[i] - means[j]) / math.sqrt(residual_ms / n)
            expected[i, j] = expected[j, i] = stats.studentized_range.sf(q, k, df)
        np.testing.assert_allclose(tukey_hsd_two_way(values), expected, rtol=0, atol=1e-9)


def test_anova_tables_equal_statsmodels() -> None:
    smf = pytest.importorskip("statsmodels.formula.api")
    sm_anova = pytest.importorskip("statsmodels.stats.anova")
    pytest.importorskip("pandas")
    rng = np.random.default_rng(17)
    values = rng.random((4, 12)) * 0.4 + rng.random(12)[None, :] + rng.random(4)[:, None] * 0.1
    frame = _frame(values)
    two_way = rm.anova(frame, design="two-way")
    expected, _, _ = _statsmodels_two_way(values)
    for source, label in (("system", "C(system)"), ("query", "C(topic)"), ("residual", "Residual")):
        row = two_way.filter(pl.col("source") == source).row(0, named=True)
        assert row["df"] == expected.loc[label, "df"]
        assert row["sum_sq"] == pytest.approx(expected.loc[label, "sum_sq"], abs=1e-9)
        if source != "residual":
            assert row["F"] == pytest.approx(expected.loc[label, "F"], abs=1e-9)
            assert row["p_value"] == pytest.approx(expected.loc[label, "PR(>F)"], abs=1e-9)
    data = frame.to_pandas()
    one_way = rm.anova(frame, design="one-way")
    reference = sm_anova.anova_lm(smf.ols("ap ~ C(system)", data=data).fit())
    for source, label in (("system", "C(system)"), ("residual", "Residual")):
        row = one_way.filter(pl.col("source") == source).row(0, named=True)
        assert row["sum_sq"] == pytest.approx(reference.loc[label, "sum_sq"], abs=1e-9)
        if source == "system":
            assert row["F"] == pytest.approx(reference.loc[label, "F"], abs=1e-9)
            assert row["p_value"] == pytest.approx(reference.loc[label, "PR(>F)"], abs=1e-9)
    repeated = sm_anova.AnovaRM(data, "ap", "query", within=["system"]).fit().anova_table
    system_row = two_way.filter(pl.col("source") == "system").row(0, named=True)
    assert system_row["F"] == pytest.approx(repeated["F Value"].iloc[0], abs=1e-9)
    assert system_row["p_value"] == pytest.approx(repeated["Pr > F"].iloc[0], abs=1e-9)


def test_anova_undefined_when_the_residual_is_zero() -> None:
    values = np.array([[0.1, 0.2, 0.3], [0.2, 0.3, 0.4]])  # additive: no residual
    table = rm.anova(_frame(values))
    assert table.filter(pl.col("source") == "system")["F"].to_list() == [None]


def _exact_randomised_tukey(values: np.ndarray) -> np.ndarray:
    """Every assignment of each topic's values to the systems, one at a time."""
    k, n = values.shape
    observed = values.sum(axis=1)
    ranges = []
    for choice in itertools.product(list(itertools.permutations(range(k))), repeat=n):
        sums = [sum(values[choice[t][s], t] for t in range(n)) for s in range(k)]
        ranges.append(max(sums) - min(sums))
    table = np.array(ranges)
    expected = np.ones((k, k))
    for i, j in itertools.combinations(range(k), 2):
        reach = np.count_nonzero(table >= abs(observed[i] - observed[j]) - 1e-12)
        expected[i, j] = expected[j, i] = reach / table.size
    return expected


def test_randomised_tukey_is_exact_when_the_assignments_fit() -> None:
    values = np.random.default_rng(19).random((3, 4))
    np.testing.assert_allclose(
        randomised_tukey_hsd(values, n_trials=6**4), _exact_randomised_tukey(values), atol=1e-12
    )


def test_randomised_tukey_sampled_is_close_to_exact_and_deterministic() -> None:
    rng = np.random.default_rng(23)
    values = rng.random((3, 6)) + np.array([[0.0], [0.15], [0.4]])
    exact = _exact_randomised_tukey(values)
    sampled = randomised_tukey_hsd(values, n_trials=30_000, seed=4)
    assert np.abs(sampled - exact).max() < 0.01
    again = randomised_tukey_hsd(values, n_trials=30_000, seed=4, n_threads=1)
    np.testing.assert_array_equal(sampled, again)
    assert not np.array_equal(sampled, randomised_tukey_hsd(values, n_trials=30_000, seed=5))


def test_randomised_tukey_stack_shares_trials() -> None:
    rng = np.random.default_rng(29)
    stack = rng.random((2, 4, 30))
    both = randomised_tukey_hsd(stack, n_trials=500, seed=1)
    assert both.shape == (2, 4, 4)
    np.testing.assert_array_equal(both[0], randomised_tukey_hsd(stack[0], n_trials=500, seed=1))
    with pytest.raises(ValueError, match="`n_trials`"):
        randomised_tukey_hsd(stack, n_trials=0)
    with pytest.raises(ValueError, match="at least 2 x 2"):
        randomised_tukey_hsd([[0.1, 0.2]])
