"""rm.counterfactual.estimate and slate_terms: obp's intervals, the ESS, paired comparison."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics import counterfactual as cf
from tests.obp_slate import load_obp_slate, obp_interval, random_log

IPS = ["sips", "iips", "rips", "snsips", "sniips", "snrips"]


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
def test_interval_is_obps() -> None:
    obp = load_obp_slate()
    log = random_log(5, 40, 4)
    ours = cf.estimate(log, IPS, alpha=0.1, n_bootstrap_samples=300, random_state=7)
    for row in ours.iter_rows(named=True):
        theirs = obp_interval(
            obp, row["estimator"], log, alpha=0.1, n_bootstrap_samples=300, random_state=7
        )
        assert row["lower"] == pytest.approx(theirs["90.0% CI (lower)"], rel=1e-9, abs=1e-12)
        assert row["upper"] == pytest.approx(theirs["90.0% CI (upper)"], rel=1e-9, abs=1e-12)


def test_estimate_is_the_expression_value() -> None:
    log = random_log(3, 50, 4, equal=True)
    names = [*IPS, "cascade-dr"]
    ours = cf.estimate(log, names, n_bootstrap_samples=50)
    single = log.select(
        cf.slate_standard_ips(),
        cf.slate_independent_ips(),
        cf.slate_reward_interaction_ips(),
        cf.self_normalized_slate_standard_ips(),
        cf.self_normalized_slate_independent_ips(),
        cf.self_normalized_slate_reward_interaction_ips(),
        cf.slate_cascade_dr(),
    )
    assert ours["estimator"].to_list() == names
    for name, value in zip(names, ours["estimate"], strict=True):
        assert value == pytest.approx(single[name].item(), rel=1e-12)
    assert (ours["lower"] <= ours["estimate"]).all() and (ours["estimate"] <= ours["upper"]).all()
    assert ours["n_slates"].to_list() == [50] * len(names)


def test_ess() -> None:
    log = random_log(4, 30, 3, equal=True)
    same = log.with_columns(evaluation_policy_pscore_cascade=pl.col("pscore_cascade"))
    assert cf.estimate(same, ["rips"], n_bootstrap_samples=10)["ess"].item() == pytest.approx(30)
    # one slate carries all the weight at position 0: an ESS of 1
    one = log.with_columns(
        evaluation_policy_pscore=pl.when(pl.col("slate_id") == 0).then(1.0).otherwise(0.0)
    )
    assert cf.estimate(one, ["sips"], n_bootstrap_samples=10)["ess"].item() == pytest.approx(1)


def test_slate_terms_pair_up_for_compare() -> None:
    log = random_log(6, 40, 3)
    policy_b = log.with_columns(
        evaluation_policy_pscore_item_position=pl.col("pscore_item_position")
    )
    terms = pl.concat(
        [
            cf.slate_terms(frame, ["iips"]).with_columns(system=pl.lit(name))
            for name, frame in (("a", log), ("b", policy_b))
        ]
    )
    table = rm.compare(terms, baseline="a", query="slate_id", n_resamples=200)
    means = dict(zip(table["system"], table["mean"], strict=True))
    assert means["a"] == pytest.approx(log.select(cf.slate_independent_ips()).item())
    assert means["b"] == pytest.approx(log["reward"].sum() / 40)


def test_empty_log_and_parameters() -> None:
    empty = cf.estimate(random_log(0, 3, 2).clear(), ["sips", "rips"])
    assert empty["n_slates"].to_list() == [0, 0]
    assert empty["estimate"].null_count() == 2
    log = random_log(0, 3, 2)
    for bad in ({"alpha": 0.0}, {"alpha": 1.5}, {"n_bootstrap_samples": 0}, {"random_state": -1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            cf.estimate(log, **bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="estimators"):
        cf.estimate(log, ["ips"])
    with pytest.raises(ValueError, match="estimators"):
        cf.estimate(log, "sips")
    with pytest.raises(ValueError, match="unknown column parameter"):
        cf.estimate(log, rewards="reward")  # type: ignore[arg-type]


def test_parts_equal_one_pass(tmp_path: Path) -> None:
    log = random_log(8, 120, 4, equal=True)
    names = [*IPS, "cascade-dr"]
    whole = cf.estimate(log, names, n_bootstrap_samples=30)
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    parts = cf.estimate(pl.scan_parquet(path), names, n_bootstrap_samples=30, rows_per_pass=70)
    for column in ("estimate", "lower", "upper", "ess"):
        assert parts[column].to_list() == pytest.approx(whole[column].to_list(), rel=1e-12)
    assert parts["n_slates"].to_list() == whole["n_slates"].to_list()
    bad = log.with_columns(
        pscore=pl.when(pl.int_range(pl.len()) == 401).then(0.0).otherwise(pl.col("pscore"))
    )
    with pytest.raises(ValueError, match="'pscore' must hold probabilities"):
        cf.estimate(bad.lazy(), ["sips"], rows_per_pass=70)


def test_parts_by_hash_for_string_slates() -> None:
    log = random_log(9, 80, 3).with_columns(pl.format("s{}", pl.col("slate_id")).alias("slate"))
    whole = cf.estimate(log, IPS, n_bootstrap_samples=20, slate_id="slate")
    parts = cf.estimate(log.lazy(), IPS, n_bootstrap_samples=20, slate_id="slate", rows_per_pass=40)
    for column in ("estimate", "lower", "upper", "ess"):
        assert parts[column].to_list() == pytest.approx(whole[column].to_list(), rel=1e-12)
