"""The recsys bad-input table (docs/guide/recsys.md): each row's error or documented behaviour."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from polars_rankmetrics import recsys

RECO = pl.DataFrame({"user": [1, 1, 1, 2], "item": [10, 11, 12, 10], "rank": [1, 2, 3, 1]})
TEST = pl.DataFrame({"user": [1, 3], "item": [11, 10]})
TRAIN = pl.DataFrame({"user": [5, 5, 6], "item": [10, 11, 10]})


def _values(frame: pl.LazyFrame, expr: pl.Expr) -> dict[int, float | None]:
    result = frame.group_by("user").agg(expr.alias("v")).sort("user").collect()
    return dict(zip(result["user"], result["v"], strict=True))


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "3"])
def test_k_below_one_or_not_an_integer(k: object) -> None:
    for build in (
        recsys.precision_at_k,
        recsys.map_at_k,
        recsys.mean_inv_user_freq,
        recsys.sufficient_reco,
    ):
        with pytest.raises(ValueError, match="`k` must be an integer >= 1"):
            build(k)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`k`"):
        recsys.catalog_coverage(RECO, k)  # type: ignore[arg-type]
    if k != "3":  # "Precision@3" is a fine name
        with pytest.raises(ValueError, match=r"k an integer >= 1|k must be an integer >= 1"):
            recsys.evaluate(RECO, metrics=[f"Precision@{k}"], interactions=TEST)


def test_duplicate_pairs_in_reco() -> None:
    repeated = pl.concat([RECO, RECO.head(1).with_columns(pl.lit(4, dtype=pl.Int64).alias("rank"))])
    with pytest.raises(ValueError, match=r"same \(user, item\) more than once.*\(1, 10\)"):
        recsys.prepare(repeated, interactions=TEST)
    with pytest.raises(ValueError, match="more than once"):
        recsys.evaluate(repeated, metrics=["Precision@3"], interactions=TEST)
    # repeats="first" keeps the best rank for every metric; UnrepeatedReco still sees them
    result = recsys.evaluate(
        repeated, metrics=["Precision@4", "UnrepeatedReco@4"], interactions=TEST, repeats="first"
    ).per_user
    assert result.filter(pl.col("user") == 1)["Precision@4"].item() == 0.25
    assert result.filter(pl.col("user") == 1)["UnrepeatedReco@4"].item() == 0.0


def test_duplicate_pairs_in_interactions_count_once() -> None:
    doubled = pl.concat([TEST, TEST])
    frame = recsys.prepare(RECO, interactions=doubled)
    assert _values(frame, recsys.recall_at_k(3))[1] == 1.0


def test_users_without_history_or_test_items() -> None:
    frame = recsys.prepare(RECO, interactions=TEST, train=TRAIN)
    precision = _values(frame, recsys.precision_at_k(3))
    assert precision == {1: pytest.approx(1 / 3), 2: None, 3: 0.0}  # 2: no test item; 3: no reco
    assert _values(frame, recsys.mean_inv_user_freq(3))[3] is None  # no recommendation
    genres = pl.DataFrame({"item": [10, 11, 12], "genre": ["a", "b", "b"]})
    calibration = recsys.miscalibration(RECO, TRAIN, genres, k=3)
    assert calibration["miscalibration"].null_count() == 2  # users 1 and 2 have no history
    assert recsys.recommenders_serendipity(RECO, TRAIN).height == 0


def test_items_missing_from_popularity_and_features() -> None:
    frame = recsys.prepare(RECO, train=TRAIN)
    # item 12 is unseen in training: one user (MIUF), 0 (ARP), long tail (APLT)
    miuf = _values(frame, recsys.mean_inv_user_freq(3))[1]
    assert miuf == pytest.approx((0 + 1 + 1) / 3)
    assert _values(frame, recsys.avg_rec_popularity(3))[1] == pytest.approx((2 + 1 + 0) / 3)
    assert _values(frame, recsys.aplt(3))[1] == pytest.approx(2 / 3)  # head: ceil(0.2 * 2) = 1 item
    features = pl.DataFrame({"item": [10, 11], "a": [1.0, 0.0], "b": [0.0, 0.0]})
    ild = recsys.intra_list_diversity(RECO, features, k=3)
    assert ild.filter(pl.col("user") == 1)["ild"].item() == 1.0  # only the pair (10, 11) counts
    only_missing = pl.DataFrame({"user": [7, 7], "item": [12, 13], "rank": [1, 2]})
    assert recsys.intra_list_diversity(only_missing, features, k=2)["ild"].to_list() == [None]


def test_lists_shorter_than_k() -> None:
    frame = recsys.prepare(RECO, interactions=TEST)
    assert _values(frame, recsys.precision_at_k(10))[1] == 0.1  # divided by k, as RecTools
    assert _values(frame, recsys.sufficient_reco(10))[1] == 0.0
    assert _values(frame, recsys.sufficient_reco(10, deep=True))[1] == pytest.approx(0.3)


def test_bad_ranks_and_scores() -> None:
    with pytest.raises(ValueError, match="rank 0 < 1"):
        recsys.prepare(RECO.with_columns(pl.col("rank") - 1))
    with pytest.raises(ValueError, match="null values"):
        recsys.prepare(
            RECO.with_columns(
                pl.when(pl.col("rank") == 2).then(None).otherwise(pl.col("rank")).alias("rank")
            )
        )
    with pytest.raises(ValueError, match="must hold integers"):
        recsys.prepare(RECO.with_columns(pl.col("rank").cast(pl.Float64)))
    scored = pl.DataFrame(
        {"user": [1, 1, 1], "item": [1, 2, 3], "score": [0.5, None, float("nan")]}
    )
    assert recsys.recommendations(scored).collect()["item"].to_list() == [1]  # not recommended
    with pytest.raises(ValueError, match="needs a `rank` or a `score`"):
        recsys.prepare(RECO.drop("rank"))
    with pytest.raises(ValueError, match="has no column"):
        recsys.prepare(RECO.rename({"item": "item_id"}))


def test_ids_of_different_types() -> None:
    with pytest.raises(ValueError, match="column 'item' is String"):
        recsys.prepare(RECO, interactions=TEST.with_columns(pl.col("item").cast(pl.String)))
    narrow = TEST.with_columns(pl.col("user").cast(pl.Int32), pl.col("item").cast(pl.UInt16))
    frame = recsys.prepare(RECO, interactions=narrow, train=TRAIN.cast(pl.Int16))
    assert _values(frame, recsys.recall_at_k(3))[1] == 1.0


def test_evaluate_names_options_and_inputs() -> None:
    with pytest.raises(ValueError, match="unknown measure 'Foo@3'"):
        recsys.evaluate(RECO, metrics=["Foo@3"], interactions=TEST)
    with pytest.raises(ValueError, match="write Novelty@k"):
        recsys.evaluate(RECO, metrics=["Novelty10"], interactions=TEST)
    with pytest.raises(ValueError, match="unknown option 'divide'"):
        recsys.evaluate(RECO, metrics=["MAP@3(divide=true)"], interactions=TEST)
    with pytest.raises(ValueError, match="option 'normalize' must be a bool"):
        recsys.evaluate(RECO, metrics=["AvgRecPopularity@3(normalize=yes)"], train=TRAIN)
    with pytest.raises(ValueError, match="needs `train`"):
        recsys.evaluate(RECO, metrics=["MeanInvUserFreq@3"])
    with pytest.raises(ValueError, match="needs `catalog`"):
        recsys.evaluate(RECO, metrics=["Serendipity@3"], interactions=TEST, train=TRAIN)
    with pytest.raises(ValueError, match="`log_base` must be > 1"):
        recsys.evaluate(RECO, metrics=["NDCG@3(log_base=1)"], interactions=TEST)
    with pytest.raises(ValueError, match="insufficient"):
        recsys.evaluate(RECO, metrics=["PAP@3(insufficient=raise)"], interactions=TEST)
    with pytest.raises(ValueError, match="`ref` must name one of the models"):
        recsys.evaluate(RECO, metrics=["Intersection@3(ref=other)"])
    with pytest.raises(ValueError, match="non-empty list"):
        recsys.evaluate(RECO, metrics="MAP@3")


@pytest.mark.parametrize("kind", ["eager", "lazy", "pandas", "arrow", "parquet"])
def test_every_input_kind_gives_the_same_values(kind: str, tmp_path: object) -> None:
    def convert(frame: pl.DataFrame, name: str) -> object:
        if kind == "lazy":
            return frame.lazy()
        if kind == "pandas":
            return frame.to_pandas()
        if kind == "arrow":
            return frame.to_arrow()
        if kind == "parquet":
            path = f"{tmp_path}/{name}.parquet"
            frame.write_parquet(path)
            return path
        return frame

    names = ["NDCG@3", "MeanInvUserFreq@3", "CatalogCoverage@3", "nDCG@3"]
    expected = recsys.evaluate(RECO, metrics=names, interactions=TEST, train=TRAIN).summary
    got = recsys.evaluate(
        convert(RECO, "reco"),
        metrics=names,
        interactions=convert(TEST, "test"),
        train=convert(TRAIN, "train"),
    ).summary
    assert got.equals(expected)
    assert isinstance(pa.table({"a": [1]}), pa.Table) and isinstance(pd.DataFrame(), pd.DataFrame)


def test_unsupported_input() -> None:
    with pytest.raises(ValueError, match="`reco` must be a polars DataFrame"):
        recsys.prepare([1, 2, 3])
    with pytest.raises(FileNotFoundError, match="no such file"):
        recsys.prepare("missing.parquet")
    assert math.isnan(recsys.gini_index(RECO.head(0)))


@pytest.mark.parametrize(
    "shift", [0, -(10**12), 2**40], ids=["small ids", "negative ids", "ids beyond 32 bits"]
)
def test_item_popularity_same_for_any_integer_ids(shift: int) -> None:
    """The packed-key path (ids that fit) and the n_unique path (any ids) agree."""
    rng = np.random.default_rng(3)
    train = pl.DataFrame({"user": rng.integers(0, 30, 500), "item": rng.integers(0, 40, 500)})
    shifted = train.with_columns(pl.col("user") + shift, pl.col("item") * 3 + shift)
    as_strings = shifted.with_columns(pl.col("item").cast(pl.String))
    got = recsys.item_popularity(shifted).sort("item_count", "item_users").collect()
    expected = recsys.item_popularity(as_strings).sort("item_count", "item_users").collect()
    columns = ["item_users", "item_count", "pop_rank"]  # long_tail breaks ties by id order
    assert got.select(columns).equals(expected.select(columns))
    _, totals = recsys.frames.train_statistics(shifted)
    assert totals.collect().row(0) == (shifted["user"].n_unique(), shifted.height)
    reference = shifted.group_by("item").agg(pl.col("user").n_unique().alias("n")).sort("item")
    assert got.sort("item")["item_users"].to_list() == reference["n"].to_list()


@pytest.mark.parametrize("dtype", [pl.Int64, pl.Int16, pl.UInt32])
def test_distinct_item_users_numpy_and_polars_paths_agree(dtype: pl.DataType) -> None:
    """The numpy sort (dense ids) and the polars packed sort count the same, as n_unique does."""
    rng = np.random.default_rng(5)
    train = pl.DataFrame(
        {"user": rng.integers(0, 40, 800), "item": rng.zipf(1.5, 800) % 60 + 7}
    ).cast(dtype)
    by_numpy = recsys.packed._sorted_pairs_numpy(train)
    by_polars = recsys.packed._packed_pairs(train)
    assert by_numpy is not None and by_polars is not None
    reference = train.group_by("item").agg(
        pl.col("user").n_unique().cast(pl.UInt32).alias("item_users"),
        pl.len().alias("item_count"),
    )
    for per_item in (by_numpy[0], by_polars[0]):
        assert per_item.sort("item").equals(reference.sort("item"))
    assert by_numpy[1].equals(by_polars[1])
    assert by_numpy[1].row(0) == (train["user"].n_unique(), train.height)
    sparse = train.with_columns(pl.col("item").cast(pl.Int64) * 10**7)  # too sparse to bincount
    assert recsys.packed._sorted_pairs_numpy(sparse) is None


@pytest.mark.parametrize("seed", range(4))
def test_repeat_check_by_numpy_agrees_with_group_by(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    pairs = pl.DataFrame({"user": rng.integers(-5, 8, n), "item": rng.integers(0, 10, n)})
    repeated = pairs.group_by("user", "item").len().filter(pl.col("len") > 1).height > 0
    assert recsys.packed._no_repeats_numpy(pairs) is (not repeated)
    assert recsys.packed._no_repeats_numpy(pairs.unique()) is True
    as_strings = pairs.with_columns(pl.col("item").cast(pl.String))
    assert recsys.packed._no_repeats_numpy(as_strings) is None
    reco = pairs.with_columns(pl.lit(1).alias("rank")).lazy()
    if repeated:
        with pytest.raises(ValueError, match="more than once"):
            recsys.frames.check_reco(reco)
    else:
        recsys.frames.check_reco(reco)


def test_scores_are_ranked_highest_first_ties_by_item() -> None:
    scored = pl.DataFrame(
        {"user": [1, 1, 1, 1, 2], "item": [30, 10, 20, 40, 5], "score": [0.5, 0.9, 0.5, None, 1.0]}
    )
    ranked = recsys.recommendations(scored).sort("user", "rank").collect()
    assert ranked.rows() == [(1, 10, 1), (1, 20, 2), (1, 30, 3), (2, 5, 1)]
    as_pandas = {"m": scored.to_pandas()}
    from_scores = recsys.evaluate(as_pandas, metrics=["MAP@3"], interactions=TEST).per_user
    from_ranks = recsys.evaluate({"m": ranked}, metrics=["MAP@3"], interactions=TEST).per_user
    assert from_scores.equals(from_ranks)
