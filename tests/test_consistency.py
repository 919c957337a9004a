"""One number everywhere (issue 26): regression tests, one per finding.

Each test compares with an independent value: trec_eval's or ir_measures' own
output, pytrec_eval, or a number worked out by hand in the test; never with
the library's own earlier output.
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.cli import main

# --- empty input ---------------------------------------------------------------


@pytest.mark.parametrize("function", [rm.err_at_k, rm.dcg_at_k])
def test_an_empty_frame_gives_positive_zero(function: object) -> None:
    # Nothing retrieved gains nothing: +0.0 (polars' sum of an empty list is -0.0).
    empty = pl.DataFrame(schema={"relevance": pl.Int64, "score": pl.Float64})
    value = empty.select(function("relevance", 10, by="score")).item()  # type: ignore[operator]
    assert value == 0.0
    assert math.copysign(1.0, value) == 1.0


# --- parameters ----------------------------------------------------------------


def test_rbp_persistence_outside_0_1_is_refused_in_the_ir_measures_dialect() -> None:
    with pytest.raises(ValueError, match=r"`p` must be a number in \(0, 1\)"):
        rm.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["RBP(rel=1,p=1.5)"])
    # trec_eval's rbp takes any persistence: (1 - p) * 1 for one relevant document at rank 1.
    value = rm.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["rbp.p=1.5"]).aggregate.item()
    assert value == (1 - 1.5) * 1.0


@pytest.mark.parametrize("measures", [None, 3, [], ["map", None], {"map": 1}])
def test_bad_measure_lists_name_the_argument(measures: object) -> None:
    qrels, run = {"1": {"a": 1}}, {"1": {"a": 1.0}}
    with pytest.raises(ValueError, match="`measures` must"):
        rm.evaluate(qrels, run, measures)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`measures` must"):
        rm.metrics("relevance", measures, by="score")  # type: ignore[arg-type]
    frame = pl.DataFrame({"query": ["1"], "relevance": [1], "score": [1.0]})
    with pytest.raises(ValueError, match="`measures` must"):
        rm.evaluate_parquet(frame, measures)  # type: ignore[arg-type]


# --- inputs --------------------------------------------------------------------


def test_dict_keys_mixing_int_and_str_are_read_as_strings() -> None:
    # Query 1 (int key) finds its relevant document first: AP 1; query '2'
    # ranks its relevant document 'b' second (doc 3, an int key, scores higher): AP 1/2.
    qrels = {1: {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}, 2: {"b": 1.0, 3: 2.0}}
    result = rm.evaluate(qrels, run, ["map"])
    assert result.aggregate.item() == pytest.approx((1.0 + 0.5) / 2)
    with pytest.raises(ValueError, match=r"str or int query keys, got 1\.5"):
        rm.evaluate({1.5: {"a": 1}, "2": {"b": 1}}, run, ["map"])


def test_string_labels_get_a_clear_error_naming_the_column() -> None:
    frame = pl.DataFrame({"query": ["1", "1"], "relevance": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match="relevance column 'relevance' must hold numeric") as info:
        rm.evaluate_parquet(frame, ["map"])
    assert "expression" not in str(info.value)
    qrels = pl.DataFrame({"query": ["1"], "doc": ["a"], "relevance": ["1"]})
    with pytest.raises(ValueError, match="relevance column 'relevance' must be numeric"):
        rm.evaluate(qrels, {"1": {"a": 1.0}}, ["map"])


def test_run_duplicates_in_a_topic_without_judgements_are_ignored_as_by_trec_eval(
    tmp_path: Path,
) -> None:
    # trec_eval 10 checks duplicates only for the topics it evaluates; topic 7 is
    # not in the qrels, so map is query 1's AP: 1.
    qrels = {"1": {"a": 1}}
    run = pl.DataFrame({"query": ["1", "7", "7"], "doc": ["a", "z", "z"], "score": [1.0, 1.0, 0.5]})
    assert rm.evaluate(qrels, run, ["map"]).aggregate.item() == 1.0
    doubled = pl.DataFrame({"query": ["1", "1"], "doc": ["a", "a"], "score": [1.0, 0.5]})
    with pytest.raises(ValueError, match="trec_eval rejects it too"):
        rm.evaluate(qrels, doubled, ["map"])


# --- the command line ----------------------------------------------------------


def _files(tmp_path: Path) -> tuple[str, str]:
    qrels = pl.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "relevance": [1, 0]})
    run = pl.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "score": [1.0, 2.0]})
    qrels.write_parquet(tmp_path / "q.parquet")
    run.write_parquet(tmp_path / "r.parquet")
    return str(tmp_path / "q.parquet"), str(tmp_path / "r.parquet")


def test_main_prints_to_a_text_only_stdout(tmp_path: Path) -> None:
    # The relevant document 'a' ranks second: AP 1/2 (trec_eval prints 0.5000).
    qrels, run = _files(tmp_path)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = main(["trec-eval", "-m", "map", qrels, run])
    assert status == 0
    assert buffer.getvalue() == "map                   \tall\t0.5000\n"


def test_parquet_output_to_a_text_only_stdout_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = _files(tmp_path)
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["trec-eval", "--format", "parquet", "-m", "map", qrels, run])
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--output FILE" in err


def test_parquet_qrels_with_plain_columns_in_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = _files(tmp_path)
    assert main(["trec-eval", "-m", "map", qrels, run]) == 0
    assert capsys.readouterr().out == "map                   \tall\t0.5000\n"


def test_a_short_qrels_line_names_the_qrels_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "q.txt").write_text("1 0 a\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 1.0 x\n")
    assert main(["trec-eval", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]) == 2
    err = capsys.readouterr().err
    assert "4 fields (topic, iteration, document, relevance)" in err
    assert "judgement group" not in err


# --- Compat against ir_measures --------------------------------------------------


def _ir_measures(name: str, qrels: dict, run: dict) -> float:  # type: ignore[type-arg]
    import ir_measures

    measure = ir_measures.parse_measure(name)
    return float(ir_measures.calc_aggregate([measure], qrels, run)[measure])


@pytest.mark.parametrize(
    ("qrels", "run"),
    [
        # Relevant documents scoring below 0: ir_measures' ideal puts them after
        # the unretrieved relevant document (score 0).
        ({"q": {"a": 1, "b": 1, "c": 1, "d": 0}}, {"q": {"a": -1.0, "d": -0.5, "b": 2.0}}),
        # Equally relevant documents tying on score: the ideal takes them in qrels order.
        ({"q": {"b": 1, "a": 1, "ab": 0}}, {"q": {"a": 1.0, "b": 1.0, "ab": 1.0}}),
        ({"q": {"c": 2, "b": 1, "a": 1, "z": 1}}, {"q": {"a": 0.0, "b": 0.0, "c": -2.0, "y": 1.0}}),
    ],
)
@pytest.mark.parametrize("name", ["Compat(p=0.8)", "Compat(p=0.95,normalize=False)"])
def test_compat_equals_ir_measures_on_negative_and_tied_scores(
    qrels: dict,  # type: ignore[type-arg]
    run: dict,  # type: ignore[type-arg]
    name: str,
) -> None:
    expected = _ir_measures(name, qrels, run)
    assert rm.evaluate(qrels, run, [name]).aggregate.item() == pytest.approx(expected, abs=1e-15)


def test_compat_expression_takes_the_qrels_order() -> None:
    qrels = {"q": {"b": 1, "a": 1, "ab": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "ab": 1.0}}
    expected = _ir_measures("Compat(p=0.8)", qrels, run)
    frame = pl.DataFrame(
        {"doc": ["a", "ab", "b"], "score": [1.0, 1.0, 1.0], "relevance": [1, 0, 1]}
    ).with_columns(qrels_row=pl.col("doc").replace_strict({"b": 0, "a": 1, "ab": 2}))
    value = frame.select(
        rm.compatibility(
            "relevance",
            p=0.8,
            by=["score", "doc"],
            descending=[True, False],
            judgement_order="qrels_row",
        )
    ).item()
    assert value == pytest.approx(expected, abs=1e-15)


# --- diversity inputs ------------------------------------------------------------


def _diversity_frame() -> tuple[pl.DataFrame, dict[str, float]]:
    """Query 'q' of TREC diversity qrels joined to a run, and ndeval's values for it."""
    from tests.test_diversity import diversity_collection, joined, ndeval

    qrels, run = diversity_collection(11, distinct=True)
    values = ndeval(qrels, run, ["alpha-nDCG@10", "ERR-IA@10", "P-IA@10", "strec@10"])
    # A query with subtopics that the run covers in part.
    query = next(q for q in sorted(values) if 0.0 < values[q]["strec@10"] < 1.0)
    frame = joined(qrels, run).filter(pl.col("query") == query).drop("query")
    return frame, values[query]


