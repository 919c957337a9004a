"""compare_pairs, effect_sizes, risk and georisk on frames, against slow references.

The pairwise p-values are compared with scipy per pair and the corrections with
statsmodels; effect sizes, URisk/TRisk and GeoRisk with loops written here from
the papers' formulas (Cohen; Hedges; Sakai; Dinçer, Macdonald and Ounis 2014 and
2016). The table of bad inputs is at the end.
"""

from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm

stats = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest")


def _frame(values: np.ndarray, **extra: np.ndarray) -> pl.DataFrame:
    k, n = values.shape
    columns = {
        "system": [f"s{i}" for i in range(k) for _ in range(n)],
        "query": [f"q{j}" for _ in range(k) for j in range(n)],
        "ap": values.reshape(-1),
    }
    columns.update({name: column.reshape(-1) for name, column in extra.items()})
    return pl.DataFrame(columns)


@pytest.fixture
def values() -> np.ndarray:
    rng = np.random.default_rng(41)
    return np.clip(rng.random((4, 25)) * 0.6 + np.array([[0.0], [0.05], [0.2], [0.3]]), 0, 1)


@pytest.mark.parametrize("method", ["holm", "fdr_by", "sidak"])
def test_all_pairs_t_equals_scipy_and_statsmodels(values: np.ndarray, method: str) -> None:
    frame = _frame(values, ndcg=values[::-1] ** 2)
    pairs = rm.compare_pairs(frame, test="t", correction=method)
    assert pairs.height == 2 * 6
    for metric, matrix in (("ap", values), ("ndcg", values[::-1] ** 2)):
        chosen = pairs.filter(pl.col("metric") == metric)
        expected = [
            stats.ttest_rel(matrix[j], matrix[i]).pvalue
            for i, j in itertools.combinations(range(4), 2)
        ]
        np.testing.assert_allclose(chosen["p_value"].to_numpy(), expected, atol=1e-12)
        adjusted = multitest.multipletests(expected, method=method)[1]
        np.testing.assert_allclose(chosen["p_value_adjusted"].to_numpy(), adjusted, atol=1e-12)
        for row in chosen.iter_rows(named=True):
            assert row["delta"] == pytest.approx(row["mean_b"] - row["mean_a"])
            if row["significant"]:
                winner = row["system_a"] if row["mean_a"] > row["mean_b"] else row["system_b"]
                assert row["better"] == winner
            else:
                assert row["better"] is None


def test_wilcoxon_sign_and_tukey_through_frames(values: np.ndarray) -> None:
    frame = _frame(values)
    combos = list(itertools.combinations(range(4), 2))
    wilcoxon = rm.compare_pairs(frame, test="wilcoxon", correction=None)["p_value"].to_numpy()
    expected = [stats.wilcoxon(values[j], values[i]).pvalue for i, j in combos]
    np.testing.assert_allclose(wilcoxon, expected, atol=1e-12)
    options = {"zero_method": "pratt", "continuity": True, "wilcoxon_method": "asymptotic"}
    normal = rm.compare_pairs(frame, test="wilcoxon", correction=None, **options)  # type: ignore[arg-type]
    expected = [
        stats.wilcoxon(
            values[j], values[i], zero_method="pratt", correction=True, method="asymptotic"
        ).pvalue
        for i, j in combos
    ]
    np.testing.assert_allclose(normal["p_value"].to_numpy(), expected, atol=1e-12)
    sign = rm.compare_pairs(frame, test="sign", correction=None)["p_value"].to_numpy()
    expected = [
        stats.binomtest(
            int((values[j] > values[i]).sum()), int((values[j] != values[i]).sum())
        ).pvalue
        for i, j in combos
    ]
    np.testing.assert_allclose(sign, expected, atol=1e-12)
    tukey = rm.compare_pairs(frame, test="tukey", correction=None)
    reference = stats.tukey_hsd(*values).pvalue
    np.testing.assert_allclose(
        tukey["p_value"].to_numpy(), [reference[i, j] for i, j in combos], atol=1e-9
    )
    assert tukey["p_value_adjusted"].to_list() == tukey["p_value"].to_list()
    matrix = rm.p_value_matrix(tukey, metric="ap")
    np.testing.assert_allclose(
        matrix.drop("system").to_numpy(),
        np.where(np.eye(4, dtype=bool), np.nan, reference),
        atol=1e-9,
    )


def test_baselines_pick_the_pairs(values: np.ndarray) -> None:
    frame = _frame(values)
    pairs = rm.compare_pairs(frame, baselines=["s2", "s0"], test="t", correction=None)
    assert pairs.select("system_a", "system_b").rows() == [
        ("s2", "s0"),
        ("s2", "s1"),
        ("s2", "s3"),
        ("s0", "s1"),
        ("s0", "s3"),
    ]
    one = rm.compare(frame, baseline="s0", test="t", correction="holm")
    mine = rm.compare_pairs(frame, baselines=["s0"], test="t", correction="holm")
    np.testing.assert_allclose(
        mine["p_value_adjusted"].to_numpy(), one["p_value_adjusted"].to_numpy()[1:], atol=1e-12
    )


