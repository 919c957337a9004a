"""The counterfactual bad-input table (docs/guide/reliability.md): each row's error or value."""

from __future__ import annotations

import math

import polars as pl
import pytest

from polars_rankmetrics import counterfactual as cf
from tests.obp_slate import random_log

LOG = random_log(0, 6, 3, equal=True)
SIPS, IIPS, RIPS = cf.slate_standard_ips, cf.slate_independent_ips, cf.slate_reward_interaction_ips


def at(row: int, **values: object) -> pl.DataFrame:
    """LOG with ``values`` put into row ``row`` (row 4: a slate's middle position)."""
    index = pl.int_range(pl.len()) == row
    return LOG.with_columns(
        pl.when(index).then(pl.lit(value)).otherwise(pl.col(name)).alias(name)
        for name, value in values.items()
    )


def refused(frame: pl.DataFrame, expression: pl.Expr, *patterns: str) -> None:
    with pytest.raises(ValueError) as error:
        frame.lazy().select(expression).collect()
    for pattern in patterns:
        assert pattern in str(error.value), str(error.value)


@pytest.mark.parametrize("value", [0.0, -0.5, 1.5, None, math.nan])
def test_logging_propensity(value: float | None) -> None:
    pattern = "null or NaN" if value is None or value != value else "(0, 1]"
    refused(at(4, pscore_item_position=value), IIPS(), "'pscore_item_position'", pattern)


@pytest.mark.parametrize("value", [-0.1, 1.5, None, math.nan])
def test_evaluation_propensity(value: float | None) -> None:
    frame = at(4, evaluation_policy_pscore_cascade=value)
    refused(
        frame,
        IIPS(evaluation_policy_pscore_item_position="evaluation_policy_pscore_cascade"),
        "'evaluation_policy_pscore_cascade'",
    )
    # 0 is allowed
    assert at(4, evaluation_policy_pscore_item_position=0.0).select(IIPS()).item() is not None


def test_positions() -> None:
    refused(at(4, position=0), IIPS(), "'position'", "twice")
    refused(at(4, position=2), IIPS(), "'position'", "twice")  # 0, 2, 2
    refused(at(5, position=7), IIPS(), "beyond")
    no_top = LOG.filter((pl.col("slate_id") != 1) | (pl.col("position") != 0))
    refused(no_top, IIPS(), "beyond")  # a slate starting at 1
    refused(LOG.reverse(), IIPS(), "out of order")
    apart = pl.concat([LOG.slice(0, 3), LOG.slice(6), LOG.slice(3, 3)])
    assert apart.select(IIPS()).item() is not None  # slates in any order
    split = pl.concat([LOG.slice(0, 3), LOG.slice(3, 3), LOG.slice(0, 3)])
    refused(split, IIPS(), "'slate_id'", "apart")
    refused(at(4, position=None), IIPS(), "'position'", "null")
    refused(at(3, position=-1), IIPS(), "'position'", ">= 0")
    refused(at(4, slate_id=None), IIPS(), "'slate_id'", "null")
    refused(LOG.with_columns(pl.col("position").cast(pl.Float64)), IIPS(), "integers")


def test_rewards() -> None:
    refused(at(4, reward=None), IIPS(), "'reward'", "null or NaN")
    refused(at(4, reward=math.nan), IIPS(), "'reward'", "null or NaN")
    refused(LOG.with_columns(pl.col("reward").cast(pl.String)), IIPS(), "'reward'", "numbers")
    as_bool = LOG.with_columns(pl.col("reward") > 0)
    expected = LOG.with_columns((pl.col("reward") > 0).cast(pl.Float64)).select(IIPS()).item()
    assert as_bool.select(IIPS()).item() == expected


def test_propensity_kinds() -> None:
    refused(LOG, SIPS(pscore="pscore_item_position"), "'pscore_item_position'", "same on every row")
    refused(
        LOG, SIPS(evaluation_policy_pscore="evaluation_policy_pscore_cascade"), "same on every row"
    )
    rising = LOG.with_columns(pscore_item_position=pl.col("position").cast(pl.Float64) * 0.3 + 0.1)
    refused(rising, RIPS(pscore_cascade="pscore_item_position"), "must not increase")