def _diversity_values(frame: pl.DataFrame, **options: object) -> dict[str, float | None]:
    common: dict[str, object] = {"by": ["score", "doc"], "descending": [True, False]}
    common.update(options)
    exprs = {
        "alpha-nDCG@10": rm.alpha_ndcg_at_k("subtopics", 10, docs="doc", **common),  # type: ignore[arg-type]
        "ERR-IA@10": rm.err_ia_at_k("subtopics", 10, **common),  # type: ignore[arg-type]
        "P-IA@10": rm.precision_ia_at_k("subtopics", 10, **common),  # type: ignore[arg-type]
        "strec@10": rm.subtopic_recall_at_k(
            "subtopics", 10, by=["score", "doc"], descending=[True, False]
        ),
    }
    return frame.select(**exprs).row(0, named=True)


def test_repeated_and_null_subtopics_in_a_row_count_once_and_not_at_all() -> None:
    frame, theirs = _diversity_frame()
    assert frame.get_column("subtopics").list.len().max() >= 1  # type: ignore[operator]
    # Each subtopic listed twice, and a null added to every judged row's list.
    doubled = frame.with_columns(
        pl.concat_list("subtopics", "subtopics", pl.lit([None], dtype=pl.List(pl.String)))
    )
    ours = _diversity_values(doubled)
    for name, value in theirs.items():
        assert ours[name] == pytest.approx(value, rel=1e-12), name
    assert ours["alpha-nDCG@10"] <= 1.0  # type: ignore[operator]


