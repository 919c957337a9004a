"""``recsys.evaluate`` on odd inputs, against RecTools 0.19's ``calc_metrics``.

Each test reproduces one edge case (a name with a digit, a model without rows, null
model names, ids of several integer types, null ids); the property at the end draws
small tables with such cases and checks that every one gives RecTools' numbers or a
``ValueError`` naming the argument. The bad-input table is in the guide's
"Reliability" page.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polars_rankmetrics import recsys
from tests.recsys_data import to_rectools

rectools_metrics = pytest.importorskip("rectools.metrics")

RECO = pl.DataFrame({"user": [1, 1, 2, 2], "item": [10, 20, 10, 30], "rank": [1, 2, 1, 2]})
TEST = pl.DataFrame({"user": [1, 3], "item": [20, 10]})
TRAIN = pl.DataFrame({"user": [5, 5, 6, 7], "item": [10, 20, 10, 30]})
CATALOG = list(range(50))


def rectools(names: dict[str, Any], reco: pl.DataFrame, test: pl.DataFrame, **more: Any) -> Any:
    """RecTools' ``calc_metrics`` on polars frames, its pandas warnings silenced."""
    converted = {key: to_rectools(value) for key, value in more.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rectools_metrics.calc_metrics(
            names, to_rectools(reco), to_rectools(test), catalog=CATALOG, **converted
        )


def summary_row(result: recsys.RecsysEvaluation, model: str = "reco") -> dict[str, Any]:
    return result.summary.filter(pl.col("model") == model).row(0, named=True)


def same(ours: float | None, theirs: float) -> bool:
    """Equal to 1e-9; RecTools' NaN (no user to average) is our null."""
    if theirs is None or math.isnan(theirs):
        return ours is None
    return ours is not None and ours == pytest.approx(theirs, abs=1e-9)


def test_f1beta_is_a_name() -> None:
    m = rectools_metrics
    theirs = rectools({"a": m.F1Beta(k=2), "b": m.F1Beta(k=2, beta=2.0)}, RECO, TEST)
    names = ["F1Beta@2", "F1Beta@2(beta=2)"]
    row = summary_row(recsys.evaluate(RECO, metrics=names, interactions=TEST))
    assert row["F1Beta@2"] == pytest.approx(theirs["a"])
    assert row["F1Beta@2(beta=2)"] == pytest.approx(theirs["b"])
    with pytest.raises(ValueError, match="write F1Beta@k"):
        recsys.evaluate(RECO, metrics=["F1Beta2"], interactions=TEST)


def test_an_empty_test_set_keeps_the_model_and_its_catalogue_metrics() -> None:
    m = rectools_metrics
    empty = TEST.head(0)
    theirs = rectools({"Precision@2": m.Precision(k=2), "CC": m.CatalogCoverage(k=2)}, RECO, empty)
    result = recsys.evaluate(RECO, metrics=["Precision@2", "CatalogCoverage@2"], interactions=empty)
    assert result.summary.height == 1
    row = summary_row(result)
    assert same(row["Precision@2"], theirs["Precision@2"])  # NaN there, null here
    assert row["CatalogCoverage@2"] == theirs["CC"] == 3


@pytest.mark.parametrize(
    "names", [["CatalogCoverage@2"], ["SufficientReco@2", "Gini@2"], ["Precision@2"]]
)
def test_a_model_with_empty_lists_keeps_its_row(names: list[str]) -> None:
    m = rectools_metrics
    empty = RECO.head(0)
    result = recsys.evaluate({"a": RECO, "b": empty}, metrics=names, interactions=TEST)
    assert result.summary.get_column("model").to_list() == ["a", "b"]
    row = summary_row(result, "b")
    theirs = rectools(
        {"CatalogCoverage@2": m.CatalogCoverage(k=2), "Precision@2": m.Precision(k=2)}, empty, TEST
    )
    for name in names:
        if name in theirs:
            assert same(row[name], theirs[name]), name
    if "SufficientReco@2" in names:
        assert row["SufficientReco@2"] is None  # no user has a list to judge


def test_a_null_model_name_is_refused() -> None:
    reco = pl.DataFrame(
        {"model": ["a", None, "a"], "user": [1, 1, 2], "item": [10, 20, 10], "rank": [1, 1, 1]}
    )
    test = pl.DataFrame({"user": [1], "item": [20]})
    with pytest.raises(ValueError, match=r"`reco`: column 'model' has 1 null values"):
        recsys.evaluate(reco, metrics=["Precision@1"], interactions=test)


def test_ids_of_several_integer_types_meet_in_their_supertype() -> None:
    m = rectools_metrics
    narrow = RECO.with_columns(pl.col("user").cast(pl.Int32), pl.col("item").cast(pl.UInt8))
    test = pl.DataFrame({"user": [1, 3_000_000_000], "item": [10, 10]})
    train = pl.DataFrame({"user": [4_000_000_000, 5], "item": [10, 300]})
    theirs = rectools(
        {"Precision@2": m.Precision(k=2), "MIUF": m.MeanInvUserFreq(k=2)},
        RECO,
        test,
        prev_interactions=train,
    )
    names = ["Precision@2", "MeanInvUserFreq@2"]
    result = recsys.evaluate(narrow, metrics=names, interactions=test, train=train)
    row = summary_row(result)
    assert row["Precision@2"] == pytest.approx(theirs["Precision@2"]) == 0.25
    assert row["MeanInvUserFreq@2"] == pytest.approx(theirs["MIUF"])
    assert result.per_user.get_column("user").dtype == pl.Int64
    # two models of different types; Intersection reads both
    models = {"a": narrow, "b": RECO.with_columns(pl.col("user") + 2**40)}
    both = recsys.evaluate(models, metrics=["Intersection@2(ref=b)"], interactions=test)
    assert both.summary.height == 2
    frame = recsys.prepare(narrow, interactions=test, train=train).collect()
    assert frame.filter(pl.col("user") == 3_000_000_000).height == 1
    with pytest.raises(ValueError, match=r"`interactions`: column 'item' is String"):
        recsys.evaluate(RECO, metrics=names[:1], interactions=test.cast({"item": pl.String}))


@pytest.mark.parametrize("table", ["reco", "interactions", "train"])
@pytest.mark.parametrize("column", ["user", "item"])
def test_null_ids_are_refused_naming_the_table(table: str, column: str) -> None:
    tables = {"reco": RECO, "interactions": TEST, "train": TRAIN}
    tables[table] = tables[table].with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col(column)).alias(column)
    )
    name = "reco" if table == "reco" else table
    pattern = rf"`{name}[^`]*`: column '{column}' has 1 null values"
    with pytest.raises(ValueError, match=pattern):
        recsys.evaluate(
            tables["reco"],
            metrics=["Precision@2", "MeanInvUserFreq@2"],
            interactions=tables["interactions"],
            train=tables["train"],
        )
    with pytest.raises(ValueError, match=pattern):
        recsys.prepare(
            tables["reco"], interactions=tables["interactions"], train=tables["train"]
        ).collect()


