"""Topic set size design against statsmodels' power classes and slow references."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.formula.api import ols
from statsmodels.stats.power import FTestAnovaPower, TTestPower

import polars_rankmetrics as rm
from polars_rankmetrics.meta_evaluation import (
    topic_set_size_anova,
    topic_set_size_ci,
    topic_set_size_t,
    topic_set_variance,
)

T_CASES = [
    # (alpha, beta, min_diff, variance)
    (0.05, 0.20, 0.05, 0.02),
    (0.05, 0.20, 0.10, 0.02),
    (0.01, 0.10, 0.03, 0.01),
    (0.05, 0.50, 0.20, 0.10),
    (0.10, 0.20, 0.50, 0.01),  # large effect: the smallest n, 2 or 3
    (0.05, 0.20, 0.01, 0.05),  # small effect: thousands of topics
]


@pytest.mark.parametrize(("alpha", "beta", "min_diff", "variance"), T_CASES)
def test_t_test_size_is_statsmodels_smallest_n(
    alpha: float, beta: float, min_diff: float, variance: float
) -> None:
    result = topic_set_size_t(min_diff, variance, alpha=alpha, beta=beta)
    n = result.item(0, "n")
    effect = min_diff / math.sqrt(variance)
    power = TTestPower()
    target = 1 - beta
    assert power.power(effect, n, alpha, alternative="two-sided") >= target
    if n > 2:
        assert power.power(effect, n - 1, alpha, alternative="two-sided") < target
    assert result.item(0, "power") == pytest.approx(
        power.power(effect, n, alpha, alternative="two-sided"), rel=1e-9
    )
    solved = power.solve_power(effect_size=effect, alpha=alpha, power=target)
    if n > 2 and abs(solved - round(solved)) > 1e-6:
        assert n == math.ceil(solved)


def _anova_reference(m: int, min_range: float, variance: float, n: int, alpha: float) -> float:
    """statsmodels' power at ``n`` topics: Cohen's f**2 = range**2 / (2 m var), nobs = m n."""
    f = math.sqrt(min_range**2 / (2 * m * variance))
    return float(FTestAnovaPower().power(f, m * n, alpha, k_groups=m))


ANOVA_CASES = [
    # (alpha, beta, m, min_range, variance)
    (0.05, 0.20, 10, 0.10, 0.01),
    (0.05, 0.20, 2, 0.10, 0.02),
    (0.01, 0.10, 5, 0.05, 0.01),
    (0.05, 0.20, 30, 0.15, 0.03),
    (0.10, 0.30, 3, 1.0, 0.01),  # the smallest n
]


@pytest.mark.parametrize(("alpha", "beta", "m", "min_range", "variance"), ANOVA_CASES)
def test_anova_size_is_statsmodels_smallest_n(
    alpha: float, beta: float, m: int, min_range: float, variance: float
) -> None:
    result = topic_set_size_anova(min_range, variance, m=m, alpha=alpha, beta=beta)
    n = result.item(0, "n")
    target = 1 - beta
    at_n = _anova_reference(m, min_range, variance, n, alpha)
    assert at_n >= target
    assert result.item(0, "power") == pytest.approx(at_n, rel=1e-9)
    if n > 2:
        assert _anova_reference(m, min_range, variance, n - 1, alpha) < target
    if n > 2:  # statsmodels solves for the total nobs = m n (and fails to bracket n = 2)
        f = math.sqrt(min_range**2 / (2 * m * variance))
        solved = FTestAnovaPower().solve_power(
            effect_size=f, alpha=alpha, power=target, k_groups=m, nobs=None
        )
        assert n == math.ceil(solved / m - 1e-9)


def test_anova_with_two_systems_is_the_unpaired_two_sample_design() -> None:
    """m = 2: F(1, 2(n-1)) = t**2 of the two-sample t-test with effect range / sigma."""
    from statsmodels.stats.power import TTestIndPower

    result = topic_set_size_anova(0.1, 0.02, m=2)
    n = result.item(0, "n")
    effect = 0.1 / math.sqrt(0.02)
    assert result.item(0, "power") == pytest.approx(
        TTestIndPower().power(effect, n, 0.05, ratio=1.0), rel=1e-7
    )


def _slow_ci_size(width: float, variance: float, alpha: float) -> tuple[int, float]:
    """Count up from n = 2 with scipy's t quantiles and Gamma functions, as Sakai's tool."""
    n = 2
    while True:
        c4 = math.sqrt(2 / (n - 1)) * math.exp(math.lgamma(n / 2) - math.lgamma((n - 1) / 2))
        expected = 2 * stats.t.ppf(1 - alpha / 2, n - 1) * c4 * math.sqrt(variance / n)
        if expected <= width:
            return n, expected
        n += 1


@pytest.mark.parametrize(
    ("alpha", "width", "variance"),
    [(0.05, 0.10, 0.02), (0.05, 0.05, 0.02), (0.01, 0.20, 0.05), (0.10, 2.0, 0.01)],
)
def test_ci_size_is_the_slow_count(alpha: float, width: float, variance: float) -> None:
    result = topic_set_size_ci(width, variance, alpha=alpha)
    n, expected = _slow_ci_size(width, variance, alpha)
    assert result.item(0, "n") == n
    assert result.item(0, "expected_width") == pytest.approx(expected, rel=1e-9)


def test_ci_expected_width_is_the_mean_width_of_simulated_intervals() -> None:
    """E[2 t s / sqrt(n)] by simulation of normal differences, to the Monte Carlo error."""
    result = topic_set_size_ci(0.1, 0.02, alpha=0.05)
    n = result.item(0, "n")
    rng = np.random.default_rng(3)
    samples = rng.normal(0.0, math.sqrt(0.02), size=(200_000, n))
    widths = 2 * stats.t.ppf(0.975, n - 1) * samples.std(axis=1, ddof=1) / math.sqrt(n)
    assert result.item(0, "expected_width") == pytest.approx(widths.mean(), rel=2e-3)


def test_the_size_falls_as_the_difference_grows_even_where_scipy_cdf_is_nan() -> None:
    """scipy's nct.cdf (and so statsmodels' power) is NaN deep in the lower tail at large
    noncentrality; the upper-tail form used here is not, so a sweep stays monotone."""
    sizes = topic_set_size_t(list(np.geomspace(0.005, 3.0, 30)), 0.02, alpha=0.1)
    assert sizes["n"].is_sorted(descending=True)
    assert sizes["power"].is_finite().all() and sizes["n"][-1] == 2
    assert math.isnan(TTestPower().power(5.0, 4, 0.1))  # the case that motivated it
    assert topic_set_size_t(0.5, 0.01, alpha=0.1).item(0, "n") == 3


def test_sequences_give_one_row_per_value_and_n_falls_as_the_difference_grows() -> None:
    table = topic_set_size_t([0.02, 0.05, 0.1, 0.2], 0.03)
    assert table.columns == ["alpha", "beta", "min_diff", "variance", "n", "power"]
    assert table["min_diff"].to_list() == [0.02, 0.05, 0.1, 0.2]
    assert table["n"].is_sorted(descending=True)
    for row in table.iter_rows(named=True):
        single = topic_set_size_t(row["min_diff"], 0.03)
        assert single.item(0, "n") == row["n"]
    anova = topic_set_size_anova([0.05, 0.1], 0.01, m=5)
    assert anova.schema["m"] == pl.Int64 and anova["n"].is_sorted(descending=True)
    assert topic_set_size_ci([0.05, 0.1], 0.02).height == 2


def _seeded_per_query(n_systems: int = 6, n_topics: int = 25) -> pl.DataFrame:
    rng = np.random.default_rng(11)
    topic = rng.uniform(0.1, 0.7, n_topics)
    system = np.linspace(0.0, 0.15, n_systems)
    values = np.clip(
        topic[None, :] + system[:, None] + rng.normal(0, 0.08, (n_systems, n_topics)), 0, 1
    )
    return pl.DataFrame(
        {
            "run": np.repeat([f"s{i}" for i in range(n_systems)], n_topics),
            "topic": np.tile(np.arange(n_topics), n_systems),
            "ap": values.ravel(),
        }
    ).sample(fraction=1.0, shuffle=True, seed=2)


def test_variances_equal_statsmodels_ols_and_the_pairwise_loop() -> None:
    per_query = _seeded_per_query()
    result = topic_set_variance(per_query, system="run", query="topic", value="ap")
    pandas_frame = per_query.to_pandas()
    two_way = ols("ap ~ C(run) + C(topic)", data=pandas_frame).fit()
    one_way = ols("ap ~ C(run)", data=pandas_frame).fit()
    assert result.item(0, "residual_variance") == pytest.approx(two_way.mse_resid, rel=1e-10)
    assert result.item(0, "residual_df") == int(two_way.df_resid)
    assert result.item(0, "one_way_variance") == pytest.approx(one_way.mse_resid, rel=1e-10)
    systems = sorted(per_query["run"].unique())
    variances = []
    for i, a in enumerate(systems):
        for b in systems[i + 1 :]:
            pair = (
                per_query.filter(pl.col("run") == a)
                .join(per_query.filter(pl.col("run") == b), on="topic")
                .select(pl.col("ap") - pl.col("ap_right"))
                .to_series()
            )
            variances.append(pair.var(ddof=1))
    assert result.item(0, "difference_variance") == pytest.approx(np.mean(variances), rel=1e-10)
    # Sakai's sigma_t**2 = 2 sigma**2 holds exactly
    assert result.item(0, "difference_variance") == pytest.approx(
        2 * result.item(0, "residual_variance"), rel=1e-10
    )
    assert result.select("n_systems", "n_topics").row(0) == (6, 25)


def test_the_variance_feeds_the_sizes() -> None:
    variances = topic_set_variance(_seeded_per_query(), system="run", query="topic", value="ap")
    sizes = topic_set_size_t(0.05, variances.item(0, "difference_variance"))
    assert sizes.item(0, "n") > 2
    assert rm.topic_set_size_anova is topic_set_size_anova


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda: topic_set_size_t(0.1, 0.02, alpha=0.0), "alpha"),
        (lambda: topic_set_size_t(0.1, 0.02, alpha=1.0), "alpha"),
        (lambda: topic_set_size_t(0.1, 0.02, alpha=True), "alpha"),
        (lambda: topic_set_size_t(0.1, 0.02, beta=1.5), "beta"),
        (lambda: topic_set_size_t(0.1, 0.02, beta=0), "beta"),
        (lambda: topic_set_size_t(0.0, 0.02), "min_diff"),
        (lambda: topic_set_size_t(-0.1, 0.02), "min_diff"),
        (lambda: topic_set_size_t([], 0.02), "min_diff"),
        (lambda: topic_set_size_t([0.1, float("nan")], 0.02), "min_diff"),
        (lambda: topic_set_size_t(0.1, 0.0), "variance"),
        (lambda: topic_set_size_t(0.1, float("inf")), "variance"),
        (lambda: topic_set_size_anova(0.1, 0.01, m=1), "m"),
        (lambda: topic_set_size_anova(0.1, 0.01, m=2.5), "m"),  # type: ignore[arg-type]
        (lambda: topic_set_size_anova(0.1, 0.01, m=5, alpha=-0.1), "alpha"),
        (lambda: topic_set_size_anova(0.1, 0.01, m=5, beta=1.0), "beta"),
        (lambda: topic_set_size_anova(0.0, 0.01, m=5), "min_range"),
        (lambda: topic_set_size_anova(0.1, -1.0, m=5), "variance"),
        (lambda: topic_set_size_ci(0.1, 0.02, alpha=1.0), "alpha"),
        (lambda: topic_set_size_ci(0.0, 0.02), "width"),
        (lambda: topic_set_size_ci(0.1, 0.0), "variance"),
    ],
)
def test_bad_parameters_name_the_parameter(call: object, parameter: str) -> None:
    with pytest.raises(ValueError, match=f"`{parameter}`"):
        call()  # type: ignore[operator]


def test_bad_frames_are_named() -> None:
    one_system = pl.DataFrame({"system": ["a", "a"], "query": [1, 2], "value": [0.1, 0.2]})
    with pytest.raises(ValueError, match="at least two systems"):
        topic_set_variance(one_system)
    one_topic = pl.DataFrame({"system": ["a", "b"], "query": [1, 1], "value": [0.1, 0.2]})
    with pytest.raises(ValueError, match="at least two topics"):
        topic_set_variance(one_topic)
    missing = pl.DataFrame(
        {"system": ["a", "a", "b"], "query": [1, 2, 1], "value": [0.1, 0.2, 0.3]}
    )
    with pytest.raises(ValueError, match="every system needs"):
        topic_set_variance(missing)
    with pytest.raises(ValueError, match="no column 'ap'"):
        topic_set_variance(one_system, value="ap")