def test_effect_sizes_equal_slow_formulas(values: np.ndarray) -> None:
    frame = _frame(values)
    sizes = rm.effect_sizes(frame, tie_tolerance=0.01, alpha=0.1)
    k, n = values.shape
    grand = values.mean()
    residual = sum(
        (values[s, q] - values[s].mean() - values[:, q].mean() + grand) ** 2
        for s in range(k)
        for q in range(n)
    ) / ((k - 1) * (n - 1))
    for row, (i, j) in zip(
        sizes.iter_rows(named=True), itertools.combinations(range(k), 2), strict=True
    ):
        d = [float(values[j, q] - values[i, q]) for q in range(n)]
        mean = statistics.fmean(d)
        sd = statistics.stdev(d)
        half = stats.t.ppf(0.95, n - 1) * sd / math.sqrt(n)
        pooled = math.sqrt((statistics.variance(values[i]) + statistics.variance(values[j])) / 2)
        wins = sum(x > 0.01 for x in d)
        losses = sum(x < -0.01 for x in d)
        assert row["delta"] == pytest.approx(mean, abs=1e-12)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((mean - half, mean + half))
        assert row["cohens_dz"] == pytest.approx(mean / sd)
        assert row["hedges_g"] == pytest.approx((1 - 3 / (4 * (2 * n - 2) - 1)) * mean / pooled)
        assert row["es_e2"] == pytest.approx(mean / math.sqrt(residual))
        assert (row["wins"], row["ties"], row["losses"]) == (wins, n - wins - losses, losses)
        assert row["prob_superiority"] == pytest.approx((wins + (n - wins - losses) / 2) / n)


def test_effect_sizes_hand_computed() -> None:
    frame = _frame(np.array([[0.2, 0.4, 0.1, 0.5], [0.3, 0.6, 0.1, 0.6]]))
    row = rm.effect_sizes(frame).row(0, named=True)
    # d = 0.1, 0.2, 0, 0.1: mean 0.1, sd sqrt(0.02 / 3)
    assert row["cohens_dz"] == pytest.approx(0.1 / math.sqrt(0.02 / 3))
    assert (row["wins"], row["ties"], row["losses"]) == (3, 1, 0)
    identical = rm.effect_sizes(_frame(np.array([[0.2, 0.4], [0.2, 0.4]]))).row(0, named=True)
    assert identical["cohens_dz"] is None and identical["es_e2"] is None
    assert identical["prob_superiority"] == 0.5


def _slow_risk(system: np.ndarray, baseline: np.ndarray, alpha: float) -> tuple[float, float]:
    c = len(system)
    wins = sum(s - b for s, b in zip(system, baseline, strict=True) if s > b)
    losses = sum(b - s for s, b in zip(system, baseline, strict=True) if s < b)
    urisk = (wins - (1 + alpha) * losses) / c
    z = [s - b if s >= b else (1 + alpha) * (s - b) for s, b in zip(system, baseline, strict=True)]
    return urisk, urisk / (statistics.stdev(z) / math.sqrt(c))


@pytest.mark.parametrize("alpha", [0.0, 1.0, 5.0])
def test_urisk_trisk_equal_the_paper(values: np.ndarray, alpha: float) -> None:
    table = rm.risk(_frame(values), baseline="s1", alpha=alpha)
    assert table["system"].to_list() == ["s0", "s2", "s3"]
    for row, index in zip(table.iter_rows(named=True), (0, 2, 3), strict=True):
        urisk, trisk = _slow_risk(values[index], values[1], alpha)
        assert row["urisk"] == pytest.approx(urisk, abs=1e-12)
        assert row["trisk"] == pytest.approx(trisk, rel=1e-10)
    if alpha == 0.0:  # TRisk is then the paired t statistic
        t = stats.ttest_rel(values[0], values[1]).statistic
        assert table["trisk"][0] == pytest.approx(t)


@pytest.mark.parametrize("alpha", [0.0, 2.0])
def test_georisk_equals_the_paper(values: np.ndarray, alpha: float) -> None:
    values = values.copy()
    values[:, 3] = 0.0  # a query every system fails: its expected values are 0
    table = rm.georisk(_frame(values), alpha=alpha)
    _k, c = values.shape
    total = values.sum()
    for i, row in enumerate(table.iter_rows(named=True)):
        s_i = sum(values[i])
        zrisk = 0.0
        for q in range(c):
            e = s_i * sum(values[:, q]) / total
            z = (values[i, q] - e) / math.sqrt(e) if e > 0 else 0.0
            zrisk += z if z >= 0 else (1 + alpha) * z
        assert row["zrisk"] == pytest.approx(zrisk, abs=1e-10)
        assert row["georisk"] == pytest.approx(math.sqrt(s_i / c * stats.norm.cdf(zrisk / c)))


