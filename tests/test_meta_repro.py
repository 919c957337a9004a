"""Every measure of repro_eval's RpdEvaluator and RplEvaluator, per topic and averaged."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from polars_rankmetrics.meta_evaluation.reproducibility import (
    REPRO_MEASURES,
    ktu,
    rbo_truncated,
    reproduce,
)

evaluator = pytest.importorskip("repro_eval.Evaluator")


def _write_qrels(path: Path, rng: np.random.Generator, topics: list[str], n_docs: int) -> None:
    lines = []
    for topic in topics:
        for doc in range(n_docs):
            if rng.random() < 0.6:
                lines.append(f"{topic} 0 doc{doc:03} {rng.integers(0, 3)}")
    path.write_text("\n".join(lines) + "\n")


def _write_run(
    path: Path, rng: np.random.Generator, topics: list[str], n_docs: int, depth: int, tag: str
) -> None:
    lines = []
    for topic in topics:
        docs = rng.choice(n_docs, size=depth, replace=False)
        # Rounded scores: ties, broken by document id descending by both tools.
        scores = np.round(rng.random(depth) * 8) / 8
        ranked = sorted(zip(docs, scores, strict=True), key=lambda x: (-x[1], -x[0]))
        for rank, (doc, score) in enumerate(ranked, start=1):
            lines.append(f"{topic} Q0 doc{doc:03} {rank} {score} {tag}")
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("repro")
    rng = np.random.default_rng(42)
    topics = [str(t) for t in range(301, 313)]
    paths = {name: folder / name for name in ("qrels", "qrels_rpl", "b", "a", "b_rep", "a_rep")}
    _write_qrels(paths["qrels"], rng, topics, 60)
    other_topics = [str(t) for t in range(401, 410)]
    _write_qrels(paths["qrels_rpl"], rng, other_topics, 60)
    for name in ("b", "a"):
        _write_run(paths[name], rng, topics, 60, 40, name)
    _write_run(paths["b_rep"], rng, topics, 60, 40, "b_rep")
    _write_run(paths["a_rep"], rng, topics, 60, 40, "a_rep")
    paths["b_rpl"] = folder / "b_rpl"
    paths["a_rpl"] = folder / "a_rpl"
    _write_run(paths["b_rpl"], rng, other_topics, 60, 40, "b_rpl")
    _write_run(paths["a_rpl"], rng, other_topics, 60, 40, "a_rpl")
    return paths


def _close(mine: dict[str, float], theirs: dict[str, float]) -> None:
    assert set(mine) == set(theirs)
    for key, value in theirs.items():
        if math.isnan(value):
            assert math.isnan(mine[key]), key
        else:
            assert mine[key] == pytest.approx(value, abs=1e-9, rel=0), key


def test_rpd_evaluator_parity(files: dict[str, Path]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oracle = evaluator.RpdEvaluator(
            qrels_orig_path=str(files["qrels"]),
            run_b_orig_path=str(files["b"]),
            run_a_orig_path=str(files["a"]),
            run_b_rep_path=str(files["b_rep"]),
            run_a_rep_path=str(files["a_rep"]),
        )
        oracle.trim()
        oracle.evaluate()
        expected = {
            "ktu": oracle.ktu(per_topic=True),
            "rbo": oracle.rbo(per_topic=True),
            "ktu_mean": oracle.ktu(),
            "rbo_mean": oracle.rbo(),
            "rmse": oracle.rmse(),
            "nrmse": oracle.nrmse(),
            "ttest": oracle.ttest(),
            "er": oracle.er(),
            "dri": oracle.dri(),
        }
    result = reproduce(
        files["qrels"],
        files["b"],
        files["b_rep"],
        original_advanced=files["a"],
        reproduced_advanced=files["a_rep"],
    )
    for run in ("baseline", "advanced"):
        topics = result.per_topic.filter(run=run)
        for column in ("ktu", "rbo"):
            _close(dict(zip(topics["query"], topics[column], strict=True)), expected[column][run])
        summary = result.summary.filter(run=run).row(0, named=True)
        assert summary["ktu"] == pytest.approx(expected["ktu_mean"][run], abs=1e-9)
        assert summary["rbo"] == pytest.approx(expected["rbo_mean"][run], abs=1e-9)
        measured = result.per_measure.filter(run=run)
        for column, key in (("rmse", "rmse"), ("nrmse", "nrmse"), ("p_value", "ttest")):
            _close(
                dict(zip(measured["measure"], measured[column], strict=True)), expected[key][run]
            )
    _close(dict(zip(result.effects["measure"], result.effects["er"], strict=True)), expected["er"])
    _close(
        dict(zip(result.effects["measure"], result.effects["delta_ri"], strict=True)),
        expected["dri"],
    )
    assert set(expected["rmse"]["baseline"]) == set(REPRO_MEASURES)


def test_rpl_evaluator_parity(files: dict[str, Path]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oracle = evaluator.RplEvaluator(
            qrels_orig_path=str(files["qrels"]),
            qrels_rpl_path=str(files["qrels_rpl"]),
            run_b_orig_path=str(files["b"]),
            run_a_orig_path=str(files["a"]),
            run_b_rep_path=str(files["b_rpl"]),
            run_a_rep_path=str(files["a_rpl"]),
        )
        oracle.trim()
        oracle.evaluate()
        expected = {"ttest": oracle.ttest(), "er": oracle.er(), "dri": oracle.dri()}
    result = reproduce(
        files["qrels"],
        files["b"],
        files["b_rpl"],
        original_advanced=files["a"],
        reproduced_advanced=files["a_rpl"],
        replication_qrels=files["qrels_rpl"],
    )
    assert result.per_topic.height == 0
    for run in ("baseline", "advanced"):
        measured = result.per_measure.filter(run=run)
        _close(
            dict(zip(measured["measure"], measured["p_value"], strict=True)), expected["ttest"][run]
        )
    _close(dict(zip(result.effects["measure"], result.effects["er"], strict=True)), expected["er"])
    _close(
        dict(zip(result.effects["measure"], result.effects["delta_ri"], strict=True)),
        expected["dri"],
    )


def test_identical_reproduction_gives_p_one_ktu_one_rbo_one(files: dict[str, Path]) -> None:
    result = reproduce(files["qrels"], files["b"], files["b"], measures=("AP", "P@10"))
    assert result.per_measure["p_value"].to_list() == [1.0, 1.0]
    assert result.per_measure["rmse"].to_list() == [0.0, 0.0]
    assert result.per_topic["ktu"].to_list() == pytest.approx([1.0] * 12)
    # Clarke's truncated RBO of a 40-document ranking with itself, to depth 1000.
    weights = [0.95**i for i in range(1000)]
    same = sum(w * min(i + 1, 40) / (i + 1) for i, w in enumerate(weights)) / sum(weights)
    assert result.per_topic["rbo"].to_list() == pytest.approx([same] * 12, abs=1e-12)


def test_unequal_lengths_compare_the_common_prefix() -> None:
    original = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    shorter = {"q": {"b": 2.0, "a": 1.0}}
    value = ktu(original, shorter)["ktu"].item()
    from scipy import stats

    union = sorted({"a", "b"})
    expected = stats.kendalltau([union.index("a"), union.index("b")], [1, 0]).statistic
    assert value == pytest.approx(expected)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ktu({"q": {"a": 1.0}}, {"r": {"a": 1.0}}), "topic\\(s\\) the original lacks"),
        (lambda: rbo_truncated({"q": {"a": 1.0}}, {"q": {"a": 1.0}}, p=1.0), "`p` must be"),
        (lambda: ktu({"q": {"a": 1.0}}, {"q": {"a": 1.0}}, depth=0), "`depth` must be"),
        (
            lambda: reproduce(
                {"q": {"a": 1}}, {"q": {"a": 1.0}}, {"q": {"a": 1.0}}, original_advanced={}
            ),
            "give both",
        ),
    ],
)
def test_bad_inputs(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_inversion_count_against_pairs() -> None:
    import itertools

    from polars_rankmetrics.meta_evaluation.reproducibility import _inversions

    rng = np.random.default_rng(0)
    for _ in range(100):
        rows, width = int(rng.integers(1, 5)), int(rng.integers(1, 20))
        lengths = rng.integers(0, width + 1, rows)
        sequences = np.zeros((rows, width), dtype=np.int64)
        expected = []
        for row in range(rows):
            values = rng.permutation(np.arange(1, 3 * width + 1))[: lengths[row]]
            sequences[row, : lengths[row]] = values
            pairs = itertools.combinations(range(int(lengths[row])), 2)
            expected.append(sum(1 for i, j in pairs if values[i] > values[j]))
        assert _inversions(sequences, lengths.astype(np.int64)).tolist() == expected


def test_ktu_per_topic_against_scipy_with_uneven_topics() -> None:
    # Topics that sort as strings ("10" < "9"), one only in the original, lengths that differ.
    from scipy import stats

    rng = np.random.default_rng(3)
    original: dict[str, dict[str, float]] = {}
    reproduced: dict[str, dict[str, float]] = {}
    for topic in ("9", "10", "11", "only_original"):
        docs = [f"d{i}" for i in rng.permutation(30)]
        original[topic] = {doc: float(30 - i) for i, doc in enumerate(docs[: rng.integers(2, 25)])}
        if topic != "only_original":
            chosen = rng.permutation(docs)[: rng.integers(2, 25)]
            reproduced[topic] = {doc: float(30 - i) for i, doc in enumerate(chosen)}
    out = ktu(original, reproduced, depth=12)
    assert out["query"].to_list() == ["10", "11", "9"]
    for topic, value in zip(out["query"], out["ktu"], strict=True):
        first = sorted(original[topic], key=lambda d: -original[topic][d])
        second = sorted(reproduced[topic], key=lambda d: -reproduced[topic][d])
        n = min(len(first), len(second), 12)
        union = sorted(set(first[:n]) | set(second[:n]))
        codes = [union.index(d) for d in first[:n]], [union.index(d) for d in second[:n]]
        assert value == pytest.approx(stats.kendalltau(*codes).statistic, abs=1e-12), topic


def test_a_document_twice_is_refused_naming_it() -> None:
    twice = {"q": {"a": 1.0, "b": 2.0}}
    frame = pl.DataFrame(
        {"query": ["q", "q", "q"], "doc": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]}
    )
    with pytest.raises(
        ValueError, match="`reproduced` lists document 'a' more than once for query 'q'"
    ):
        ktu(twice, frame)


@pytest.mark.parametrize("bad_score", [0.7, None, float("nan")])
def test_scores_of_cut_runs_equal_evaluate_with_max_per_query(bad_score: float | None) -> None:
    # The cut run is evaluated as is where every score is a number; else evaluate() cuts it.
    import polars_rankmetrics as rm
    from polars_rankmetrics.meta_evaluation.reproducibility import _positions, _scores

    qrels = {"q1": {"a": 1, "c": 2, "d": 1}, "q2": {"x": 1, "y": 0}}
    run = pl.DataFrame(
        {
            "query": ["q1"] * 4 + ["q2"] * 3,
            "doc": ["a", "b", "c", "d", "x", "y", "z"],
            "score": [0.5, bad_score, 0.5, 0.1, 0.2, 0.3, 0.1],
        }
    )
    names = ("AP", "P@2", "nDCG", "R@1")
    expected = rm.evaluate(qrels, run, list(names), max_per_query=2).per_query.sort("query")
    mine = _scores(qrels, run, _positions(run, 2, "run"), names, 2)
    assert mine.to_dicts() == expected.to_dicts()
    result = reproduce(qrels, run, run, measures=names, trim=2)
    assert result.per_measure["rmse"].to_list() == [0.0] * 4
