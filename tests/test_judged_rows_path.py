"""bpref on a list of the labelled rows only: the same values as the plain path, bit for bit.

A statistic declared ``judged_rows`` (bpref) reads nothing of a row without a
label where no label of 0 is relevant, so the engine ranks only the labelled
rows for it (:meth:`.Ranking.labelled`), and the others of the call take the
staged path. The reference is :func:`.entry.plain` (every statistic computed
whole on one sorted list of every row), via ``FAST_PATHS = False``; the cases
cover null, NaN and negative labels, null and NaN scores, ties, unretrieved
labelled rows, groups without any label, both bpref conventions for negative
labels, a threshold of 0 inclusive (where an unlabelled row is relevant, so the
path must not be taken), and the one-statistic entry point.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics.engine import Ranking, Threshold, entry
from polars_rankmetrics.measures import parse_measure
from polars_rankmetrics.metrics.incomplete import bpref_statistic


def _frame(seed: int) -> pl.DataFrame:
    rng = random.Random(seed)
    rows = []
    for q in range(40):
        unlabelled_only = q % 9 == 4  # groups without any label
        for d in range(rng.randint(1, 30)):
            score = rng.choice([None, float("nan"), 0.5, 1.0, 2.0, rng.random()])
            label = (
                None if unlabelled_only else rng.choice([None, None, float("nan"), -1.0, 0, 1, 2])
            )
            rows.append((q, f"d{d:02d}", score, label))
    return pl.DataFrame(rows, schema=["query", "doc", "score", "relevance"], orient="row")


def _count_labelled(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    original = Ranking.labelled

    def counted(self: Ranking, fields: object) -> pl.Expr:
        calls.append(1)
        return original(self, fields)  # type: ignore[arg-type]

    monkeypatch.setattr(Ranking, "labelled", counted)
    return calls


def _fast_and_plain(
    monkeypatch: pytest.MonkeyPatch, values: Callable[[], pl.DataFrame]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    fast = values()
    with monkeypatch.context() as patch:
        patch.setattr(entry, "FAST_PATHS", False)
        plain = values()
    return fast, plain


MEASURE_SETS = [
    ["bpref"],
    ["P@10", "bpref", "AP", "RR"],  # bpref beside staged statistics
    ["P@10", "bpref", "infAP", "nDCG@10"],  # and beside another that reads fields
    ["bpref", "infAP"],  # no staged statistic: the plain path for the other
]


@pytest.mark.parametrize("threshold", [0, 1])
@pytest.mark.parametrize("names", MEASURE_SETS, ids=["alone", "staged", "fields", "no-staged"])
@pytest.mark.parametrize("seed", [0, 1])
def test_bpref_on_labelled_rows_equals_the_plain_path(
    seed: int, names: list[str], threshold: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = _frame(seed)
    calls = _count_labelled(monkeypatch)

    def values() -> pl.DataFrame:
        expr = rm.metrics("relevance", names, by=["score", "doc"], threshold=threshold)
        return frame.group_by("query").agg(expr).sort("query").unnest("relevance")

    fast, plain = _fast_and_plain(monkeypatch, values)
    # Without a staged statistic the plain path takes every one (one sort).
    assert bool(calls) == (names != ["bpref", "infAP"]), "which path was taken"
    assert_frame_equal(fast, plain, check_exact=True)
    assert fast.columns[1:] == names


@pytest.mark.parametrize("seed", [2, 3])
def test_both_conventions_for_negative_labels(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """trec_eval reads a negative label as unjudged, ranx as judged non-relevant."""
    frame = _frame(seed)
    calls = _count_labelled(monkeypatch)

    def values() -> pl.DataFrame:
        ranking = Ranking.build("relevance", ["score", "doc"], [True, True], 0.0)
        bound = [
            bpref_statistic.bind("trec", "zero"),
            bpref_statistic.bind("ranx", "zero", negatives="nonrelevant"),
            parse_measure("P@5").bind("zero"),
        ]
        return frame.group_by("query").agg(entry.evaluate(ranking, bound)).sort("query")

    fast, plain = _fast_and_plain(monkeypatch, values)
    assert calls
    assert_frame_equal(fast, plain, check_exact=True)
    both = fast.unnest("relevance")
    assert not both.select((pl.col("trec") == pl.col("ranx")).all()).item()


def test_one_statistic_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _frame(4)
    calls = _count_labelled(monkeypatch)
    bound = parse_measure("bpref").bind("null")

    def values() -> pl.DataFrame:
        ranking = Ranking.build("relevance", "score", True, 0.0)
        return frame.group_by("query").agg(entry.evaluate_one(ranking, bound)).sort("query")

    fast, plain = _fast_and_plain(monkeypatch, values)
    assert calls
    assert_frame_equal(fast, plain, check_exact=True)


def test_a_threshold_that_admits_zero_ranks_every_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """At ``>= 0`` an unlabelled row (label read as 0) is relevant: bpref reads every row."""
    frame = _frame(5)
    calls = _count_labelled(monkeypatch)
    admits_zero = Threshold(0, inclusive=True)

    def values() -> pl.DataFrame:
        ranking = Ranking.build("relevance", ["score", "doc"], [True, True], admits_zero)
        bound = [parse_measure("bpref").bind("zero"), parse_measure("P@5").bind("zero")]
        return frame.group_by("query").agg(entry.evaluate(ranking, bound)).sort("query")

    fast, plain = _fast_and_plain(monkeypatch, values)
    assert not calls
    assert_frame_equal(fast, plain, check_exact=True)
    # and the labelled rows alone would give other values here: the guard matters
    only_labelled = frame.filter(pl.col("relevance").is_not_null())
    ranking = Ranking.build("relevance", ["score", "doc"], [True, True], admits_zero)
    bound = [parse_measure("bpref").bind("zero")]
    fewer = only_labelled.group_by("query").agg(entry.evaluate(ranking, bound)).sort("query")
    assert (
        not fast.join(fewer, on="query")
        .select(
            (
                pl.col("relevance").struct.field("bpref")
                == pl.col("relevance_right").struct.field("bpref")
            ).all()
        )
        .item()
    )


def test_bpref_against_a_slow_reference() -> None:
    """trec_eval's bpref written out: judged non-relevant rows above each relevant one."""
    frame = _frame(6).filter(pl.col("score").is_not_nan() | pl.col("score").is_null())
    got = frame.group_by("query").agg(
        rm.metrics("relevance", ["bpref"], by=["score", "doc"], threshold=0, no_relevant="zero")
    )
    expected = {}
    for (query,), rows in frame.group_by("query"):
        ranked = sorted(
            (r for r in rows.iter_rows(named=True) if r["score"] is not None),
            key=lambda r: (r["score"], r["doc"]),
            reverse=True,  # score descending, then doc descending (the `by` order)
        )
        labels = [r["relevance"] for r in rows.iter_rows(named=True)]
        judged = [x for x in labels if x is not None and x == x and x >= 0]
        n_rel = sum(1 for x in judged if x > 0)
        n_nonrel = sum(1 for x in judged if x == 0)
        total, above = 0.0, 0
        for r in ranked:
            label = r["relevance"]
            if label is None or label != label or label < 0:
                continue
            if label > 0:
                total += 1.0 - min(above, n_rel) / min(n_nonrel, n_rel) if above else 1.0
            else:
                above += 1
        expected[query] = total / n_rel if n_rel else 0.0
    values = dict(got.select("query", pl.col("relevance").struct.field("bpref")).iter_rows())
    assert values == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_an_order_key_sorts_the_labelled_rows_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ranking sorted by one integer key (ranx's positions) filters the key with the rows."""
    frame = _frame(7).with_columns(
        pl.int_range(pl.len()).shuffle(seed=7).alias("position").cast(pl.Int64)
    )
    calls = _count_labelled(monkeypatch)

    def values() -> pl.DataFrame:
        plain = Ranking.build("relevance", ["score", "doc"], [True, True], 0.0)
        ranking = replace(plain, order_key=pl.col("position"))
        bound = [parse_measure("bpref").bind("zero"), parse_measure("P@5").bind("zero")]
        return frame.group_by("query").agg(entry.evaluate(ranking, bound)).sort("query")

    fast, plain = _fast_and_plain(monkeypatch, values)
    assert calls
    assert_frame_equal(fast, plain, check_exact=True)


@pytest.mark.parametrize("label", ["by0", "by1", "order_key", "grade"])
def test_any_label_name_gives_the_same_values(label: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The labelled rows' struct names the label's field after the column, unless taken."""
    frame = _frame(5).rename({"relevance": label})
    calls = _count_labelled(monkeypatch)

    def values() -> pl.DataFrame:
        expr = rm.metrics(label, ["P@10", "bpref", "AP"], by=["score", "doc"])
        return frame.group_by("query").agg(expr).sort("query").unnest(label)

    fast, plain = _fast_and_plain(monkeypatch, values)
    assert calls
    assert_frame_equal(fast, plain, check_exact=True)
    renamed = (
        _frame(5)
        .group_by("query")
        .agg(rm.metrics("relevance", ["P@10", "bpref", "AP"], by=["score", "doc"]))
    )
    assert_frame_equal(fast, renamed.sort("query").unnest("relevance"), check_exact=True)
