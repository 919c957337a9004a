"""The slate estimators against obp 0.5.7 (tests/obp_slate.py loads it), and their contexts."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rankmetrics import counterfactual as cf
from tests.obp_slate import load_obp_slate, obp_value, random_log

ESTIMATORS = {
    "sips": cf.slate_standard_ips,
    "iips": cf.slate_independent_ips,
    "rips": cf.slate_reward_interaction_ips,
    "snsips": cf.self_normalized_slate_standard_ips,
    "sniips": cf.self_normalized_slate_independent_ips,
    "snrips": cf.self_normalized_slate_reward_interaction_ips,
    "cascade-dr": cf.slate_cascade_dr,
}


@pytest.fixture(scope="module")
def obp() -> object:
    return load_obp_slate()


# obp's input checks call pandas' groupby().apply, which warns about its future behaviour.
@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_obp_parity(obp: object, name: str, seed: int) -> None:
    # obp's cascade DR reshapes the log into slates of len_list rows: equal lengths there.
    log = random_log(seed, 60, 5, equal=name == "cascade-dr" or seed == 0)
    ours = log.select(ESTIMATORS[name]()).item()
    assert ours == pytest.approx(obp_value(obp, name, log), rel=1e-9, abs=1e-9)


def test_names_and_one_select() -> None:
    log = random_log(1, 20, 4, equal=True)
    values = log.select(function() for function in ESTIMATORS.values())
    assert values.columns == list(ESTIMATORS)


def test_segments_lazy_and_parquet(tmp_path: Path) -> None:
    log = random_log(2, 90, 4, equal=True).with_columns(segment=pl.col("slate_id") % 3)
    expressions = [function() for function in ESTIMATORS.values()]
    per_segment = log.group_by("segment").agg(expressions).sort("segment")
    for segment in range(3):
        alone = log.filter(pl.col("segment") == segment).select(expressions)
        got = per_segment.filter(pl.col("segment") == segment).drop("segment")
        for name in ESTIMATORS:
            assert got[name].item() == pytest.approx(alone[name].item(), rel=1e-12)
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    streamed = pl.scan_parquet(path).group_by("segment").agg(expressions).sort("segment")
    assert_frame_equal(streamed.collect(engine="streaming"), per_segment, rel_tol=1e-12)
    assert_frame_equal(
        log.lazy().select(expressions).collect(), log.select(expressions), rel_tol=1e-12
    )


def test_empty_log_is_null() -> None:
    log = random_log(0, 3, 3, equal=True).clear()
    assert log.select(ESTIMATORS["sips"]()).item() is None