@pytest.mark.parametrize(
    "weights",
    [
        [[-1.0], [1.0], [-1.0, 1.0]],  # negative
        [[math.nan], [1.0], [1.0, 1.0]],
        [[math.inf], [1.0], [1.0, 1.0]],
        [[0.0], [0.0], [0.0, 0.0]],  # no distribution: total 0
        [[1.0, 2.0], [1.0], [1.0, 1.0]],  # not parallel to the subtopics
        [[None], [1.0], [1.0, 1.0]],  # a null weight
        [[2.0], [1.0], [1.0, 1.0]],  # subtopic '1' weighs 2 in one row, 1 in another
        [None, [1.0], [1.0, 1.0]],  # no weights on a judged row
    ],
)
def test_invalid_intent_weights_make_every_diversity_value_null(weights: list) -> None:  # type: ignore[type-arg]
    frame = pl.DataFrame(
        {"doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0], "subtopics": [["1"], ["2"], ["1", "2"]]}
    ).with_columns(weights=pl.Series(weights, dtype=pl.List(pl.Float64)))
    common = {"by": "score", "intent_weights": "weights", "no_relevant": "zero"}
    values = frame.select(
        rm.alpha_ndcg_at_k("subtopics", 3, **common).alias("a"),  # type: ignore[arg-type]
        rm.alpha_ndcg_at_k("subtopics", 3, ideal="exact", **common).alias("x"),  # type: ignore[arg-type]
        rm.err_ia_at_k("subtopics", 3, **common).alias("e"),  # type: ignore[arg-type]
        rm.nerr_ia_at_k("subtopics", 3, **common).alias("ne"),  # type: ignore[arg-type]
        rm.precision_ia_at_k("subtopics", 3, **common).alias("p"),  # type: ignore[arg-type]
        rm.nrbp("subtopics", **common).alias("n"),  # type: ignore[arg-type]
        rm.nnrbp("subtopics", **common).alias("nn"),  # type: ignore[arg-type]
        rm.ap_ia("subtopics", **common).alias("ap"),  # type: ignore[arg-type]
    ).row(0)
    assert values == (None,) * 8
    # S-recall reads no weights: 2 subtopics, both covered in the top 3.
    recall = frame.select(rm.subtopic_recall_at_k("subtopics", 3, by="score")).item()
    assert recall == 1.0


def test_equal_valid_weights_are_the_unweighted_values() -> None:
    # Weights 1 and 1 normalise to 1/2 each: ndeval's equally likely intents.
    frame, theirs = _diversity_frame()
    weighted = frame.with_columns(
        weights=pl.col("subtopics").list.eval(pl.lit(1.0).repeat_by(pl.len()).explode())
    )
    ours = _diversity_values(weighted, intent_weights="weights")
    for name, value in theirs.items():
        assert ours[name] == pytest.approx(value, rel=1e-12), name


# --- the query-set rule: one documented number per entry point ------------------

# The example. Qrels for queries 1-5: query 4 is not retrieved, query 5
# has no relevant document; the run has queries 1, 2, 3, 5 and 6 (6 unjudged).
EXAMPLE_QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 1\n3 0 d5 2\n4 0 d6 1\n5 0 d7 0\n"
EXAMPLE_RUN = "".join(
    f"{q} Q0 {d} {r} {s} {tag}\n"
    for q, d, r, s in [
        ("1", "d2", 1, 2.0),
        ("1", "d1", 2, 1.0),
        ("2", "d3", 1, 1.0),
        ("2", "d8", 2, 0.5),
        ("3", "d5", 1, 1.0),
        ("5", "d7", 1, 1.0),
        ("6", "d9", 1, 1.0),
    ]
    for tag in ["A"]
)

# nDCG@10 per query, by hand (trec_eval's linear gains, log2 discounts):
Q1 = 1 / math.log2(3)  # the relevant d1 at rank 2, ideal 1
Q2 = 1 / (1 + 1 / math.log2(3))  # d3 at rank 1; the unretrieved d4 is in the ideal
Q2_PLAIN_JOIN = 1.0  # the ideal built from the retrieved rows only loses d4
Q3 = 1.0
Q4 = 0.0  # not retrieved (scored under -c)
Q5 = 0.0  # no relevant document: trec_eval's 0 (the expressions' null)
RUN_MEAN = (Q1 + Q2 + Q3 + Q5) / 4  # queries 1, 2, 3, 5
QRELS_MEAN = (Q1 + Q2 + Q3 + Q4 + Q5) / 5  # queries 1-5 (-c)
RELEVANT_MEAN = (Q1 + Q2 + Q3 + Q4) / 4  # queries 1-4


@pytest.fixture
def example(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels").write_text(EXAMPLE_QRELS)
    (tmp_path / "run").write_text(EXAMPLE_RUN)
    (tmp_path / "runB").write_text(EXAMPLE_RUN.replace(" A\n", " B\n"))
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _second(example: tuple[str, str]) -> str:
    """The same ranking under another run id, for a comparison of two systems."""
    return str(Path(example[1]).with_name("runB"))


def test_the_plain_join_loses_the_unretrieved_relevant_document(example: tuple[str, str]) -> None:
    qrels, run = (rm.read_trec_qrels(example[0]), rm.read_trec_run(example[1]))
    joined = run.join(qrels.select("query", "doc", "relevance"), on=["query", "doc"], how="left")
    ndcg = joined.group_by("query").agg(rm.ndcg_at_k("relevance", 10, by=["score", "doc"]))
    values = dict(ndcg.iter_rows())
    assert values == {
        "1": pytest.approx(Q1),
        "2": Q2_PLAIN_JOIN,
        "3": Q3,
        "5": None,
        "6": None,
    }
    assert ndcg.get_column("relevance").mean() == pytest.approx((Q1 + Q2_PLAIN_JOIN + Q3) / 3)


@pytest.mark.parametrize(
    ("queries", "no_relevant", "expected"),
    [
        ("run", "zero", {"1": Q1, "2": Q2, "3": Q3, "5": Q5}),
        ("run", "null", {"1": Q1, "2": Q2, "3": Q3, "5": None}),
        ("qrels", "zero", {"1": Q1, "2": Q2, "3": Q3, "4": Q4, "5": Q5}),
        ("relevant", "zero", {"1": Q1, "2": Q2, "3": Q3, "4": Q4}),
    ],
)
def test_judged_frame_keeps_the_ideal_and_the_chosen_queries(
    example: tuple[str, str], queries: str, no_relevant: str, expected: dict[str, float | None]
) -> None:
    judged = rm.judged_frame(*example, queries=queries)  # type: ignore[arg-type]
    by = {"by": ["score", "doc"], "descending": [True, True], "no_relevant": no_relevant}
    ndcg = judged.group_by("query").agg(rm.ndcg_at_k("relevance", 10, **by))  # type: ignore[arg-type]
    assert dict(ndcg.iter_rows()) == pytest.approx(expected)
    via_metrics = judged.group_by("query").agg(rm.metrics("relevance", ["ndcg_cut_10"], **by))  # type: ignore[arg-type]
    assert dict(via_metrics.unnest("relevance").iter_rows()) == pytest.approx(expected)
    per_query = rm.evaluate_parquet(judged, ["ndcg_cut_10"], **by)  # type: ignore[arg-type]
    assert dict(per_query.iter_rows()) == pytest.approx(expected)


def test_judged_frame_refuses_a_missing_query_under_trec_eval(example: tuple[str, str]) -> None:
    with pytest.raises(ValueError, match="query '4' of the qrels is not in the run"):
        rm.judged_frame(*example, queries="trec_eval")


@pytest.mark.parametrize(
    ("options", "mean", "n_queries"),
    [
        ({}, RUN_MEAN, 4),
        ({"queries": "run"}, RUN_MEAN, 4),
        ({"queries": "qrels"}, QRELS_MEAN, 5),
        ({"complete": True}, QRELS_MEAN, 5),
        ({"queries": "relevant"}, RELEVANT_MEAN, 4),
    ],
)
def test_evaluate_averages_over_the_documented_queries(
    example: tuple[str, str], options: dict[str, object], mean: float, n_queries: int
) -> None:
    result = rm.evaluate(*example, ["ndcg_cut_10"], **options)  # type: ignore[arg-type]
    assert result.aggregate.item() == pytest.approx(mean, abs=1e-15)
    assert result.n_queries == n_queries
    assert (result.missing_queries, result.ignored_queries) == (1, 1)
    assert result.query_set == options.get("queries", "qrels" if options else "run")


def test_evaluate_refuses_a_missing_query_as_trec_eval_does(example: tuple[str, str]) -> None:
    with pytest.raises(ValueError, match="query '4' of the qrels is not in the run"):
        rm.evaluate(*example, ["ndcg_cut_10"], queries="trec_eval")
    with pytest.raises(ValueError, match="contradicts queries='trec_eval'"):
        rm.evaluate(*example, ["ndcg_cut_10"], queries="trec_eval", complete=True)


def test_compare_averages_what_evaluate_evaluated(example: tuple[str, str]) -> None:
    per_query = pl.concat(
        rm.evaluate(*example, ["ndcg_cut_10"], queries="qrels").per_query.select(
            pl.lit(name).alias("system"), pl.all()
        )
        for name in ("A", "B")
    )
    result = rm.compare(per_query, baseline="A", test="t")
    assert result.get_column("mean").to_list() == pytest.approx([QRELS_MEAN] * 2, abs=1e-15)
    assert result.get_column("n_queries").to_list() == [5, 5]


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    ("switch", "mean"),
    [
        (["-c"], QRELS_MEAN),
        (["--queries", "qrels"], QRELS_MEAN),
        (["--queries", "run"], RUN_MEAN),
        (["--queries", "relevant"], RELEVANT_MEAN),
    ],
)
def test_the_two_subcommands_agree_under_every_switch(
    example: tuple[str, str], switch: list[str], mean: float, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _cli(["trec-eval", *switch, "-m", "ndcg_cut.10", *example], capsys)
    assert (status, out) == (0, f"ndcg_cut_10           \tall\t{mean:.4f}\n")
    compare_switch = ["--queries", "qrels"] if switch == ["-c"] else switch
    argv = [
        "compare",
        *compare_switch,
        *example,
        _second(example),
        "-m",
        "ndcg_cut_10",
        "--format",
        "csv",
    ]
    status, out, err = _cli(argv, capsys)
    assert status == 0, err
    table = pl.read_csv(io.StringIO(out))  # the one pair: every pair without --baseline
    assert list(table.select("mean_a", "mean_b").row(0)) == pytest.approx([mean] * 2, abs=1e-12)


def test_the_two_subcommands_refuse_a_missing_query_by_default(
    example: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _cli(["trec-eval", "-m", "ndcg_cut.10", *example], capsys)
    assert (status, out) == (4, "")
    # trec_eval's own line, then the one that says what happened.
    assert err.startswith("rankmetrics trec-eval: result qid '4' not found in qrels\n")
    status, out, err = _cli(["compare", *example, _second(example), "-m", "ndcg_cut_10"], capsys)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "query '4' of the qrels is not in the run" in err


def test_compare_keeps_queries_without_a_relevant_document_as_trec_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Query 1: its relevant document retrieved first (AP 1); query 2: nothing
    # relevant judged (AP 0). trec_eval's map: 0.5; ranx's too.
    (tmp_path / "qrels").write_text("1 0 a 1\n2 0 b 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2.0 r\n2 Q0 b 1 1.0 r\n")
    (tmp_path / "runB").write_text("1 Q0 a 1 2.0 s\n2 Q0 b 1 1.0 s\n")
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    status, out, _ = _cli(["trec-eval", "-m", "map", *files], capsys)
    assert (status, out) == (0, "map                   \tall\t0.5000\n")
    status, out, _ = _cli(
        ["compare", *files, str(tmp_path / "runB"), "-m", "map", "--format", "csv"], capsys
    )
    assert status == 0
    assert list(pl.read_csv(io.StringIO(out)).select("mean_a", "mean_b").row(0)) == [0.5, 0.5]


def test_the_query_switch_is_checked(
    example: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = _cli(["trec-eval", "--queries", "all", *example], capsys)
    assert status == 2 and "--queries must be one of trec_eval, run, qrels, relevant" in err
    status, _, err = _cli(["trec-eval", "-c", "--queries", "run", *example], capsys)
    assert status == 2 and "contradicts --queries=run" in err
    with pytest.raises(ValueError, match="`queries` must be one of"):
        rm.judged_frame(*example, queries="all")  # type: ignore[arg-type]


# --- measure names ---------------------------------------------------------------


@pytest.mark.parametrize(
    "measures",
    [
        {"ndcg_cut", "ndcg_cut.1,4"},
        {"P", "P.3"},
        {"P_3", "P.7", "map", "recall.2"},
        frozenset({"ndcg_cut.5", "ndcg_cut", "success.1"}),
    ],
)
def test_a_measure_set_is_read_as_pytrec_eval_reads_it(measures: set[str]) -> None:
    import pytrec_eval

    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1}}
    run = {"1": {"a": 1.0, "b": 2.0, "x": 3.0}, "2": {"d": 0.5, "e": 1.0}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = rm.evaluate(qrels, run, measures).per_query
    assert sorted(ours.columns[1:]) == sorted(theirs["1"])
    for row in ours.iter_rows(named=True):
        for name, value in theirs[row["query"]].items():
            assert row[name] == pytest.approx(value, abs=1e-12), (row["query"], name)


def test_ir_measures_objects_are_accepted_wherever_a_name_is() -> None:
    import ir_measures

    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1}}
    run = {"1": {"a": 1.0, "b": 2.0, "x": 3.0}, "2": {"d": 0.5, "e": 1.0}}
    measures = [ir_measures.nDCG @ 10, ir_measures.AP(rel=2), ir_measures.P @ 2]
    theirs = ir_measures.calc_aggregate(measures, qrels, run)
    result = rm.evaluate(qrels, run, measures)
    for measure in measures:
        assert result.aggregate.get_column(str(measure)).item() == pytest.approx(
            theirs[measure], abs=1e-12
        )
    one = rm.evaluate(qrels, run, ir_measures.nDCG @ 10).aggregate.item()
    assert one == pytest.approx(theirs[ir_measures.nDCG @ 10], abs=1e-12)
    frame = pl.DataFrame({"query": ["1"] * 3, "relevance": [0, 1, 2], "score": [3.0, 2.0, 1.0]})
    via_metrics = frame.group_by("query").agg(rm.metrics("relevance", measures, by="score"))
    via_parquet = rm.evaluate_parquet(frame, measures)
    assert via_metrics.unnest("relevance").drop("query").columns == [str(m) for m in measures]
    assert via_parquet.drop("query").columns == [str(m) for m in measures]


DIVERSITY_REL = [
    "ERR_IA(rel=2)@10",
    "nERR_IA(rel=2)@20",
    "alpha_nDCG(rel=2)@20",
    "alpha_DCG(alpha=0.3,rel=2)@5",
    "P_IA(rel=2)@10",
    "StRecall(rel=2)@10",
    "NRBP(rel=2)",
    "nNRBP(rel=2)",
    "AP_IA(rel=2)",
    "alpha_nDCG@20",  # beside them, at evaluate()'s level 1
]


def test_ir_measures_diversity_names_take_rel_in_evaluate_and_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import warnings

    from tests.test_diversity import diversity_collection

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import ir_measures

    qrels, run = diversity_collection(4)
    ours = rm.evaluate(qrels, run, DIVERSITY_REL).per_query
    (tmp_path / "qrels").write_text("".join(f"{q} {s} {d} {r}\n" for q, s, d, r in qrels.rows()))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} 1 {s} r\n" for q, d, s in run.rows()))
    measures = [arg for name in DIVERSITY_REL for arg in ("-m", name)]
    assert main(["trec-eval", "-q", *measures, str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    printed = {
        (name.strip(), query): float(value)
        for name, query, value in (
            line.split("\t") for line in capsys.readouterr().out.splitlines()
        )
    }
    ir_qrels = [ir_measures.Qrel(q, d, r, s) for q, s, d, r in qrels.iter_rows()]
    ir_run = [ir_measures.ScoredDoc(*row) for row in run.iter_rows()]
    for name in DIVERSITY_REL:
        measure = ir_measures.parse_measure(name)
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], ir_qrels, ir_run)}
        for query, value in ours.select("query", name).iter_rows():
            expected = 0.0 if math.isnan(theirs[query]) else theirs[query]
            assert value == pytest.approx(expected, rel=1e-12, abs=1e-15), (name, query)
            assert printed[name, query] == pytest.approx(expected, abs=5e-5), (name, query)


