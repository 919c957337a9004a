"""The numpy fast paths of rm.recsys.evaluate (recsys/packed.py) against the polars steps.

Each fast path is checked against the polars operation it stands for (a join,
``unique``, ``value_counts``), and ``evaluate`` as a whole with the fast paths
on and switched off (the polars path, which the RecTools parity tests cover).
"""

from __future__ import annotations

import importlib

import numpy as np
import polars as pl
import pytest
from polars._typing import PolarsDataType
from polars.testing import assert_frame_equal

from polars_rankmetrics import recsys
from polars_rankmetrics.recsys import packed

evaluate_module = importlib.import_module("polars_rankmetrics.recsys.evaluate")
coverage_module = importlib.import_module("polars_rankmetrics.recsys.coverage")
FAST_PATHS = {  # where each fast path is called from
    "ranked_pairs": evaluate_module,
    "ranks_of": evaluate_module,
    "popularity_gather": evaluate_module,
    "sorted_item_counts": coverage_module,
}


def _reco(seed: int, *, grouped: bool = True, dtype: PolarsDataType = pl.Int64) -> pl.DataFrame:
    """Lists of 0..8 distinct items per user with tied ranks and gaps; users in order or not."""
    rng = np.random.default_rng(seed)
    rows = []
    for user in rng.permutation(30) - 4:
        length = int(rng.integers(0, 9))
        items = rng.choice(40, size=length, replace=False) + 3
        ranks = np.sort(rng.integers(1, 12, size=length))
        rows += [(int(user), int(i), int(r)) for i, r in zip(items, ranks, strict=True)]
    frame = pl.DataFrame(rows, schema=["user", "item", "rank"], orient="row")
    frame = frame.sort("user", "rank") if grouped else frame.sample(fraction=1.0, seed=seed)
    if not dtype.is_signed_integer():
        frame = frame.with_columns(pl.col("user") + 4)  # no negative ids
    return frame.with_columns(pl.col("user", "item").cast(dtype))


def _pairs(seed: int, n: int = 120) -> pl.DataFrame:
    """Test pairs: users and items inside and outside the lists' ranges."""
    rng = np.random.default_rng(seed + 100)
    return pl.DataFrame({"user": rng.integers(-8, 34, n), "item": rng.integers(-2, 50, n)})


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_ranks_of_equals_the_join(seed: int, grouped: bool) -> None:
    reco = _reco(seed, grouped=grouped)
    pairs = _pairs(seed).unique()
    index = packed.ranked_pairs(reco)
    assert index is not None
    assert not packed.has_repeats(index)
    got = packed.ranks_of(index, pairs)
    assert got is not None
    expected = pairs.join(reco, on=["user", "item"], how="left")
    assert_frame_equal(got, expected, check_row_order=False)


def test_ranked_pairs_finds_repeats_and_declines_what_does_not_fit() -> None:
    reco = _reco(1)
    repeated = pl.concat([reco, reco.head(1).with_columns(pl.col("rank") + 1)])
    index = packed.ranked_pairs(repeated)
    assert index is not None and packed.has_repeats(index)
    assert packed.ranked_pairs(reco.with_columns(pl.col("item").cast(pl.String))) is None
    huge = reco.with_columns(pl.col("user") * 2**40, pl.col("item") * 2**20)  # > 63 bits
    assert packed.ranked_pairs(huge) is None
    nulls = reco.with_columns(pl.when(pl.col("item") > 20).then(pl.col("item")).alias("item"))
    assert packed.ranked_pairs(nulls) is None
    assert packed.ranks_of(packed.ranked_pairs(reco), _pairs(1).cast(pl.String)) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("k", [None, 1, 4, 20])
def test_sorted_item_counts_equal_value_counts(k: int | None) -> None:
    reco = _reco(2, grouped=False)
    got = packed.sorted_item_counts(reco, k)
    top = reco if k is None else reco.filter(pl.col("rank") <= k)
    counts = top["item"].value_counts()["count"].cast(pl.Float64).sort()
    assert got is not None
    assert got.to_list() == counts.to_list()
    sparse = reco.with_columns(pl.col("item") * 10**9)
    assert packed.sorted_item_counts(sparse, k) is None


def test_popularity_gather_equals_the_left_join() -> None:
    popularity = pl.DataFrame(
        {"item": [5, 9, 7, 30], "item_users": [2, 1, 4, 3], "long_tail": [False, True, None, True]}
    ).with_columns(pl.col("item_users").cast(pl.UInt32))
    rows = pl.DataFrame({"item": [5, 6, 30, 31, 4, -1, None, 9, 9]})
    gathered = packed.popularity_gather(popularity, ["item_users", "long_tail"], pl.Int64)
    assert gathered is not None
    got = rows.with_columns(gathered)
    expected = rows.join(popularity, on="item", how="left", maintain_order="left")
    assert_frame_equal(got, expected)
    assert packed.popularity_gather(popularity, ["item_users"], pl.String) is None
    sparse = popularity.with_columns(pl.col("item") * 10**9)
    assert packed.popularity_gather(sparse, ["item_users"], pl.Int64) is None


def test_distinct_pairs_keeps_a_table_without_repeats() -> None:
    pairs = _pairs(3)
    once = pairs.unique()
    assert packed.distinct_pairs(once) is once
    assert packed.distinct_pairs(pairs).sort("user", "item").equals(once.sort("user", "item"))


