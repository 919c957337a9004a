"""The intent-aware diversity measures against ndeval (pyndeval) and their published definitions.

Per query, on random TREC diversity qrels (graded subtopic judgements, some
documents judged for no subtopic, queries whose judgements are all
non-relevant) and runs with tied scores, unjudged documents and judged
documents that were not retrieved:

- every ndeval measure at every cutoff pyndeval takes (1 to 20), with several
  (alpha, beta, relevance level) settings, through the functions;
- the same names through ``evaluate()`` (files and frames) and the CLI, and the
  ir_measures spellings against ir_measures' pyndeval provider;
- beyond ndeval (cutoffs above 20, intent probabilities, the exact ideal)
  against the slow reference of the published definitions.

pyndeval ranks by score, then document id ascending; its greedy ideal breaks
ties by document id descending (the ``docs`` column gives it the ids).
"""

from __future__ import annotations

import math
import random
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.measures import parse_measure
from tests import reference_families as fam
from tests.metric_table import MEASURES

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import ir_measures
    import pyndeval


def diversity_collection(seed: int, *, distinct: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """TREC diversity qrels (query, subtopic, doc, relevance) and a run (query, doc, score)."""
    rng = random.Random(seed)
    qrels, run = [], []
    for query in range(1, 26):
        docs = [f"d{i:03d}" for i in rng.sample(range(400), rng.randint(2, 30))]
        n_subtopics = rng.randint(1, 5)
        for doc in docs[: max(1, len(docs) * 2 // 3)]:
            judged = False
            for subtopic in range(1, n_subtopics + 1):
                if rng.random() < 0.35:
                    grade = 0 if query % 8 == 0 else rng.choice([0, 1, 1, 2])
                    qrels.append((str(query), str(subtopic), doc, grade))
                    judged = True
            if not judged:
                qrels.append((str(query), "1", doc, 0))
        for i, doc in enumerate(docs[rng.randint(0, 3) :]):
            score = len(docs) - i + rng.random() if distinct else rng.choice([1.0, 2.0, 2.0, 3.0])
            run.append((str(query), doc, score))
        run.append((str(query), f"unjudged{query}", 2.5))
    return (
        pl.DataFrame(qrels, schema=["query", "subtopic", "doc", "relevance"], orient="row"),
        pl.DataFrame(run, schema=["query", "doc", "score"], orient="row"),
    )


def joined(qrels: pl.DataFrame, run: pl.DataFrame, relevance_level: int = 1) -> pl.DataFrame:
    lists = rm.subtopic_lists(qrels, relevance_level=relevance_level)
    return run.join(lists.drop("relevance"), on=["query", "doc"], how="full", coalesce=True)


def ndeval(
    qrels: pl.DataFrame, run: pl.DataFrame, names: list[str], **options: Any
) -> dict[str, dict[str, float]]:
    evaluator = pyndeval.RelevanceEvaluator(
        [pyndeval.SubtopicQrel(*row) for row in qrels.iter_rows()], names, **options
    )
    return evaluator.evaluate(list(run.sort("query").iter_rows()))  # grouped by query


FUNCTIONS = {
    "alpha-nDCG": rm.alpha_ndcg_at_k,
    "alpha-DCG": rm.alpha_dcg_at_k,
    "ERR-IA": rm.err_ia_at_k,
    "nERR-IA": rm.nerr_ia_at_k,
    "P-IA": rm.precision_ia_at_k,
    "strec": rm.subtopic_recall_at_k,
}
IDEAL = {"alpha-nDCG", "nERR-IA"}
ALPHA = {"alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA"}


def expressions(alpha: float, beta: float) -> dict[str, pl.Expr]:
    common = {"by": ["score", "doc"], "descending": [True, False], "no_relevant": "zero"}
    exprs = {}
    for name, function in FUNCTIONS.items():
        # ndeval leaves alpha-DCG@1 and ERR-IA@1 unnormalised: the names reproduce that.
        for k in range(2 if name in ("alpha-DCG", "ERR-IA") else 1, 21):
            options: dict[str, Any] = dict(common)
            if name in ALPHA:
                options["alpha"] = alpha
            if name in IDEAL:
                options["docs"] = "doc"
            exprs[f"{name}@{k}"] = function("subtopics", k, **options)
    exprs["NRBP"] = rm.nrbp("subtopics", alpha=alpha, beta=beta, **common)  # type: ignore[arg-type]
    exprs["nNRBP"] = rm.nnrbp("subtopics", alpha=alpha, beta=beta, docs="doc", **common)  # type: ignore[arg-type]
    exprs["MAP-IA"] = rm.ap_ia("subtopics", **common)  # type: ignore[arg-type]
    return exprs


def assert_same(ours: float | None, theirs: float, where: object) -> None:
    expected = 0.0 if math.isnan(theirs) else theirs  # nNRBP is 0/0 without a subtopic
    assert ours == pytest.approx(expected, rel=1e-12, abs=1e-15), where


@pytest.mark.parametrize(
    ("seed", "alpha", "beta", "level"), [(0, 0.5, 0.5, 1), (1, 0.25, 0.8, 1), (2, 0.5, 0.5, 2)]
)
def test_functions_equal_ndeval_at_every_cutoff(
    seed: int, alpha: float, beta: float, level: int
) -> None:
    qrels, run = diversity_collection(seed)
    exprs = expressions(alpha, beta)
    frame = joined(qrels, run, level)
    ours = frame.group_by("query").agg(**exprs)
    theirs = ndeval(qrels, run, list(exprs), relevance_level=level, alpha=alpha, beta=beta)
    assert ours.height == len(theirs) == 25
    for row in ours.iter_rows(named=True):
        for name in exprs:
            assert_same(row[name], theirs[row["query"]][name], (row["query"], name))


def test_names_equal_ndeval_in_evaluate_files_and_cli(tmp_path: Path) -> None:
    qrels, run = diversity_collection(3)  # ties: evaluate() breaks them as pyndeval does
    names = ["alpha-nDCG@20", "alpha-DCG@1", "ERR-IA@1", "nERR-IA@10", "NRBP", "nNRBP"]
    names += ["MAP-IA", "P-IA@5", "strec@10"]
    theirs = ndeval(qrels, run, names)
    (tmp_path / "qrels").write_text("".join(f"{q} {s} {d} {r}\n" for q, s, d, r in qrels.rows()))
    (tmp_path / "run").write_text(
        "".join(f"{q} Q0 {d} 1 {s!r} run\n" for q, d, s in run.sort("query").rows())
    )
    for source in [(qrels, run), (tmp_path / "qrels", tmp_path / "run")]:
        result = rm.evaluate(*source, names)
        assert result.n_queries == 25
        for row in result.per_query.iter_rows(named=True):
            for name in names:
                assert_same(row[name], theirs[row["query"]][name], (row["query"], name))
    printed = subprocess.run(
        [sys.executable, "-m", "polars_rankmetrics.cli", "trec-eval", "-m", "alpha-nDCG@20"]
        + [str(tmp_path / name) for name in ("qrels", "run")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    mean = sum(values["alpha-nDCG@20"] for values in theirs.values()) / len(theirs)
    assert printed == f"{'alpha-nDCG@20':<22}\tall\t{mean:6.4f}\n"


def test_ir_measures_names_equal_its_pyndeval_provider() -> None:
    qrels, run = diversity_collection(4)
    spelled = {
        "alpha_nDCG@20": ir_measures.alpha_nDCG @ 20,
        "alpha_DCG@5": ir_measures.alpha_DCG @ 5,
        "ERR_IA@10": ir_measures.ERR_IA @ 10,
        "nERR_IA@20": ir_measures.nERR_IA @ 20,
        "NRBP": ir_measures.NRBP,
        "nNRBP": ir_measures.nNRBP,
        "AP_IA": ir_measures.AP_IA,
        "P_IA@10": ir_measures.P_IA @ 10,
        "StRecall@10": ir_measures.StRecall @ 10,
    }
    ours = rm.evaluate(qrels, run, list(spelled)).per_query
    # One call per measure: the provider loses results when a call needs two ndeval runs.
    for name, measure in spelled.items():
        theirs = {
            m.query_id: m.value
            for m in ir_measures.iter_calc(
                [measure],
                [ir_measures.Qrel(q, d, r, s) for q, s, d, r in qrels.iter_rows()],
                [ir_measures.ScoredDoc(*row) for row in run.iter_rows()],
            )
        }
        for query, value in ours.select("query", name).iter_rows():
            assert_same(value, theirs[query], (query, name))


# pyndeval's own test qrels and run (topic subtopic docno relevance); grades 1 and 2.
PYNDEVAL_QRELS = pl.DataFrame(
    [
        ("0", "0", "D0", 0), ("0", "0", "D1", 1), ("0", "0", "D2", 1), ("0", "1", "D2", 1),
        ("0", "1", "D3", 2), ("0", "0", "D4", 0), ("1", "0", "D0", 1), ("1", "0", "D3", 2),
        ("1", "1", "D5", 2),
    ],
    schema=["query", "subtopic", "doc", "relevance"],
    orient="row",
)  # fmt: skip
PYNDEVAL_RUN = pl.DataFrame(
    {"query": ["0", "0", "0", "1", "1"], "doc": ["D0", "D2", "D3", "D3", "D5"],
     "score": [3.0, 2.0, 1.0, 2.0, 1.0]}
)  # fmt: skip


@pytest.mark.parametrize(
    "name",
    ["ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall", "alpha_nDCG"],
)
def test_a_diversity_name_with_its_own_level_alone_equals_pyndeval(name: str) -> None:
    """Every name at a level of its own (none left at the default level) in ``evaluate``."""
    cut = "" if name in ("NRBP", "nNRBP", "AP_IA") else "@10"
    spelled = f"{name}(rel=2){cut}"
    measure = ir_measures.parse_measure(spelled)
    qrels = [ir_measures.Qrel(q, d, r, s) for q, s, d, r in PYNDEVAL_QRELS.iter_rows()]
    theirs = {
        m.query_id: m.value
        for m in ir_measures.iter_calc(
            [measure], qrels, [ir_measures.ScoredDoc(*row) for row in PYNDEVAL_RUN.iter_rows()]
        )
    }
    ours = rm.evaluate(PYNDEVAL_QRELS, PYNDEVAL_RUN, [spelled]).per_query
    assert ours.get_column("query").to_list() == ["0", "1"]
    for query, value in ours.select("query", spelled).iter_rows():
        assert_same(value, theirs[query], (query, spelled))
    if name == "ERR_IA":  # the values ir_measures' pyndeval provider prints
        assert ours.get_column(spelled).round(6).to_list() == [0.240478, 0.541075]
    # beside a name at the default level, and beside another level's
    both = rm.evaluate(PYNDEVAL_QRELS, PYNDEVAL_RUN, ["P@1", spelled, f"{name}(rel=1){cut}"])
    assert both.per_query.get_column(spelled).equals(ours.get_column(spelled))


def test_subtopic_qrels_are_checked() -> None:
    qrels, run = diversity_collection(5)
    with pytest.raises(ValueError, match="more than once for query"):
        rm.evaluate(pl.concat([qrels, qrels.head(1)]), run, ["alpha-nDCG@20"])
    with pytest.raises(ValueError, match="the qrels has no subtopic column"):
        rm.evaluate(qrels.drop("subtopic"), run, ["alpha-nDCG@20"])
    with pytest.raises(ValueError, match="alpha_nDCG@5 needs subtopic judgements"):
        run.select(rm.metrics(pl.lit(1), ["alpha_nDCG@5"], by="score"))


# ------------------------------------------------- beyond ndeval: the published definitions


def test_deep_cutoffs_weights_and_exact_ideal_equal_the_reference() -> None:
    qrels, run = diversity_collection(6)
    frame = joined(qrels, run)
    weights = {"1": 0.5, "2": 0.2, "3": 0.1, "4": 0.1, "5": 0.1}
    frame = frame.with_columns(
        pl.col("subtopics").list.eval(pl.element().replace_strict(weights)).alias("weights")
    )
    common: dict[str, Any] = {"by": ["score", "doc"], "descending": [True, False]}
    weighted = {**common, "intent_weights": "weights"}
    exprs = {
        "nDCG@30": rm.alpha_ndcg_at_k("subtopics", 30, docs="doc", **common),
        "ERR-IA@50": rm.err_ia_at_k("subtopics", 50, **common),
        "strec@40": rm.subtopic_recall_at_k("subtopics", 40, **common),
        "w nDCG@10": rm.alpha_ndcg_at_k("subtopics", 10, docs="doc", **weighted),
        "w NRBP": rm.nrbp("subtopics", **weighted),
        "w P-IA@7": rm.precision_ia_at_k("subtopics", 7, **weighted),
        "w MAP-IA": rm.ap_ia("subtopics", **weighted),
        "exact nDCG@4": rm.alpha_ndcg_at_k("subtopics", 4, ideal="exact", **common),
        "exact nERR-IA@3": rm.nerr_ia_at_k("subtopics", 3, ideal="exact", **common),
    }
    ours = {
        row.pop("query"): row for row in frame.group_by("query").agg(**exprs).iter_rows(named=True)
    }
    for query, values in ours.items():
        rows = [
            (s, None, d)
            for s, d in frame.filter(pl.col("query") == query).select("score", "doc").rows()
        ]
        judgements = [(s, d, r) for _, s, d, r in qrels.filter(pl.col("query") == query).rows()]
        ties = "doc_asc"
        expected = {
            "nDCG@30": fam.alpha_ndcg_at_k(rows, judgements, 30, ties=ties),
            "ERR-IA@50": fam.err_ia_at_k(rows, judgements, 50, ties=ties),
            "strec@40": fam.subtopic_recall_at_k(rows, judgements, 40, ties=ties),
            "w nDCG@10": fam.alpha_ndcg_at_k(rows, judgements, 10, weights=weights, ties=ties),
            "w NRBP": fam.nrbp(rows, judgements, weights=weights, ties=ties),
            "w P-IA@7": fam.p_ia_at_k(rows, judgements, 7, weights=weights, ties=ties),
            "w MAP-IA": fam.ap_ia(rows, judgements, weights=weights, ties=ties),
            "exact nDCG@4": fam.alpha_ndcg_at_k(rows, judgements, 4, ideal="exact", ties=ties),
            "exact nERR-IA@3": fam.nerr_ia_at_k(rows, judgements, 3, ideal="exact", ties=ties),
        }
        for name, value in expected.items():
            if value is None:
                assert values[name] is None, (query, name)
            else:
                assert values[name] == pytest.approx(value, rel=1e-12), (query, name)


def test_the_greedy_ideal_can_be_beaten_and_the_exact_one_cannot() -> None:
    # DEFINITIONS' example: d2 wins a three-way tie at rank 1 of ndeval's greedy list.
    frame = pl.DataFrame(
        {
            "doc": ["d0", "d1", "d2"],
            "score": [3.0, 2.0, 1.0],
            "subtopics": [["2", "4"], ["1", "3"], ["1", "4"]],
        }
    )
    greedy = frame.select(rm.alpha_ndcg_at_k("subtopics", 2, by="score", docs="doc")).item()
    exact = frame.select(rm.alpha_ndcg_at_k("subtopics", 2, by="score", ideal="exact")).item()
    qrels = [
        ("1", s, d, 1)
        for d, subs in zip(frame["doc"], frame["subtopics"], strict=True)
        for s in subs
    ]
    run = [("1", d, s) for d, s in zip(frame["doc"], frame["score"], strict=True)]
    theirs = pyndeval.RelevanceEvaluator(qrels, ["alpha-nDCG@2"]).evaluate(run)["1"]["alpha-nDCG@2"]
    assert greedy == pytest.approx(theirs) and greedy > 1.1
    assert exact == pytest.approx(1.0)


@pytest.mark.parametrize(
    "function", [rm.alpha_ndcg_at_k, rm.nerr_ia_at_k, lambda s, k, **kw: rm.nnrbp(s, **kw)]
)
def test_the_exact_ideal_bounds_a_ranking_as_good_as_it(function: Any) -> None:
    # Found by Hypothesis: two documents covering the same two subtopics, the ranking is
    # the ideal one, and the ranking's sum and the ideal's add the same terms in other
    # orders: alpha-nDCG@3 came out 1.0000000000000002 with ideal="exact" (or 1 ulp below).
    frame = pl.DataFrame({"score": [0.0, 0.0], "subtopics": [["1", "2"], ["1", "2"]]})
    for alpha in (0.25, 0.5, 0.1):
        exact = frame.select(function("subtopics", 3, by="score", alpha=alpha, ideal="exact"))
        assert exact.item() <= 1.0 and exact.item() == pytest.approx(1.0, rel=1e-15), alpha
        greedy = frame.select(function("subtopics", 3, by="score", alpha=alpha))
        assert greedy.item() == pytest.approx(1.0, rel=1e-15), alpha  # may be 1 ulp above


def test_every_pyndeval_measure_is_compared_here() -> None:
    keys = {key for key, (_, oracle) in MEASURES.items() if oracle == "pyndeval"}
    names = [f"{name}@5" for name in FUNCTIONS] + ["NRBP", "nNRBP", "MAP-IA"]
    assert keys == {parse_measure(name).measure.key for name in names}
