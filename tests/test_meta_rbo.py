"""RBO against the rbo package (ext, truncated) and a slow reference of every form."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest

from polars_rankmetrics.meta_evaluation import rbo

rbo_package = pytest.importorskip("rbo")

EXTENDED = 400  # p**400 < 1e-18 for the p below 0.9: the tail beyond it is negligible


def _random_pairs(seed: int, n: int = 200) -> tuple[list[list[str]], list[list[str]]]:
    rng = random.Random(seed)
    first, second = [], []
    for _ in range(n):
        pool = [f"d{j}" for j in range(rng.randint(1, 30))]
        first.append(rng.sample(pool, rng.randint(0, len(pool))))
        second.append(rng.sample(pool, rng.randint(0, len(pool))))
    return first, second


def _frame(first: list[list[str]], second: list[list[str]]) -> pl.DataFrame:
    schema = {"a": pl.List(pl.String), "b": pl.List(pl.String)}
    return pl.DataFrame({"a": first, "b": second}, schema=schema)


def _sum_agreements(left: list[str], right: list[str], p: float) -> float:
    """(1-p)/p * sum_d A_d p**d over the explicit lists, to their common length."""
    total = 0.0
    for d in range(1, len(left) + 1):
        total += len(set(left[:d]) & set(right[:d])) / d * p**d
    return (1 - p) / p * total


def _slow_min(short: list[str], long: list[str], p: float) -> float:
    # Unseen items never match: extend both with items of their own.
    left = short + [f"s{i}" for i in range(EXTENDED - len(short))]
    right = long + [f"l{i}" for i in range(EXTENDED - len(long))]
    return _sum_agreements(left, right, p)


def _slow_max(short: list[str], long: list[str], p: float) -> float:
    # Unseen items match as early as they can: the short list continues with the long
    # list's unmatched items, the long one with the short list's, then both alike.
    fresh = [f"f{i}" for i in range(EXTENDED)]
    left = short + [x for x in long if x not in short] + fresh
    right = long + [x for x in short if x not in long] + fresh
    left, right = left[:EXTENDED], right[:EXTENDED]
    return _sum_agreements(left, right, p) + p**EXTENDED


@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
def test_ext_and_truncated_equal_the_rbo_package(p: float) -> None:
    first, second = _random_pairs(1)
    out = _frame(first, second).select(
        ext=rbo("a", "b", p=p),
        truncated=rbo("a", "b", p=p, kind="truncated"),
        at_five=rbo("a", "b", p=p, kind="truncated", depth=5),
    )
    pairs = [rbo_package.RankingSimilarity(a, b) for a, b in zip(first, second, strict=True)]
    np.testing.assert_allclose(out["ext"], [r.rbo_ext(p) for r in pairs], rtol=0, atol=1e-9)
    np.testing.assert_allclose(out["truncated"], [r.rbo(p=p) for r in pairs], rtol=0, atol=1e-9)
    np.testing.assert_allclose(out["at_five"], [r.rbo(k=5, p=p) for r in pairs], atol=1e-9)


def test_ext_equals_the_packages_even_length_extrapolation() -> None:
    rng = random.Random(2)
    pool = [f"d{j}" for j in range(20)]
    first = [rng.sample(pool, 8) for _ in range(50)]
    second = [rng.sample(pool, 8) for _ in range(50)]
    out = _frame(first, second).select(rbo("a", "b", p=0.8))
    expected = [
        rbo_package.RankingSimilarity(a, b).rbo(p=0.8, ext=True)
        for a, b in zip(first, second, strict=True)
    ]
    np.testing.assert_allclose(out.to_series(), expected, atol=1e-9)


@pytest.mark.parametrize("p", [0.5, 0.8, 0.9])
def test_min_and_res_equal_the_slow_bounds(p: float) -> None:
    first, second = _random_pairs(3, n=60)
    pairs = [(a, b) for a, b in zip(first, second, strict=True) if a and b]
    frame = _frame([a for a, _ in pairs], [b for _, b in pairs])
    out = frame.select(
        low=rbo("a", "b", p=p, kind="min"),
        res=rbo("a", "b", p=p, kind="res"),
        ext=rbo("a", "b", p=p),
    )
    ordered = [(a, b) if len(a) <= len(b) else (b, a) for a, b in pairs]
    low = [_slow_min(s, long, p) for s, long in ordered]
    high = [_slow_max(s, long, p) for s, long in ordered]
    np.testing.assert_allclose(out["low"], low, atol=1e-9)
    np.testing.assert_allclose(out["res"], np.subtract(high, low), atol=1e-9)
    assert (out["low"] <= out["ext"] + 1e-12).all()
    assert (out["ext"] <= out["low"] + out["res"] + 1e-12).all()


def test_is_symmetric_and_one_on_identical_rankings() -> None:
    first, second = _random_pairs(4, n=50)
    frame = _frame(first, second)
    for kind in ("ext", "min", "res", "truncated"):
        out = frame.select(ab=rbo("a", "b", kind=kind), ba=rbo("b", "a", kind=kind))
        np.testing.assert_allclose(out["ab"], out["ba"], atol=1e-12)
    same = _frame([["a", "b", "c"]], [["a", "b", "c"]]).select(rbo("a", "b", p=0.9))
    assert same.item() == pytest.approx(1.0)


def test_integer_items_and_lazy_and_group_context() -> None:
    frame = pl.DataFrame(
        {"q": [1, 1, 2], "a": [[1, 2, 3], [3, 2], [5]], "b": [[2, 1, 3], [3], [5]]}
    )
    eager = frame.select(rbo("a", "b", p=0.7))
    lazy = frame.lazy().select(rbo("a", "b", p=0.7)).collect()
    assert eager.equals(lazy)
    expected = [
        rbo_package.RankingSimilarity(a, b).rbo_ext(0.7)
        for a, b in zip(frame["a"].to_list(), frame["b"].to_list(), strict=True)
    ]
    np.testing.assert_allclose(eager.to_series(), expected, atol=1e-12)


def test_empty_and_null_rankings() -> None:
    frame = pl.DataFrame(
        {"a": [[], [], None], "b": [[], ["x"], ["x"]]},
        schema={"a": pl.List(pl.String), "b": pl.List(pl.String)},
    )
    out = frame.select(
        ext=rbo("a", "b"), low=rbo("a", "b", kind="min"), res=rbo("a", "b", kind="res")
    )
    assert out["ext"].to_list() == [1.0, 0.0, None]
    assert out["low"].to_list() == [0.0, 0.0, None]
    assert out["res"][:2].to_list() == pytest.approx([1.0, 1.0])
    assert out["res"][2] is None


def test_duplicate_items_are_refused_naming_the_column() -> None:
    frame = pl.DataFrame({"a": [["x", "y"], ["x", "x"]], "b": [["x"], ["y"]]})
    with pytest.raises(pl.exceptions.ComputeError, match=r"`a` holds an item twice in row 1"):
        frame.select(rbo("a", "b"))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"p": 0.0}, "`p` must be a number in"),
        ({"p": 1.0}, "`p` must be a number in"),
        ({"p": True}, "`p` must be a number in"),
        ({"kind": "max"}, "`kind` must be one of"),
        ({"depth": 0}, "`depth` must be a positive int"),
    ],
)
def test_bad_parameters_raise_when_built(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rbo("a", "b", **options)  # type: ignore[arg-type]


def test_rbo_runs_orders_ties_as_trec_eval_and_equals_the_package() -> None:
    from polars_rankmetrics.meta_evaluation import rbo_runs

    rng = random.Random(5)
    rows_a, rows_b = [], []
    for query in ("q1", "q2", "q3"):
        for doc in rng.sample(range(40), 25):
            rows_a.append((query, f"d{doc:02}", float(rng.randint(0, 5))))
        for doc in rng.sample(range(40), 18):
            rows_b.append((query, f"d{doc:02}", float(rng.randint(0, 5))))
    rows_b.append(("q4", "d01", 1.0))
    schema = ["query", "doc", "score"]
    run_a = pl.DataFrame(rows_a, schema=schema, orient="row")
    run_b = pl.DataFrame(rows_b, schema=schema, orient="row")
    out = rbo_runs(run_a, run_b, p=0.95)

    def ordered(rows: list[tuple[str, str, float]], query: str) -> list[str]:
        mine = [row for row in rows if row[0] == query]
        return [doc for _, doc, _ in sorted(mine, key=lambda row: (row[2], row[1]), reverse=True)]

    expected = [
        rbo_package.RankingSimilarity(ordered(rows_a, q), ordered(rows_b, q)).rbo_ext(0.95)
        for q in ("q1", "q2", "q3", "q4")
    ]
    assert out["query"].to_list() == ["q1", "q2", "q3", "q4"]
    np.testing.assert_allclose(out["rbo"], expected, atol=1e-9)


def test_the_sorting_path_equals_the_join_path() -> None:
    from polars_rankmetrics.meta_evaluation import _overlap
    from polars_rankmetrics.meta_evaluation.rbo import _weights

    first, second = _random_pairs(6, n=300)
    lists = _frame(first, second).select(
        pl.int_range(pl.len(), dtype=pl.UInt32).alias("row"), "a", "b"
    )
    table = _weights(0.9, 80)
    by_sorting = _overlap._by_sorting(lists, table)
    assert by_sorting is not None
    by_join = _overlap._by_join(lists, table, ("a", "b"))
    for column in ("x_l", "x_s", "w_sum", "w_sum_short"):
        np.testing.assert_allclose(by_sorting[column], by_join[column], atol=1e-12)


def test_blocks_of_rows_and_null_items() -> None:
    from polars_rankmetrics.meta_evaluation import _overlap

    first, second = _random_pairs(7, n=50)
    frame = _frame(first, second)
    whole = frame.select(rbo("a", "b", p=0.8))
    original = _overlap._BLOCK_ROWS
    try:
        _overlap._BLOCK_ROWS = 7
        blocked = frame.select(rbo("a", "b", p=0.8))
    finally:
        _overlap._BLOCK_ROWS = original
    np.testing.assert_allclose(whole.to_series(), blocked.to_series(), atol=1e-15)
    with_null = pl.DataFrame({"a": [["x", None, "y"]], "b": [["y", None]]})
    expected = rbo_package.RankingSimilarity(["x", "n1", "y"], ["y", "n2"]).rbo_ext(0.8)
    assert with_null.select(rbo("a", "b", p=0.8)).item() == pytest.approx(expected)


def test_output_name_and_group_context() -> None:
    frame = pl.DataFrame(
        {"q": [1, 1, 2], "a": [["x", "y"], ["y"], ["z"]], "b": [["y", "x"], ["y"], ["z", "w"]]}
    )
    grouped = frame.group_by("q", maintain_order=True).agg(rbo("a", "b", p=0.9))
    assert grouped.columns == ["q", "rbo"]
    assert grouped["rbo"].to_list()[0] == pytest.approx([0.9, 1.0])


def test_item_types_must_agree() -> None:
    frame = pl.DataFrame({"a": [["1", "2"]], "b": [[1, 2]]})
    with pytest.raises(pl.exceptions.ComputeError, match="lists of one item type"):
        frame.select(rbo("a", "b"))


@pytest.mark.parametrize("dtype", [pl.String, pl.Int64])
def test_blocks_of_one_shape_with_uneven_lengths(dtype: pl.DataType) -> None:
    # Every row has lengths 5 and 8: the sorting path's slices, no padding.
    rng = random.Random(8)
    make = str if dtype == pl.String else int
    first = [[make(x) for x in rng.sample(range(12), 5)] for _ in range(40)]
    second = [[make(x) for x in rng.sample(range(12), 8)] for _ in range(40)]
    schema = {"a": pl.List(dtype), "b": pl.List(dtype)}
    frame = pl.DataFrame({"a": first, "b": second}, schema_overrides=schema)
    out = frame.select(ext=rbo("a", "b", p=0.9), low=rbo("a", "b", p=0.9, kind="min"))
    expected = [
        rbo_package.RankingSimilarity(a, b).rbo_ext(0.9) for a, b in zip(first, second, strict=True)
    ]
    np.testing.assert_allclose(out["ext"], expected, rtol=0, atol=1e-9)
    lows = [_slow_min(a, b, 0.9) for a, b in zip(first, second, strict=True)]
    np.testing.assert_allclose(out["low"], lows, rtol=0, atol=1e-9)


def test_hash_collisions_fall_back_to_the_join(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every item hashes alike: the sorting path must notice and give the join's numbers.
    from polars_rankmetrics.meta_evaluation import _overlap
    from polars_rankmetrics.meta_evaluation.rbo import _weights

    first, second = _random_pairs(9, n=60)
    frame = _frame(first, second)
    expected = frame.select(rbo("a", "b", p=0.8)).to_series()
    zeros = lambda self, seed=0: pl.Series([0] * self.len(), dtype=pl.UInt64)  # noqa: E731
    monkeypatch.setattr(pl.Series, "hash", zeros)
    collided = frame.select(rbo("a", "b", p=0.8)).to_series()
    np.testing.assert_allclose(collided, expected, rtol=0, atol=1e-12)
    # One item a side, different items with one hash: caught by the check on the items.
    lists = pl.DataFrame({"row": pl.Series([0], dtype=pl.UInt32), "a": [["x"]], "b": [["w"]]})
    assert _overlap._by_sorting(lists, _weights(0.8, 4)) is None
    assert pl.DataFrame({"a": [["x"]], "b": [["w"]]}).select(rbo("a", "b")).item() == 0.0