METRICS = [
    "Precision@5",
    "Recall@4",
    "NDCG@5",
    "MAP@5",
    "MRR@3",
    "HitRate@2",
    "PAP@4",
    "MeanInvUserFreq@5",
    "AvgRecPopularity@5",
    "EPC@4",
    "APLT@5",
    "ACLT@5",
    "PopStratifiedRecall@5",
    "Serendipity@5",
    "CoveredUsers@3",
    "SufficientReco@5",
    "CatalogCoverage@5",
    "CatalogCoverage@3(normalize=true)",
    "Gini@5",
    "Gini@3",
    "Entropy@5",
    "Novelty@5",
    "nDCG@5",
]


def _without_fast_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ranked_pairs", "popularity_gather", "sorted_item_counts"):
        monkeypatch.setattr(FAST_PATHS[name], name, lambda *args: None)
    monkeypatch.setattr(evaluate_module, "distinct_pairs", lambda frame: frame.unique())


@pytest.mark.parametrize(
    ("seed", "grouped", "dtype", "repeats"),
    [(0, True, pl.Int64, "raise"), (1, False, pl.Int32, "raise"), (2, True, pl.UInt16, "first")],
)
def test_evaluate_same_values_with_and_without_fast_paths(
    monkeypatch: pytest.MonkeyPatch, seed: int, grouped: bool, dtype: PolarsDataType, repeats: str
) -> None:
    reco = _reco(seed, grouped=grouped, dtype=dtype)
    other = _reco(seed + 10, dtype=dtype)
    if repeats == "first":  # a repeated pair: its best rank is kept
        reco = pl.concat([reco, reco.head(2).with_columns(pl.col("rank") + 3)])
    rng = np.random.default_rng(seed)
    test = pl.concat([_pairs(seed), _pairs(seed).head(5)])  # repeated test pairs too
    test = test.filter(pl.col("user") >= 0, pl.col("item") >= 0).cast(dtype)
    train = pl.DataFrame(
        {"user": rng.integers(0, 50, 400), "item": rng.zipf(1.4, 400) % 35 + 10}
    ).cast(dtype)  # items 3..9 and 45.. of the lists never seen in training
    kwargs = {
        "metrics": METRICS,
        "interactions": test,
        "train": train,
        "catalog": 60,
        "repeats": repeats,
    }
    taken: set[str] = set()
    for name, module in FAST_PATHS.items():
        function = getattr(module, name)

        def spy(*args: object, _name: str = name, _function: object = function) -> object:
            result = _function(*args)  # type: ignore[operator]
            if result is not None:
                taken.add(_name)
            return result

        monkeypatch.setattr(module, name, spy)
    fast = recsys.evaluate({"a": reco, "b": other}, **kwargs)  # type: ignore[arg-type]
    assert taken == set(FAST_PATHS)
    monkeypatch.undo()
    _without_fast_paths(monkeypatch)
    slow = recsys.evaluate({"a": reco, "b": other}, **kwargs)  # type: ignore[arg-type]
    assert_frame_equal(fast.per_user, slow.per_user, check_exact=False, rel_tol=1e-12)
    assert_frame_equal(fast.summary, slow.summary, check_exact=False, rel_tol=1e-12)


def test_evaluate_still_names_repeated_pairs() -> None:
    reco = _reco(4)
    repeated = pl.concat([reco, reco.head(1).with_columns(pl.col("rank") + 1)])
    with pytest.raises(ValueError, match="more than once"):
        recsys.evaluate(repeated, metrics=["Precision@3"], interactions=_pairs(4))


@pytest.mark.parametrize("chunk", [3, 64, 1 << 22])
@pytest.mark.parametrize("seed", range(3))
def test_train_counts_equal_the_in_memory_count(
    monkeypatch: pytest.MonkeyPatch, seed: int, chunk: int
) -> None:
    """The streamed key and the counts a block at a time: the same counts as n_unique."""
    monkeypatch.setattr(packed, "_CHUNK", chunk)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    train = pl.DataFrame({"user": rng.integers(0, 30, n), "item": rng.zipf(1.5, n) % 50}).cast(
        {"item": pl.Int32, "user": pl.UInt32}
    )
    got = packed.train_counts(train.lazy())
    assert got is not None
    reference = train.group_by("item").agg(
        pl.col("user").n_unique().cast(pl.UInt32).alias("item_users"),
        pl.len().cast(pl.UInt32).alias("item_count"),
    )
    assert_frame_equal(got[0], reference, check_row_order=False)
    assert got[1].row(0) == (train["user"].n_unique(), n)


def test_train_counts_declines_what_it_cannot_pack() -> None:
    for user, item in [
        ([-1, 2], [1, 2]),  # a negative id
        ([1, 2], [1, 2**30]),  # items too sparse to count
        ([1, 2**33], [1, 2]),  # a user beyond 32 bits
        ([1, None], [1, 2]),  # a null
    ]:
        assert packed.train_counts(pl.LazyFrame({"user": user, "item": item})) is None
    assert packed.train_counts(pl.LazyFrame({"user": ["a"], "item": [1]})) is None
    assert (
        packed.train_counts(
            pl.LazyFrame({"user": [], "item": []}, schema=[("user", pl.Int64), ("item", pl.Int64)])
        )
        is None
    )


def test_no_sorted_flag_reaches_the_group_by() -> None:
    """A user column flagged sorted sends group_by down a far slower path: the flag is dropped."""
    reco = _reco(5).sort("user", "item")
    pairs = reco.select("user", "item").head(40).unique().sort("user", "item")
    flagged = pairs.with_columns(pl.col("user").set_sorted())
    index = packed.ranked_pairs(reco)
    assert index is not None
    got = packed.ranks_of(index, flagged)
    assert got is not None and not any(got["user"].flags.values())
    assert_frame_equal(
        got, pairs.join(reco, on=["user", "item"], how="left"), check_row_order=False
    )
    unflagged = packed.unflagged(flagged)
    assert unflagged.equals(flagged) and not any(unflagged["user"].flags.values())
