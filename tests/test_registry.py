"""The registry: every measure once, each spelling resolved to it, each name its owner's thing.

- Completeness: every public metric function and every registry measure has a
  row in tests/metric_table.py, with an independent oracle.
- Spellings of one measure (trec_eval's ``P_10``, ir_measures' ``P@10``, ranx's)
  resolve to the identical registry entry and parameters.
- A name is summarised and computed as the tool that owns it does: counts sum
  over queries and ``Judged@k`` divides by the retrieved depth (ir_measures),
  ``hits@k`` counts as ranx does.
"""

from __future__ import annotations

import math
import re
import warnings

import ir_measures
import numpy as np
import polars as pl
import pytest
import ranx

import polars_rankmetrics as rm
from polars_rankmetrics.measures import Column, parse_measure, parse_measures
from polars_rankmetrics.measures.ir_names import IR_MEASURES, parse_ir_measures_name
from polars_rankmetrics.measures.ranx_names import RANX, parse_ranx_name
from polars_rankmetrics.measures.registry import BY_KEY
from polars_rankmetrics.measures.trec_names import FAMILIES, JUDGEMENT_GROUP_FAMILIES
from polars_rankmetrics.metrics import FUNCTIONS
from tests.metric_table import MEASURES, METRICS


def test_every_public_metric_function_is_in_the_table() -> None:
    assert {f.__name__ for f in FUNCTIONS} == {case.function.__name__ for case in METRICS}


def test_every_registry_measure_is_in_the_table_with_a_spelling() -> None:
    assert set(MEASURES) == set(BY_KEY)
    for key, (name, _) in MEASURES.items():
        assert parse_measure(name).measure is BY_KEY[key], name


def _other_spellings() -> list[tuple[str, str | None, Column]]:
    """Every ir_measures and ranx spelling, with its cutoff text and its column."""
    spelled = []
    for name, spelling in IR_MEASURES.items():
        cutoffs: list[str | None] = [] if spelling.cutoff is None else ["10"]
        if spelling.cutoff == "level":
            cutoffs = ["0.5"]
        if not spelling.cutoff_required:
            cutoffs.append(None)
        for cutoff in cutoffs:
            text = f"{name}@{cutoff}" if cutoff else name
            if spelling.rel_required:
                text = f"{name}(rel=1)"
            column = parse_ir_measures_name(text)
            assert column is not None, text
            spelled.append((text, cutoff, column))
    for name, metric in RANX.items():
        texts = [(f"{name}@10", "10")] if metric.at_k is not None else []
        texts += [(f"{name}.9" if name == "rbp" else name, None)]
        for text, cutoff in texts:
            column = parse_ranx_name(text)
            assert column is not None, text
            spelled.append((text, cutoff, column))
    return spelled


def spelling_pairs() -> list[tuple[str, str]]:
    """Every (trec_eval name, ir_measures or ranx name) pair that spells one measure."""
    pairs = []
    for other, cutoff, column in _other_spellings():
        for family in FAMILIES:
            if family.key != column.measure.key or family.name in JUDGEMENT_GROUP_FAMILIES:
                continue
            if family.kind == "long_cutoffs" and cutoff:
                pairs.append((f"{family.name}_{cutoff}", other))
            elif family.kind == "double_cutoffs" and cutoff:
                pairs.append((f"{family.name}_{float(cutoff):3.2f}", other))
            elif family.kind not in ("long_cutoffs", "double_cutoffs") and not cutoff:
                pairs.append((family.name, other))
    return pairs


PAIRS = spelling_pairs()

DELIBERATE = {
    ("iprec_at_recall_0.50", "IPrec@0.5"): "ir_measures computes trec_eval 9's rounding",
    ("ndcg", "ndcg"): "ranx gains only the relevant rows (the same at level 1)",
    ("ndcg", "ndcg_burges"): "exponential gains",
    ("ndcg_cut_10", "ndcg@10"): "ranx gains only the relevant rows (the same at level 1)",
    ("ndcg_cut_10", "ndcg_burges@10"): "exponential gains",
    ("bpref", "bpref"): "ranx counts negative labels as judged non-relevant",
    ("rbp", "RBP(rel=1)"): "binary gains, p = 0.8, 1000 ranks",
    ("rbp", "rbp.9"): "the label is the gain",
}
"""Pairs of one measure whose parameters differ on purpose: the tools compute them
differently (tests/test_peer_names.py checks each against its tool)."""