def test_a_subtopics_column_that_is_not_a_list_is_refused_at_collect() -> None:
    # Documented (guide/reliability.md): the type is known only at collect, where polars refuses it.
    frame = pl.DataFrame({"score": [2.0, 1.0], "subtopics": ["1", "2"]})
    with pytest.raises(
        pl.exceptions.InvalidOperationError,
        match="expected List data type for list operation, got: String",
    ):
        frame.select(rm.alpha_ndcg_at_k("subtopics", 3, by="score"))


def test_queries_is_taken_whole_so_trec_eval_abbreviations_keep_their_meaning(
    example: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    # --que is trec_eval's --query_eval_wanted (per-query lines), not --queries.
    status, out, _ = _cli(["trec-eval", "--que", "-c", "-m", "num_ret", *example], capsys)
    assert status == 0
    # Per query lines for queries 1-5 (4 scored as -c: its placeholder, reset to 0), then all.
    assert [line.split("\t")[1] for line in out.splitlines()] == ["1", "2", "3", "4", "5", "all"]
    status, out, _ = _cli(["trec-eval", "--queries=run", "-m", "num_q", *example], capsys)
    assert (status, out) == (0, "num_q                 \tall\t4\n")


@pytest.mark.parametrize(
    "subtopics", [[["1", "1"], ["2"], ["1", "2"]], [["1", None], ["2"], ["1"]]]
)
def test_with_weights_a_repeat_or_null_in_a_list_makes_the_value_null(
    subtopics: list[list[str | None]],
) -> None:
    frame = pl.DataFrame(
        {
            "score": [3.0, 2.0, 1.0],
            "subtopics": subtopics,
            "weights": [[1.0, 1.0], [1.0], [1.0] * len(subtopics[2])],
        }
    )
    value = frame.select(
        rm.err_ia_at_k("subtopics", 3, by="score", intent_weights="weights", no_relevant="zero")
    ).item()
    assert value is None
