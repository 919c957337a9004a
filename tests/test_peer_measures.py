"""ERR, C/W/L, Compat and the classifier-style measures against the peers that define them.

Per query, on random data with tied scores, graded and negative labels,
unjudged and unretrieved documents and queries without relevant documents:

- ERR@k against gdeval.pl (the copy in the ir_measures wheel, run by perl with
  its ``%.5f`` output widened to ``%.17g``, so the comparison is exact), and
  ``ERR@k`` by name against ir_measures (which rounds to 5 decimals);
- INST, INSQ, BPM, U and TBG (every output, and the residuals) against
  cwl_eval, and the ir_measures names against ir_measures;
- Compat against ir_measures;
- ROC AUC, GAUC and AP with one threshold per score against scikit-learn.

Each peer breaks ties its own way: gdeval and trec_eval by document id
descending, ir_measures' Compat (and pyndeval) ascending, cwl_eval by the
order it is given. The expressions get the same order through ``by``.
"""

from __future__ import annotations

import math
import pkgutil
import random
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rankmetrics as rm
from tests import reference_families as fam
from tests.metric_table import MEASURES

with warnings.catch_warnings():
    # cwl_eval's BibTeX strings hold invalid escapes; pip compiles them quietly,
    # but a fresh import without bytecode would warn (an error in this suite).
    warnings.simplefilter("ignore")
    import ir_measures
    from cwl.ruler.measures.cwl_bpm import BPMCWLMetric
    from cwl.ruler.measures.cwl_insq import INSQCWLMetric
    from cwl.ruler.measures.cwl_inst import INSTCWLMetric
    from cwl.ruler.measures.cwl_tbg import TBGCWLMetric
    from cwl.ruler.measures.cwl_umeasure import UMeasureCWLMetric
    from cwl.ruler.ranking import RankingMaker
    from cwl.seeker.trec_qrel_handler import TrecQrelHandler
    from sklearn.metrics import average_precision_score, roc_auc_score


def collection(seed: int, *, distinct: bool = False, max_label: int = 4) -> pl.DataFrame:
    """Rows (query, doc, score, relevance) of a run fully joined with its qrels.

    Query ids are natural numbers (gdeval's rule); scores are positive and,
    unless ``distinct``, drawn from few values (ties); labels run from -1 to
    ``max_label`` or are null (unjudged); some judged documents are not
    retrieved (null score); some queries have no relevant document.
    """
    rng = random.Random(seed)
    rows = []
    for query in range(1, 31):
        n = rng.randint(1, 25)
        no_relevant = query % 7 == 0
        for i, doc in enumerate(rng.sample(range(1000), n)):
            if distinct:
                score: float | None = n - i + rng.random() * 0.5
            else:
                score = rng.choice([0.25, 0.5, 0.5, 0.75, 1.0, 2.0])
            if rng.random() < 0.15:
                score = None
            label = rng.choice([None, -1, 0, 0, *range(1, max_label + 1)])
            if no_relevant and label is not None:
                label = min(label, 0)
            if score is None and label is None:
                label = 0
            rows.append((str(query), f"d{doc:04d}", score, label))
    return pl.DataFrame(
        rows,
        schema={"query": pl.String, "doc": pl.String, "score": pl.Float64, "relevance": pl.Int64},
        orient="row",
    )