def test_cascade_dr_inputs() -> None:
    refused(at(4, action=9), cf.slate_cascade_dr(), "'q_hat'", "action")
    skewed = LOG.with_columns(pl.col("evaluation_policy_action_dist").list.eval(pl.element() * 2))
    refused(skewed, cf.slate_cascade_dr(), "'evaluation_policy_action_dist'", "sum to 1")


def test_empty_log() -> None:
    assert LOG.clear().select(SIPS(), RIPS()).row(0) == (None, None)
    empty = cf.estimate(LOG.clear(), ["iips"])
    assert empty["n_slates"].item() == 0 and empty["estimate"].item() is None


def test_em_without_variation() -> None:
    clicks = pl.DataFrame({"query": [1, 1], "document": [1, 2], "rank": [1, 2], "click": [0, 0]})
    with pytest.raises(ValueError, match="`click` column 'click' has no click"):
        cf.fit_pbm(clicks)


@pytest.mark.parametrize("key", ["query", "document", "rank", "click"])
def test_em_refuses_a_null_key_or_click(key: str) -> None:
    """A null would be fitted as a query, document or rank of its own, or skipped as no click."""
    clicks = pl.DataFrame(
        {"query": [1, 1, 1], "document": [1, 2, 3], "rank": [1, 2, 3], "click": [1, 0, 0]}
    ).with_columns(
        pl.when(pl.int_range(pl.len()) == 2).then(None).otherwise(pl.col(key)).alias(key)
    )
    with pytest.raises(ValueError, match=f"'{key}'"):
        cf.fit_pbm(clicks)


def test_click_metrics() -> None:
    frame = pl.DataFrame({"click": [1, 0, 2], "p": [0.5, 1.0, 0.5], "rank": [1, 2, 3]})
    refused(frame, cf.ips_dcg_at_k("click", "p", "rank"), "'click'", "0 or 1")
    refused(
        frame.with_columns(click=pl.lit(1), p=pl.lit(0.0)),
        cf.ips_dcg_at_k("click", "p", "rank"),
        "'p'",
        "(0, 1]",
    )
    refused(
        frame.with_columns(click=pl.lit(1), rank=pl.lit(0)),
        cf.ips_precision_at_k("click", "p", "rank", 2),
        "'rank'",
        ">= 1",
    )
    unranked = frame.with_columns(click=pl.lit(1), rank=pl.Series([1, None, None]))
    assert unranked.select(cf.ips_dcg_at_k("click", "p", "rank")).item() == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("build", "parameter"),
    [
        (lambda: SIPS(reward=3), "reward"),  # type: ignore[arg-type]
        (lambda: cf.slate_cascade_dr(q_hat=None), "q_hat"),  # type: ignore[arg-type]
        (lambda: cf.estimate(LOG, ["dm"]), "estimators"),
        (lambda: cf.estimate(LOG, alpha=math.nan), "alpha"),
        (lambda: cf.estimate(LOG, n_bootstrap_samples=0), "n_bootstrap_samples"),
        (lambda: cf.ips_dcg_at_k("click", "p", "rank", clip=0.0), "clip"),
        (lambda: cf.ips_precision_at_k("click", "p", "rank", 0), "k"),
        (lambda: cf.fit_pbm(LOG, n_iterations=0), "n_iterations"),
    ],
)
def test_parameters_refused_when_built(build: object, parameter: str) -> None:
    with pytest.raises(ValueError, match=f"`{parameter}`"):
        build()  # type: ignore[operator]


def test_null_slate_in_parts() -> None:
    log = at(4, slate_id=None)
    for rows_per_pass in (1000, 5):
        with pytest.raises(ValueError, match="'slate_id' holds null"):
            cf.estimate(log.lazy(), ["iips"], rows_per_pass=rows_per_pass)