def test_spelling_pairs_cover_every_shared_measure() -> None:
    assert len(PAIRS) >= 30
    assert ("P_10", "P@10") in PAIRS and ("map_cut_10", "AP@10") in PAIRS
    assert ("num_ret", "NumRet") in PAIRS and ("set_P", "precision") in PAIRS
    assert ("recip_rank", "mrr") in PAIRS and ("P_10", "precision@10") in PAIRS
    assert set(DELIBERATE) <= set(PAIRS)


@pytest.mark.parametrize(("trec", "other"), PAIRS, ids=[f"{a}={b}" for a, b in PAIRS])
def test_spellings_resolve_to_the_identical_entry(trec: str, other: str) -> None:
    (left,) = parse_measures(trec)
    right = parse_ir_measures_name(other) or parse_ranx_name(other)
    assert right is not None
    assert left.measure is right.measure
    same = (left.params, left.threshold) == (right.params, right.threshold)
    assert same != ((trec, other) in DELIBERATE), (left.params, right.params)


# --------------------------------------------------- names mean the owner's thing


def collection(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Qrels and a run over the same queries, with distinct scores (peers order ties
    differently from each other), graded and negative labels and unjudged documents."""
    rng = np.random.default_rng(seed)
    qrels_rows, run_rows = [], []
    for q in range(15):
        docs = [f"d{i:03d}" for i in rng.choice(200, size=30, replace=False)]
        n_retrieved = int(rng.integers(1, 25))
        scores = rng.permutation(n_retrieved) + rng.random()
        run_rows += [(f"q{q}", doc, float(s)) for doc, s in zip(docs, scores, strict=False)]
        for doc in docs:
            if rng.random() < 0.5:
                qrels_rows.append((f"q{q}", doc, int(rng.choice([-1, 0, 0, 1, 2]))))
        qrels_rows.append((f"q{q}", f"x{q}", 1))  # judged relevant, never retrieved
    qrels = pl.DataFrame(qrels_rows, schema=["query", "doc", "relevance"], orient="row")
    run = pl.DataFrame(run_rows, schema=["query", "doc", "score"], orient="row")
    return qrels, run


def ir_measures_values(
    names: list[str], qrels: pl.DataFrame, run: pl.DataFrame
) -> tuple[dict[str, float], dict[tuple[str, str], float]]:
    measures = [ir_measures.parse_measure(name) for name in names]
    qrel_rows = [ir_measures.Qrel(*row) for row in qrels.iter_rows()]
    run_rows = [ir_measures.ScoredDoc(*row) for row in run.iter_rows()]
    aggregate = {
        str(m): v for m, v in ir_measures.calc_aggregate(measures, qrel_rows, run_rows).items()
    }
    per_query = {
        (metric.query_id, str(metric.measure)): metric.value
        for metric in ir_measures.iter_calc(measures, qrel_rows, run_rows)
    }
    return aggregate, per_query


@pytest.mark.parametrize("seed", [0, 1])
def test_counts_and_judged_follow_ir_measures(seed: int) -> None:
    qrels, run = collection(seed)
    names = ["NumRet", "NumRel", "NumRelRet", "NumQ", "Judged@5", "Judged@40"]
    ours = rm.evaluate(qrels, run, names)
    aggregate, per_query = ir_measures_values(names, qrels, run)
    spelled = {"NumRelRet": "NumRet(rel=1)"}  # ir_measures' canonical name for it
    for name in names:
        assert ours.aggregate.item(0, name) == pytest.approx(aggregate[spelled.get(name, name)])
    for row in ours.per_query.iter_rows(named=True):
        for name in ["NumRet", "NumRel", "NumRelRet", "Judged@5", "Judged@40"]:
            expected = per_query[(row["query"], spelled.get(name, name))]
            assert row[name] == pytest.approx(expected, abs=1e-12), (row["query"], name)


def test_judged_divides_by_the_retrieved_depth() -> None:
    # The example: D1, D3, D2, D4 retrieved, only D3 judged.
    qrels = pl.DataFrame({"query": ["q"], "doc": ["D3"], "relevance": [1]})
    run = pl.DataFrame({"query": ["q"] * 4, "doc": ["D1", "D3", "D2", "D4"], "score": [4, 3, 2, 1]})
    result = rm.evaluate(qrels, run, ["Judged@10", "Judged@1000", "unj_10"])
    assert result.per_query.row(0, named=True) == {
        "query": "q",
        "Judged@10": 0.25,
        "Judged@1000": 0.25,
        "unj_10": 0.3,
    }


@pytest.mark.parametrize("seed", [0, 1])
def test_hits_equals_ranx(seed: int) -> None:
    qrels, run = collection(seed)
    ours = rm.evaluate(qrels, run, ["hits@3", "hits@10"]).per_query
    qrel_dict: dict[str, dict[str, int]] = {}
    for query, doc, label in qrels.filter(pl.col("relevance") > 0).iter_rows():
        qrel_dict.setdefault(query, {})[doc] = label  # ranx reads only positive labels
    run_dict: dict[str, dict[str, float]] = {}
    for query, doc, score in run.iter_rows():
        run_dict.setdefault(query, {})[doc] = score
    ranx_run = ranx.Run(run_dict)
    with warnings.catch_warnings():  # numba's own type-safety chatter inside ranx
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(
            ranx.Qrels(qrel_dict), ranx_run, ["hits@3", "hits@10"], return_mean=False
        )
    for name in ["hits@3", "hits@10"]:
        expected = dict(zip(ranx_run.keys(), theirs[name], strict=True))
        for query, value in ours.select("query", name).iter_rows():
            assert value == expected[query], (query, name)


def test_trec_eval_file_measures_are_checked_byte_for_byte(trec_eval_dir: object) -> None:
    from pathlib import Path

    printed = {
        re.sub(r"_[0-9.]+$", "", line.split()[0])
        for line in (Path(str(trec_eval_dir)) / "out.test.aq").read_text().splitlines()
    }
    for key, (name, oracle) in MEASURES.items():
        if oracle == "trec_eval files":
            assert parse_measures(name)[0].family in printed, (key, name)


def test_trec_eval_case_measures_are_in_the_recorded_cases() -> None:
    from tests.test_trec_eval_cases import CASES

    requested = {arg for case in CASES for arg in case["args"]}
    for key, (name, oracle) in MEASURES.items():
        if oracle == "trec_eval cases":
            assert name in requested, (key, name)


def test_pytrec_eval_measures_are_compared_with_it() -> None:
    from tests.test_trec_pytrec import SHARED_MEASURES

    compared = {column.measure.key for name in SHARED_MEASURES for column in parse_measures(name)}
    for key, (_, oracle) in MEASURES.items():
        if oracle == "pytrec_eval":
            assert key in compared, key


def test_list_measures_names_every_measure_and_its_spellings() -> None:
    table = rm.list_measures()
    assert set(table.get_column("measure")) == set(BY_KEY)
    row = table.filter(pl.col("measure") == "AP").row(0, named=True)
    assert (row["trec_eval"], row["ir_measures"], row["summary"]) == (
        "map, map_cut",
        "AP, MAP",
        "mean",
    )
    assert table.filter(pl.col("measure") == "hits").item(0, "ranx") == "hits"


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("nDGC@10", "'nDCG'"),
        ("Ndcg@10", "'ndcg'"),
        ("mapp", "'map'"),
        ("Map", "'map'"),
        ("Bpreff", "'Bpref'"),
        ("ndcg_burgess@10", "'ndcg_burges'"),
    ],
)
def test_unknown_names_suggest_the_closest(name: str, hint: str) -> None:
    with pytest.raises(
        ValueError, match=f"unknown measure '{re.escape(name)}'; did you mean .*{hint}"
    ):
        parse_measures(name)


@pytest.mark.parametrize("name", ["P_10.5", "P_５", "P_٥", "P@５", "P@10.5", "IPrec@٠.٥"])
def test_malformed_cutoffs_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="measure"):
        parse_measures(name)


def test_cutoffs_read_like_trec_eval() -> None:
    # trec_eval reads P.1.5 and P.10abc with atol: P@1 and P@10.
    assert [c.name for c in parse_measures("P.1.5")] == ["P_1"]
    assert [c.name for c in parse_measures("P.10abc")] == ["P_10"]
    assert math.isclose(dict(parse_measure("IPrec@.5").params)["level"], 0.5)