# --------------------------------------------- the property: RecTools' numbers, or refused

PROPERTY_METRICS = {
    "Precision@3": lambda m: m.Precision(k=3),
    "Recall@2": lambda m: m.Recall(k=2),
    "F1Beta@3": lambda m: m.F1Beta(k=3),
    "MAP@3": lambda m: m.MAP(k=3),
    "NDCG@2": lambda m: m.NDCG(k=2),
    "MRR@3": lambda m: m.MRR(k=3),
    "HitRate@1": lambda m: m.HitRate(k=1),
    "MeanInvUserFreq@3": lambda m: m.MeanInvUserFreq(k=3),
    "AvgRecPopularity@2": lambda m: m.AvgRecPopularity(k=2),
    "CatalogCoverage@2": lambda m: m.CatalogCoverage(k=2),
    "CoveredUsers@3": lambda m: m.CoveredUsers(k=3),
    "SufficientReco@3": lambda m: m.SufficientReco(k=3),
}
ID_TYPES = {pl.Int8: 2**7, pl.Int32: 2**31, pl.Int64: 2**63, pl.UInt16: 2**16, pl.UInt32: 2**32}
"""Id types, and the first value each cannot hold."""


@st.composite
def pairs(draw: st.DrawFn, *, ranked: bool) -> pl.DataFrame:
    """A few ``user, item`` pairs (a list per user with ``ranked``), maybe null or wide ids."""
    users = draw(st.lists(st.integers(0, 5), max_size=8))
    rows = []
    for user in users:
        items = draw(st.lists(st.integers(0, 6), max_size=4, unique=True))
        rows += [(user, item, rank) for rank, item in enumerate(items, start=1)]
    rows = list({(user, item): (user, item, rank) for user, item, rank in rows}.values())
    frame = pl.DataFrame(
        rows, schema={"user": pl.Int64, "item": pl.Int64, "rank": pl.Int64}, orient="row"
    )
    if draw(st.booleans()):
        frame = frame.with_columns(pl.col("user") * 10**9)  # beyond Int32 (and UInt32) from 5
    if frame.height and draw(st.integers(0, 9)) == 0:
        column = draw(st.sampled_from(["user", "item"]))
        frame = frame.with_columns(
            pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col(column)).alias(column)
        )
    largest = frame.select(pl.max_horizontal(pl.col("user", "item").max())).item() or 0
    fits = [dtype for dtype, end in ID_TYPES.items() if largest < end]
    dtype = draw(st.sampled_from(fits))
    frame = frame.cast({"user": dtype, "item": dtype})
    return frame if ranked else frame.drop("rank")


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)  # RecTools takes ~0.1 s a call
@given(
    reco=pairs(ranked=True),
    test=pairs(ranked=False),
    train=pairs(ranked=False),
    names=st.lists(st.sampled_from(sorted(PROPERTY_METRICS)), min_size=1, max_size=4, unique=True),
)
def test_evaluate_gives_rectools_numbers_or_refuses_naming_the_argument(
    reco: pl.DataFrame, test: pl.DataFrame, train: pl.DataFrame, names: list[str]
) -> None:
    try:
        result = recsys.evaluate(reco, metrics=names, interactions=test, train=train)
    except (ValueError, TypeError) as error:
        assert any(f"`{argument}" in str(error) for argument in ("reco", "interactions", "train"))
        nulls = [frame.select(pl.col("user", "item").null_count()).sum_horizontal().item()
                 for frame in (reco, test, train)]  # fmt: skip
        assert any(nulls), error  # the only odd input drawn here that is refused
        return
    wide = {name: frame.cast({"user": pl.Int64, "item": pl.Int64}) for name, frame in
            (("reco", reco), ("test", test), ("train", train))}  # fmt: skip
    m = rectools_metrics
    theirs = rectools(
        {name: PROPERTY_METRICS[name](m) for name in names},
        wide["reco"],
        wide["test"],
        prev_interactions=wide["train"],
    )
    assert result.summary.height == 1
    row = summary_row(result)
    for name in names:
        assert same(row[name], theirs[name]), (name, row[name], theirs[name])