def test_bad_inputs(values: np.ndarray) -> None:
    frame = _frame(values)
    with pytest.raises(ValueError, match="at least two systems"):
        rm.compare_pairs(frame.filter(pl.col("system") == "s0"))
    with pytest.raises(ValueError, match="`test` must be one of"):
        rm.compare_pairs(frame, test="anova")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`correction` must be one of"):
        rm.compare_pairs(frame, correction="hommel")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be None with test='tukey'"):
        rm.compare_pairs(frame, test="tukey")
    with pytest.raises(ValueError, match="must be numeric"):
        rm.compare_pairs(frame.with_columns(pl.col("ap").cast(pl.String)), metrics=["ap"])
    with pytest.raises(ValueError, match="no numeric metric column"):
        rm.anova(frame.with_columns(pl.col("ap").cast(pl.String)))
    with pytest.raises(ValueError, match="`baselines`: system 'nope' not found"):
        rm.compare_pairs(frame, baselines=["nope"])
    with pytest.raises(ValueError, match="`baseline`: system 'nope' not found"):
        rm.risk(frame, baseline="nope")
    with pytest.raises(ValueError, match="values >= 0"):
        rm.georisk(frame.with_columns(pl.col("ap") - 1.0))
    with pytest.raises(ValueError, match="`tie_tolerance`"):
        rm.effect_sizes(frame, tie_tolerance=-1)
    with pytest.raises(ValueError, match="`alpha`"):
        rm.risk(frame, baseline="s0", alpha=-1)
    with pytest.raises(ValueError, match="`design`"):
        rm.anova(frame, design="three-way")  # type: ignore[arg-type]


def test_missing_queries_follow_the_compare_rules(values: np.ndarray) -> None:
    frame = _frame(values).filter(~((pl.col("system") == "s1") & (pl.col("query") == "q0")))
    zero = rm.compare_pairs(frame, missing="zero", correction=None)
    drop = rm.compare_pairs(frame, missing="drop", correction=None)
    assert zero["n_queries"].unique().to_list() == [25]
    assert drop["n_queries"].unique().to_list() == [24]
    filled = values.copy()
    filled[1, 0] = 0.0
    expected = stats.ttest_rel(filled[1], filled[0]).pvalue
    assert zero["p_value"][0] == pytest.approx(expected, abs=1e-12)
    expected = stats.ttest_rel(values[1, 1:], values[0, 1:]).pvalue
    assert drop["p_value"][0] == pytest.approx(expected, abs=1e-12)


def test_constant_differences_and_few_queries_are_said() -> None:
    shifted = np.array([[0.1, 0.2, 0.3], [0.2, 0.3, 0.4], [0.1, 0.2, 0.3]])
    pairs = rm.compare_pairs(_frame(shifted), test="t", correction=None)
    notes = dict(
        zip(zip(pairs["system_a"], pairs["system_b"], strict=True), pairs["note"], strict=True)
    )
    assert "constant and non-zero: t is undefined" in notes["s0", "s1"]
    assert "every difference is 0" in notes["s0", "s2"]
    assert pairs.filter(pl.col("system_a") == "s0", pl.col("system_b") == "s2")[
        "p_value"
    ].to_list() == [1.0]
    wilcoxon = rm.compare_pairs(_frame(shifted), test="wilcoxon", correction=None)
    row = wilcoxon.filter(pl.col("system_b") == "s2").row(0, named=True)
    assert row["p_value"] == 1.0 and "Wilcoxon's test is degenerate" in row["note"]
    one = rm.compare_pairs(_frame(np.array([[0.1], [0.2]])), test="t", correction="holm")
    assert one["p_value"].to_list() == [None]
    assert one["significant"].to_list() == [None]
    assert "1 paired query" in one["note"][0]


def test_randomised_tukey_metrics_share_trials_as_if_alone(values: np.ndarray) -> None:
    frame = _frame(values, ndcg=values[::-1] ** 2)
    both = rm.compare_pairs(frame, test="randomised-tukey", correction=None, n_resamples=300)
    alone = rm.compare_pairs(
        frame, test="randomised-tukey", correction=None, n_resamples=300, metrics=["ndcg"]
    )
    assert (
        both.filter(pl.col("metric") == "ndcg")["p_value"].to_list() == alone["p_value"].to_list()
    )
    again = rm.compare_pairs(frame, test="randomised-tukey", correction=None, n_resamples=300)
    assert again["p_value"].to_list() == both["p_value"].to_list()


@pytest.mark.parametrize("test", ["t", "wilcoxon", "tukey-two-way", "randomised-tukey"])
def test_row_order_and_laziness_do_not_matter(values: np.ndarray, test: str) -> None:
    # The query set and the systems fix the order of the resampled matrix; given
    # explicitly, the input's row order does not change a result.
    frame = _frame(values)
    correction = None if "tukey" in test else "holm"
    options: dict[str, object] = {
        "test": test,
        "correction": correction,
        "n_resamples": 200,
        "queries": frame["query"].unique(maintain_order=True),
        "systems": frame["system"].unique(maintain_order=True).to_list(),
    }
    expected = rm.compare_pairs(frame, **options)  # type: ignore[arg-type]
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=3)
    for other in (
        rm.compare_pairs(shuffled, **options),  # type: ignore[arg-type]
        rm.compare_pairs(frame.lazy(), **options),  # type: ignore[arg-type]
    ):
        assert_frame_equal(other, expected, check_exact=False, rel_tol=1e-12)