def run_and_qrels(frame: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    run = frame.filter(pl.col("score").is_not_null()).select("query", "doc", "score")
    qrels = frame.filter(pl.col("relevance").is_not_null()).select("query", "doc", "relevance")
    return run, qrels.sort("query", "doc")


def per_query(frame: pl.DataFrame, **exprs: pl.Expr) -> dict[str, dict[str, object]]:
    result = frame.group_by("query").agg(**exprs)
    return {row.pop("query"): row for row in result.iter_rows(named=True)}


def rows_of(frame: pl.DataFrame, query: str) -> list[tuple[float | None, int | None, str]]:
    group = frame.filter(pl.col("query") == query)
    return list(group.select("score", "relevance", "doc").iter_rows())


# ----------------------------------------------------------------- ERR (gdeval)


def gdeval(tmp_path: Path, frame: pl.DataFrame, k: int) -> dict[str, float]:
    """gdeval.pl's ERR@k per query, printed with 17 significant digits."""
    perl = shutil.which("perl")
    assert perl is not None, "gdeval.pl, the oracle for ERR, needs perl on PATH"
    source = pkgutil.get_data("ir_measures", "bin/gdeval.pl")
    assert source is not None
    script = source.decode().replace("%.5f,%.5f", "%.17g,%.17g")
    assert "%.17g" in script
    (tmp_path / "gdeval.pl").write_text(script)
    run, qrels = run_and_qrels(frame)
    with (tmp_path / "qrels").open("w") as out:
        out.writelines(f"{q} 0 {d} {r}\n" for q, d, r in qrels.iter_rows())
    with (tmp_path / "run").open("w") as out:
        out.writelines(f"{q} Q0 {d} 1 {s!r} run\n" for q, d, s in run.iter_rows())
    printed = subprocess.run(
        [perl, str(tmp_path / "gdeval.pl"), str(tmp_path / "qrels"), str(tmp_path / "run"), str(k)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    values = {}
    for line in printed.splitlines()[1:]:
        _, query, _, err = line.split(",")
        if query != "amean":
            values[query] = float(err)
    return values


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [1, 5, 20, 1000])
def test_err_equals_gdeval(tmp_path: Path, seed: int, k: int) -> None:
    frame = collection(seed)
    expected = gdeval(tmp_path, frame, k)
    # gdeval ranks by score, then document id descending.
    ours = per_query(frame, err=rm.err_at_k("relevance", k, by=["score", "doc"]))
    assert len(expected) >= 15
    for query, values in ours.items():
        if query in expected:
            assert values["err"] == pytest.approx(expected[query], rel=1e-15, abs=1e-17), query
        else:  # gdeval prints nothing for a query without a relevant document: ERR is 0
            assert values["err"] == 0.0, query


def test_err_name_equals_ir_measures() -> None:
    frame = collection(2)  # ties: evaluate() breaks them as gdeval does
    run, qrels = run_and_qrels(frame)
    ours = rm.evaluate(qrels, run, ["ERR@5", "ERR@20"]).per_query
    measures = [ir_measures.ERR @ 5, ir_measures.ERR @ 20]
    theirs = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc(
            measures,
            [ir_measures.Qrel(*row) for row in qrels.iter_rows()],
            [ir_measures.ScoredDoc(*row) for row in run.iter_rows()],
        )
    }
    for row in ours.iter_rows(named=True):
        for name in ("ERR@5", "ERR@20"):
            assert row[name] == pytest.approx(theirs[(row["query"], name)], abs=5e-6)


# ----------------------------------------------------------------- C/W/L (cwl_eval)

CWL_MODELS = {
    "INST": (lambda: INSTCWLMetric(2.0), rm.inst, {"target": 2.0}),
    "INSQ": (lambda: INSQCWLMetric(1.5), rm.insq, {"target": 1.5}),
    "BPM": (lambda: BPMCWLMetric(2.0, 7), rm.bpm, {"target": 2.0, "budget": 7}),
    "U": (lambda: UMeasureCWLMetric(12), rm.u_measure, {"length": 12}),
    "TBG": (lambda: TBGCWLMetric(5), rm.tbg, {"half_life": 5}),
}
OUTPUTS = {
    "EU": "expected_utility",
    "ETU": "expected_total_utility",
    "EC": "expected_cost",
    "ETC": "expected_total_cost",
    "ED": "expected_items",
}


def cwl_eval(rows: list[tuple[float | None, int | None, str]], model: str) -> dict[str, float]:
    """cwl_eval's outputs and residuals for one query, ranked by score then document id."""
    gains = TrecQrelHandler()
    for _, label, doc in rows:
        if label is not None:
            gains.put_value("q", doc, min(max(label, 0), 3) / 3)
    maker = RankingMaker("q", gains, None)
    ranked = sorted((r for r in rows if r[0] is not None), key=lambda r: (-r[0], r[2]))  # type: ignore[operator]
    for _, _, doc in ranked:
        maker.add(doc, "doc")
    metric = CWL_MODELS[model][0]()
    metric.residuals = True
    metric.measure(maker.get_ranking())
    values = {output: float(getattr(metric, field)) for output, field in OUTPUTS.items()}
    for output, field in OUTPUTS.items():
        values[f"Res{output}"] = float(getattr(metric, f"residual_{field}"))
    return values


@pytest.mark.parametrize("model", list(CWL_MODELS))
def test_user_models_equal_cwl_eval(model: str) -> None:
    frame = collection(3, max_label=3)
    _, function, params = CWL_MODELS[model]
    exprs = {
        f"{'Res' if residual else ''}{output}": function(
            "relevance",
            max_rel=3,
            output=output,
            residual=residual,
            by=["score", "doc"],
            descending=[True, False],
            **params,
        )
        for output in OUTPUTS
        for residual in (False, True)
    }
    ours = per_query(frame, **exprs)
    for query, values in ours.items():
        expected = cwl_eval(rows_of(frame, query), model)
        for name, value in values.items():
            assert value == pytest.approx(expected[name], rel=1e-9, abs=1e-12), (query, name)


def test_user_model_names_equal_ir_measures() -> None:
    frame = collection(4, max_label=2)  # ties: evaluate() keeps the run's order, as ir_measures
    run, qrels = run_and_qrels(frame)
    names = {
        "INST(T=3.0,max_rel=2)": ir_measures.INST(T=3.0, max_rel=2),
        "INSQ(T=1.0,max_rel=2)": ir_measures.INSQ(T=1.0, max_rel=2),
        "BPM(T=1.0,max_rel=2)@10": ir_measures.BPM(T=1.0, max_rel=2) @ 10,
    }
    ours = rm.evaluate(qrels, run, list(names)).per_query
    for name, measure in names.items():
        theirs = {
            m.query_id: m.value
            for m in ir_measures.iter_calc(
                [measure],
                [ir_measures.Qrel(*row) for row in qrels.iter_rows()],
                [ir_measures.ScoredDoc(*row) for row in run.iter_rows()],
            )
        }
        for query, value in ours.select("query", name).iter_rows():
            assert value == pytest.approx(theirs[query], rel=1e-9, abs=1e-12), (query, name)


def test_cwl_names_spell_cwl_eval() -> None:
    frame = collection(5, max_label=1)
    names = ["INST-T=1.0", "INSQ-T=2.0", "BPM-Static-T=1.0-K=10", "U-L@50", "TBG-H@224"]
    ours = per_query(frame, m=rm.metrics("relevance", names, by=["score", "doc"]))
    for query, row in ours.items():
        rows = [(s, None if r is None else max(r, 0), d) for s, r, d in rows_of(frame, query)]
        expected = {
            "INST-T=1.0": fam.cwl(rows, "INST", ties="doc_desc", T=1.0),
            "INSQ-T=2.0": fam.cwl(rows, "INSQ", ties="doc_desc", T=2.0),
            "BPM-Static-T=1.0-K=10": fam.cwl(rows, "BPM", ties="doc_desc", T=1.0, K=10),
            "U-L@50": fam.cwl(rows, "U", ties="doc_desc", L=50),
            "TBG-H@224": fam.cwl(rows, "TBG", ties="doc_desc", H=224),
        }
        for name in names:
            assert row["m"][name] == pytest.approx(expected[name]["EU"], rel=1e-9), (query, name)


# ----------------------------------------------------------------- Compat (ir_measures)


@pytest.mark.parametrize(("p", "normalize"), [(0.95, True), (0.8, True), (0.5, False)])
def test_compat_equals_ir_measures(p: float, normalize: bool) -> None:
    frame = collection(6)
    run, qrels = run_and_qrels(frame)
    measure = ir_measures.Compat(p=p, normalize=normalize)
    theirs = {
        m.query_id: m.value
        for m in ir_measures.iter_calc(
            [measure],
            [ir_measures.Qrel(*row) for row in qrels.iter_rows()],
            [ir_measures.ScoredDoc(*row) for row in run.iter_rows()],
        )
    }
    # ir_measures ranks ties by document id ascending, and orders equal labels
    # of its ideal by run score, then qrels order (here document id).
    expr = rm.compatibility(
        "relevance", p=p, normalize=normalize, by=["score", "doc"], descending=[True, False]
    )
    ours = per_query(frame.sort("doc"), compat=expr)
    compared = set(run.get_column("query")) & set(theirs)  # ir_measures: queries of both
    assert len(compared) >= 20
    for query in compared:
        assert (ours[query]["compat"] or 0.0) == pytest.approx(theirs[query], rel=1e-12), query


def test_compat_name_equals_ir_measures() -> None:
    frame = collection(11)  # ties: evaluate() breaks them by document id ascending, as ir_measures
    run, qrels = run_and_qrels(frame)
    ours = rm.evaluate(qrels, run, ["Compat(p=0.95)"]).per_query
    theirs = {
        m.query_id: m.value
        for m in ir_measures.iter_calc(
            [ir_measures.Compat(p=0.95)],
            [ir_measures.Qrel(*row) for row in qrels.iter_rows()],
            [ir_measures.ScoredDoc(*row) for row in run.iter_rows()],
        )
    }
    for query, value in ours.iter_rows():
        assert value == pytest.approx(theirs[query], rel=1e-12), query


# ----------------------------------------------------------------- scikit-learn


def _sklearn(rows: list[tuple[float | None, int | None, str]]) -> tuple[float, float, int]:
    scored = [(s, int((r or 0) > 0)) for s, r, _ in rows if s is not None]
    y = np.array([t for _, t in scored])
    s = np.array([v for v, _ in scored])
    with warnings.catch_warnings():  # one-class queries: scikit-learn warns
        warnings.simplefilter("ignore")
        auc = float(roc_auc_score(y, s)) if len(set(y.tolist())) == 2 else math.nan
        ap = float(average_precision_score(y, s)) if y.sum() else math.nan
    return auc, ap, int(y.sum())


def test_auc_and_threshold_ap_equal_scikit_learn() -> None:
    frame = collection(7)
    ours = per_query(
        frame,
        auc=rm.roc_auc("relevance", by="score"),
        ap_retrieved=rm.threshold_average_precision(
            "relevance", by="score", denominator="retrieved"
        ),
        ap=rm.threshold_average_precision("relevance", by="score"),
    )
    checked = 0
    for query, values in ours.items():
        rows = rows_of(frame, query)
        auc, ap, hits = _sklearn(rows)
        relevant = sum((r or 0) > 0 for _, r, _ in rows)
        if math.isnan(auc):
            assert values["auc"] is None, query
        else:
            assert values["auc"] == pytest.approx(auc, rel=1e-12), query
            checked += 1
        if math.isnan(ap):
            assert values["ap_retrieved"] is None, query
        else:
            assert values["ap_retrieved"] == pytest.approx(ap, rel=1e-12), query
            assert values["ap"] == pytest.approx(ap * hits / relevant, rel=1e-12), query
    assert checked >= 15


def test_gauc_is_the_pair_weighted_mean_of_scikit_learn_aucs() -> None:
    frame = collection(8)
    weighted = pairs = 0.0
    for query in frame.get_column("query").unique():
        rows = rows_of(frame, query)
        auc, _, positives = _sklearn(rows)
        if not math.isnan(auc):
            weight = positives * (sum(s is not None for s, _, _ in rows) - positives)
            weighted += weight * auc
            pairs += weight
    ours = frame.select(rm.gauc("relevance", query="query", by="score")).item()
    assert ours == pytest.approx(weighted / pairs, rel=1e-12)


def test_scikit_learn_names_equal_scikit_learn() -> None:
    frame = collection(9, distinct=True)
    run, qrels = run_and_qrels(frame)
    ours = rm.evaluate(qrels, run, ["roc_auc", "average_precision"]).per_query
    for query, auc, ap in ours.iter_rows():
        expected_auc, expected_ap, _ = _sklearn(rows_of(frame, query))
        assert auc == pytest.approx(0.0 if math.isnan(expected_auc) else expected_auc), query
        assert ap == pytest.approx(0.0 if math.isnan(expected_ap) else expected_ap), query


# ----------------------------------------------------------------- names without a peer


def test_reference_names_equal_their_references() -> None:
    frame = collection(10, max_label=3)
    names = [
        "nERR@10",
        "retrieval_fall_out@5",
        "RetrievalRecallAtFixedPrecision(min_precision=0.5)",
    ]
    ours = per_query(frame, m=rm.metrics("relevance", names, by="score", no_relevant="zero"))
    for query, row in ours.items():
        rows = [(s, r) for s, r, _ in rows_of(frame, query)]
        recall = fam.recall_at_fixed_precision(rows, 0.5)
        expected = {
            names[0]: fam.nerr_at_k(rows, 10) or 0.0,
            names[1]: fam.fall_out_at_k(rows, 5) or 0.0,
            names[2]: 0.0 if recall is None else recall[0],
        }
        for name in names:
            assert row["m"][name] == pytest.approx(expected[name], rel=1e-12), (query, name)


ORACLE_TESTS = {
    "gdeval": {"ERR"},
    "cwl_eval": {"INST", "INSQ", "BPM", "U", "TBG"},
    "scikit-learn": {"roc_auc", "average_precision"},
}


def test_every_measure_of_these_oracles_is_compared_here() -> None:
    for oracle, keys in ORACLE_TESTS.items():
        assert {key for key, (_, o) in MEASURES.items() if o == oracle} == keys, oracle
    assert MEASURES["Compat"][1] == "ir_measures"
