"""trec_eval's doubles, bit for bit: the order of additions, true divisions, C's log2.

A printed x.xxxx5 value rounds one way or the other depending on the last bit
of the double, so every measure adds its terms in rank order, divides where
trec_eval divides and takes C's ``log2``; the summary adds the queries in order
and divides. These tests pin the primitives that guarantee it, and the values
trec_eval's own doubles have (its ``%.17g`` output) in cases where another
order or operation gives another double.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.engine.ranked import LOG2_TABLE_SIZE, in_order, log2, log2_table
from polars_rankmetrics.measures.trec_names import NICKNAMES


def sequential(values: list[float]) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


def test_list_sum_adds_in_list_order() -> None:
    # The fast paths compute `in_order` with polars' `list.sum`; it must add
    # one value after the other. Lists long enough for a pairwise sum to differ.
    rng = random.Random(7)
    lists = [[rng.random() * 10.0 ** rng.randint(-8, 8) for _ in range(n)] for n in (3, 200, 5000)]
    frame = pl.DataFrame({"values": lists})
    summed = frame.select(pl.col("values").list.sum()).to_series().to_list()
    ordered = frame.select(pl.col("values").list.agg(in_order(pl.element()))).to_series().to_list()
    assert summed == ordered == [sequential(values) for values in lists]
    assert sequential(lists[2]) != math.fsum(lists[2])  # the order does matter here


def test_log2_is_c_log2() -> None:
    table = log2_table(LOG2_TABLE_SIZE).to_list()
    assert table == [math.log2(rank + 1) for rank in range(1, LOG2_TABLE_SIZE + 1)]
    values = [1.0, 2.0, 3.0, 1000.0, 65536.0, 70001.0, 2.5]
    got = pl.DataFrame({"x": values}).select(log2(pl.col("x"))).to_series().to_list()
    assert got[:5] == [math.log2(v) for v in values[:5]]
    # Polars' log(2) is ln(x)/ln(2): it differs from C's log2 for some integers.
    polars_log = pl.Series([3.0, 5.0, 6.0, 7.0, 9.0, 10.0]).log(2).to_list()
    assert any(a != math.log2(b) for a, b in zip(polars_log, [3, 5, 6, 7, 9, 10], strict=True))


def test_precision_divides_truly_in_every_context() -> None:
    # 9 hits at 1000: 9 / 1000 is 0.009; 9 * (1 / 1000) is 0.009000000000000001.
    frame = pl.DataFrame(
        {
            "query": ["a"] * 9 + ["b"],
            "score": [float(s) for s in range(10)],
            "relevance": [1] * 9 + [0],
        }
    )
    grouped = frame.group_by("query").agg(
        rm.precision_at_k("relevance", 1000, by="score").alias("p"),
        rm.metrics("relevance", ["P@1000", "unj_1000"], by="score").alias("m"),
    )
    row = grouped.sort("query").row(0, named=True)
    assert row["p"] == row["m"]["P@1000"] == 9 / 1000
    lazy = frame.lazy().group_by("query").agg(rm.metrics("relevance", ["P@1000"], by="score"))
    assert lazy.collect().sort("query").unnest("relevance").item(0, "P@1000") == 9 / 1000


def half_way_case(name: str) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    data = json.loads((Path(__file__).parent / "data" / "trec_eval_cases.json").read_text())
    case = next(c for c in data["cases"] if c["name"] == name)

    def frame(key: str, columns: list[str]) -> pl.DataFrame:
        rows = [line.split() for line in data["inputs"][case["files"][key]].splitlines()]
        return pl.DataFrame(rows, schema=columns, orient="row")

    qrels = frame("qrels", ["query", "iteration", "doc", "relevance"])
    run = frame("run", ["query", "q0", "doc", "rank", "score", "run_id"])
    qrels = qrels.with_columns(pl.col("relevance").cast(pl.Int64))
    run = run.with_columns(pl.col("score").cast(pl.Float64))
    return qrels, run, case["stdout"].splitlines()


@pytest.mark.parametrize(
    ("case", "measure", "query", "double"),
    [
        # trec_eval's own doubles (%.17g), where another order or operation gives
        # another (at -M50: both cases are recorded with it, or need no cut).
        ("half_bpref_pq_83_800", "bpref", "119", 0.10374999999999998),
        ("half_P1000_hits_times_reciprocal", "P_1000", "all", 0.0022499999999999998),
    ],
)
def test_half_way_doubles_are_trec_evals(
    case: str, measure: str, query: str, double: float
) -> None:
    qrels, run, _ = half_way_case(case)
    result = rm.evaluate(qrels, run, [measure], max_per_query=50)
    if query == "all":
        assert result.aggregate.item() == double
    else:
        assert result.per_query.filter(pl.col("query") == query).item(0, measure) == double


@pytest.mark.parametrize(
    "case",
    [
        "half_map_pq_1",
        "half_map_all_1",
        "half_bpref_all_1",
        "half_P_10_all_2",
        "half_recall_5_all_1",
        "half_Rprec_all_1",
        "half_recip_rank_all_1",
        "half_infAP_all_1",
        "half_binG_all_1",
        "half_11pt_avg_all_2",
        "half_iprec_at_recall_0.50_all_1",
        "half_relative_P_5_all_1",
        "half_set_F_all_1",
        "half_set_map_all_1",
        "half_map_cut_5_all_1",
        "half_rbp_all_1",
        "half_rbp_resid_all_1",
        "half_yaap_all_1",
        "half_exact32_ndcg",
        "half_exact32_ndcg_cut",
        "half_exact32_ndcg_rel",
        "half_exact32_Rndcg",
        "half_exact32_G",
        "half_exact32_utility",
        "half_exact32_success",
    ],
)
def test_half_way_values_print_as_trec_eval_prints_them(case: str) -> None:
    """One case per measure family whose printed value lands on x.xxxx5 (evaluate())."""
    qrels, run, lines = half_way_case(case)
    printed = [line.split("\t") for line in lines]
    names = sorted({name.strip() for name, _, _ in printed})
    trec_names = [n.replace("_", ".", 1) if n.startswith(("P_", "recall_")) else n for n in names]
    result = rm.evaluate(qrels, run, trec_names)
    per_query = {row[0]: row for row in result.per_query.iter_rows()}
    for name, query, value in printed:
        column = result.per_query.columns.index(name.strip())
        got = result.aggregate.item(0, name.strip()) if query == "all" else per_query[query][column]
        assert f"{got:6.4f}" == value, (name, query)


def test_a_value_does_not_depend_on_the_other_measures_requested() -> None:
    rng = random.Random(3)
    rows = [
        (
            f"q{q}",
            f"d{d}",
            rng.choice([None, 1.0, 2.0, 3.0]) if rng.random() < 0.9 else None,
            rng.choice([-1, 0, 0, 1, 2, 3]),
        )
        for q in range(20)
        for d in range(rng.randint(1, 60))
    ]
    frame = pl.DataFrame(rows, schema=["query", "doc", "score", "relevance"], orient="row")
    everything = [m for m in NICKNAMES["all_trec"] if m != "runid"] + ["yaap", "ideal_dcg"]
    together = (
        frame.group_by("query")
        .agg(rm.metrics("relevance", everything, by=["score", "doc"]))
        .sort("query")
        .unnest("relevance")
    )
    for name in everything:
        alone = (
            frame.group_by("query")
            .agg(rm.metrics("relevance", [name], by=["score", "doc"]))
            .sort("query")
            .unnest("relevance")
        )
        for column in alone.columns[1:]:
            assert alone.get_column(column).to_list() == together.get_column(column).to_list(), (
                column
            )
