"""The bad-input sweep, kept: a regression test per finding, and the parameter sweep.

Each bad input gets either a ``ValueError`` naming the parameter (or the column)
when the expression is built or the input read, or the documented behaviour of
the README's Reliability section; never a silent NaN, never polars' internal
error at collect. The parameter sweep is registry-driven: every parameter of
every registry measure against :data:`ODD_VALUES`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.engine import Bound, evaluate
from polars_rankmetrics.engine.ranked import DOC, SUBTOPICS
from polars_rankmetrics.engine.ranking import Ranking
from polars_rankmetrics.measures import parse_measure
from polars_rankmetrics.measures.registry import MEASURES as REGISTRY
from tests.metric_table import MEASURES, METRICS, subtopic_lists_of

# --- the parameter sweep -------------------------------------------------------

ODD_VALUES: list[Any] = [
    *(0, -1, 1, 2, 0.5, -0.0, 1e-300, 5e-324, 1e300, 1.7e308),
    *(math.inf, -math.inf, math.nan, 2**31, 2**32, 2**62, 2**63, 10**20),
    *(True, False, "1", "", None, [1], (0.5,), Decimal("2"), np.int64(2), np.float64(0.5)),
]
"""Values every parameter is tried with: bounds, overflow, non-finite, wrong types."""

SWEEP_FRAME = pl.DataFrame(
    {
        "query": [1, 1, 1, 1, 1, 1, 2, 2, 3],
        "doc": ["a", "b", "c", "d", "e", "f", "a", "b", "a"],
        "score": [3.0, 2.0, 2.0, None, 1.0, math.nan, 1.0, 1.0, 0.5],
        "relevance": [2.0, 0.0, 1.0, 3.0, None, -1.0, 0.0, None, 1.0],
    }
)
"""Ties, unretrieved (null and NaN scores), unjudged, negative and graded labels, a
query without relevant rows and a single row."""

SWEEP_RANKING = Ranking.build(
    "relevance",
    "score",
    True,
    0.0,
    carried={SUBTOPICS: subtopic_lists_of(pl.col("relevance")), DOC: pl.col("doc")},
)


def _sweep_cases() -> list[tuple[str, str]]:
    """(registry key, parameter) for every free parameter of every registry measure."""
    cases = []
    for measure in REGISTRY:
        for parameter in measure.statistic.params:
            if parameter not in measure.fixed:
                cases.append((measure.key, parameter))
    return cases


def _valid_parameters(key: str) -> dict[str, Any]:
    """The parameters of the measure's spelling in the test table: all valid."""
    column = parse_measure(MEASURES[key][0])
    return {**column.measure.fixed, **dict(column.params)}


def _values(frame: pl.DataFrame, bounds: list[Bound]) -> pl.DataFrame:
    struct = evaluate(SWEEP_RANKING, bounds).alias("values")
    return frame.group_by("query").agg(struct).unnest("values")


def test_the_sweep_covers_every_measure() -> None:
    assert {key for key, _ in _sweep_cases()} >= {
        m.key for m in REGISTRY if set(m.statistic.params) - set(m.fixed)
    }


@pytest.mark.parametrize(("key", "parameter"), _sweep_cases())
def test_every_parameter_is_refused_by_name_or_computed(key: str, parameter: str) -> None:
    """Each odd value: a ValueError naming the parameter when built, or no NaN and no error."""
    measure = next(m for m in REGISTRY if m.key == key)
    valid = _valid_parameters(key)
    accepted: list[Bound] = []
    outcome: dict[str, bool] = {}  # repr(value) -> accepted
    for number, value in enumerate(ODD_VALUES):
        params = {**valid, parameter: value}
        name = f"{key}.{parameter}.{number}"
        try:
            bound = measure.statistic.bind(name, "null", None, **params)
            evaluate(SWEEP_RANKING, [bound])  # some checks need the others' values
        except ValueError as error:
            assert f"`{parameter}`" in str(error), (value, str(error))
            outcome[repr(value)] = False
            continue
        accepted.append(bound)
        outcome[repr(value)] = True
    # numpy numbers are numbers: accepted exactly where Python's are.
    assert outcome["np.int64(2)"] == outcome["2"]
    assert outcome["np.float64(0.5)"] == outcome["0.5"]
    if not accepted:
        return
    try:
        values = _values(SWEEP_FRAME, accepted)
    except pl.exceptions.PolarsError:  # find the value that fails, for the message
        for bound in accepted:
            _values(SWEEP_FRAME, [bound])
        raise
    for name in values.columns[1:]:
        column = values.get_column(name)
        value = ODD_VALUES[int(name.rsplit(".", 1)[1])]
        if parameter == "p" and abs(value) > 1e100:
            continue  # p**rank overflows: NaN, as trec_eval's doubles give (see rbp.py)
        if column.dtype == pl.Float64:
            assert not column.is_nan().any(), (name, column.to_list())


# --- data: one documented behaviour everywhere ---------------------------------


def _qrels_and_run(labels: list[Any], scores: list[Any]) -> tuple[pl.DataFrame, pl.DataFrame]:
    docs = [f"d{i}" for i in range(len(labels))]
    qrels = pl.DataFrame({"query": "q", "doc": docs, "relevance": labels}, strict=False)
    run = pl.DataFrame({"query": "q", "doc": docs, "score": scores}, strict=False)
    return qrels, run


def test_nan_labels_are_unjudged_in_evaluate() -> None:
    # A NaN label (pandas' missing value) is unjudged, as a null one, in evaluate() too.
    nan, null = (
        _qrels_and_run([0.0, 1.0, missing, missing], [0.9, 0.8, None, 0.5])
        for missing in (math.nan, None)
    )
    names = ["map", "P_3", "num_ret", "num_rel", "bpref", "relstring", "ndcg"]
    with_nan, with_null = rm.evaluate(*nan, names), rm.evaluate(*null, names)
    assert with_nan.per_query.equals(with_null.per_query)
    counts = with_nan.per_query.select("num_ret", "num_rel", "relstring").row(0)
    assert counts == (3.0, 1.0, "01-")  # the NaN label's row neither relevant nor judged


def test_max_per_query_drops_nan_scores_as_null_scores() -> None:
    # -M 2 once kept the NaN row first (NaN sorts above every number) and cut the
    # real documents: num_ret 1 and map 0.5 where null scores give 2 and 1.
    qrels, run = _qrels_and_run([0, 1, 1], [math.nan, 0.5, 0.4])
    names = ["map", "num_ret", "num_rel_ret"]
    nan = rm.evaluate(qrels, run, names, max_per_query=2).per_query
    null = rm.evaluate(
        qrels, run.with_columns(pl.col("score").fill_nan(None)), names, max_per_query=2
    ).per_query
    assert nan.equals(null)
    assert nan.row(0) == ("q", 1.0, 2.0, 2.0)


def test_a_fractional_label_below_the_level_is_not_relevant_and_counted_so() -> None:
    # evaluate()'s rule is label >= relevance_level: 0.5 is not relevant at level 1,
    # and the query counts among no_relevant_queries; 1.0 is relevant.
    qrels = pl.DataFrame(
        {"query": ["a", "a", "b", "b"], "doc": ["d1", "d2"] * 2, "relevance": [0.5, 0, 1.0, 0]}
    )
    run = qrels.select("query", "doc", score=pl.Series([0.9, 0.1] * 2))
    result = rm.evaluate(qrels, run, ["map", "num_rel", "P_1"])
    assert result.per_query.rows() == [("a", 0.0, 0.0, 0.0), ("b", 1.0, 1.0, 1.0)]
    assert result.no_relevant_queries == 1
    at_half = rm.evaluate(qrels.with_columns(pl.col("relevance") * 2), run, ["num_rel"])
    assert at_half.per_query["num_rel"].to_list() == [1.0, 1.0]
    assert at_half.no_relevant_queries == 0


def test_decimal_scores_and_labels_are_numbers() -> None:
    # A Decimal score failed with "`is_not_nan` operation not supported for dtype decimal".
    floats = pl.DataFrame(
        {"score": [0.9, 0.25, 0.25, None, 0.1], "relevance": [1.0, 0.0, 2.0, 1.0, None]}
    )
    decimals = floats.with_columns(pl.col("score", "relevance").cast(pl.Decimal(10, 3)))
    exprs = [case.expr().alias(case.id) for case in METRICS if case.receiver == "relevance"]
    assert decimals.select(exprs).equals(floats.select(exprs))
    names = ["map", "P_2", "roc_auc", "bpref", "relstring"]
    assert decimals.select(rm.metrics("relevance", names, by="score")).equals(
        floats.select(rm.metrics("relevance", names, by="score"))
    )


NOT_NUMBERS: dict[str, pl.Series] = {
    "bool": pl.Series([True, False, True]),
    "str": pl.Series(["0.9", "0.5", "0.1"]),
    "date": pl.Series([date(2020, 1, 3), date(2020, 1, 2), date(2020, 1, 1)]),
    "datetime": pl.Series([datetime(2020, 1, 3), datetime(2020, 1, 2), datetime(2020, 1, 1)]),
    "duration": pl.Series([timedelta(3), timedelta(2), timedelta(1)]),
    "categorical": pl.Series(["c", "b", "a"], dtype=pl.Categorical),
    "list": pl.Series([[3.0], [2.0], [1.0]]),
    "null": pl.Series([None, None, None], dtype=pl.Null),
}


@pytest.mark.parametrize("kind", NOT_NUMBERS, ids=str)
def test_a_score_that_is_not_a_number_is_refused_everywhere(kind: str) -> None:
    # One behaviour: refused by the functions and metrics() at collect (polars'
    # error naming the column), by evaluate() when it reads the run; never cast
    # (evaluate() once parsed "10" below "9", and read bools and dates as numbers).
    frame = pl.DataFrame({"sim": NOT_NUMBERS[kind], "relevance": [1, 0, 1]})
    expected = r'(?s)`floor` operation not supported for dtype .*col\("sim"\)'
    for expr in (
        rm.average_precision("relevance", by="sim"),
        rm.metrics("relevance", ["map", "bpref"], by="sim"),
    ):
        with pytest.raises(pl.exceptions.PolarsError, match=expected):
            frame.select(expr)
    qrels = pl.DataFrame({"query": "q", "doc": ["a", "b", "c"], "relevance": [1, 0, 1]})
    run = qrels.select("query", "doc", frame.get_column("sim"))
    with pytest.raises(ValueError, match="the run's score column 'sim' must be numeric"):
        rm.evaluate(qrels, run, ["map"], run_columns={"score": "sim"})


LABELS_NOT_NUMBERS = {
    "str": pl.Series(["1", "0", "2"]),
    "date": NOT_NUMBERS["date"],
    "duration": NOT_NUMBERS["duration"],
    "categorical": pl.Series(["1", "0", "2"], dtype=pl.Categorical),
    "enum": pl.Series(["1", "0", "2"], dtype=pl.Enum(["0", "1", "2"])),
    "list": pl.Series([[1], [0], [2]]),
}


@pytest.mark.parametrize("kind", LABELS_NOT_NUMBERS, ids=str)
def test_a_label_that_is_not_a_number_is_refused_naming_the_column(kind: str) -> None:
    # Labels are numbers or bools: any other type fails at collect with polars'
    # error, whose expression names the column ("grade"), and evaluate() refuses
    # it when it reads the qrels. A categorical "1" is never read as relevant.
    labels = LABELS_NOT_NUMBERS[kind]
    frame = pl.DataFrame({"score": [0.9, 0.5, 0.1], "grade": labels})
    expected = "'horizontal_mean' expects numeric expressions, found \"grade\""
    for expr in (
        rm.ndcg_at_k("grade", 3, by="score"),
        rm.metrics("grade", ["map", "bpref"], by="score"),
    ):
        with pytest.raises(pl.exceptions.PolarsError, match=expected):
            frame.select(expr)
    qrels = pl.DataFrame({"query": "q", "doc": ["a", "b", "c"], "grade": labels})
    run = pl.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [0.9, 0.5, 0.1]})
    with pytest.raises(ValueError, match="the qrels's relevance column 'grade' must be numeric"):
        rm.evaluate(qrels, run, ["map"], qrels_columns={"relevance": "grade"})


def test_gauc_reads_nan_labels_as_unjudged() -> None:
    # gauc read labels itself: a NaN label counted as relevant (NaN > 0 in polars).
    nan = pl.DataFrame(
        {"query": 1, "score": [0.9, 0.4, 0.05, 0.1], "relevance": [1.0, 0.0, math.nan, 0.0]}
    )
    null = nan.with_columns(pl.col("relevance").fill_nan(None))
    for weight in ("pairs", "queries"):
        gauc = rm.gauc("relevance", query="query", by="score", weight=weight)  # type: ignore[arg-type]
        assert nan.select(gauc).item() == null.select(gauc).item() == 1.0


def test_a_huge_label_in_relstring_is_a_level_above_nine() -> None:
    # The label was cast to Int64 for every row: 1e300 failed at collect.
    frame = pl.DataFrame({"score": [0.9, 0.5, 0.1], "relevance": [1e300, 0.0, 12.0]})
    assert frame.select(rm.metrics("relevance", ["relstring"], by="score")).item() == {
        "relstring": ">0>"
    }


# --- parameters ----------------------------------------------------------------


def _frame() -> pl.DataFrame:
    return pl.DataFrame({"score": [0.9, 0.8, 0.1], "relevance": [1, 0, 2]})


def test_huge_rprec_multiples_are_computed() -> None:
    # Rprec_mult.1e300 failed at collect ("conversion from f64 to i64 failed"), and
    # multiples whose rank passes 2**32 read an empty list (polars' head() wraps).
    # trec_eval names print a multiple with two decimals: one name per call.
    frame = _frame()
    for name, expected in [
        ("Rprec_mult.1e10", 2 / 2e10),
        ("Rprec_mult.4e18", 2 / 8e18),
        # A rank beyond C's long: trec_eval's conversion gives LONG_MIN, so c < 1.
        ("Rprec_mult.1e300", 0.0),
        ("Rprec_mult.4611686018427387904", 0.0),
    ]:
        values = frame.select(rm.metrics("relevance", [name], by="score")).item()
        # Both relevant rows are retrieved; the cutoff is floor(m * 2 + 0.9).
        assert list(values.values()) == [expected], name


@pytest.mark.parametrize("beta", [1e100, 1e154, 1e300, 1.7e308])
def test_f_beta_tends_to_recall_for_huge_beta(beta: float) -> None:
    # beta**2 overflowed (or (1 + beta**2) * hits did): NaN. An infinite beta is refused.
    frame = _frame()
    recall = frame.select(rm.recall_at_k("relevance", 2, by="score")).item()
    assert frame.select(rm.f_beta_at_k("relevance", 2, beta=beta, by="score")).item() == recall
    with pytest.raises(ValueError, match="`beta` must be a finite number > 0, got inf"):
        rm.f_beta_at_k("relevance", 2, beta=math.inf, by="score")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("P@99999999999999999999", "`k` must be a positive int of at most"),
        ("AP@0", "`k` must be a positive int"),
    ],
)
def test_odd_parameters_in_names_are_refused_when_built(name: str, message: str) -> None:
    # They were accepted and failed at collect with polars' errors and plan dumps.
    with pytest.raises(ValueError, match=f"measure '.*': {message}"):
        rm.metrics("relevance", [name], by="score")
    qrels, run = _qrels_and_run([1, 0], [0.9, 0.1])
    with pytest.raises(ValueError, match=message):
        rm.evaluate(qrels, run, [name])


@pytest.mark.parametrize(
    ("name", "column", "expected"),
    [
        # trec_eval reads its parameters with atof()/atol(): these names are
        # recorded in tests/data/trec_eval_cases.json and computed, as there.
        ("Rprec_mult.inf", "Rprec_mult_inf", 0.0),
        ("Rprec_mult.nan", "Rprec_mult_nan", 0.0),
        ("relstring.1e30", "relstring_1e30", ""),
        ("P.99999999999999999999", "P_9223372036854775807", 2 / (2**63 - 1)),
    ],
)
def test_odd_trec_eval_parameters_are_read_as_trec_eval_reads_them(
    name: str, column: str, expected: object
) -> None:
    values = _frame().select(rm.metrics("relevance", [name], by="score")).item()
    assert values == {column: expected}


@pytest.mark.parametrize("name", ["alpha-DCG@4611686018427387904", "ERR-IA@1000001"])
def test_a_cutoff_the_normalisation_cannot_sum_is_refused(name: str) -> None:
    # alpha-DCG and ERR-IA sum k terms to normalise: a huge k hung the process.
    with pytest.raises(ValueError, match="`k` must be at most 1000000 for alpha-DCG and ERR-IA"):
        rm.metrics("relevance", [name], by="score", subtopics="subtopics")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rm.inst("r", target=0.1, by="s"), "`target` \\(INST's T\\) must be at least"),
        (lambda: rm.u_measure("r", max_n=1, by="s"), "`max_n` must be at least 2 for U"),
        (lambda: rm.tbg("r", half_life=5e-324, by="s"), "`half_life` must be a finite number > 0"),
        (lambda: rm.inst("r", max_rel=1e-320, by="s"), "`max_rel` must be a finite number > 0"),
    ],
)
def test_user_model_parameters_that_give_nan_are_refused(
    call: Callable[[], pl.Expr], message: str
) -> None:
    # INST with T < 0.25 has continuations above 1 (their product overflowed to
    # NaN on 400 relevant rows at T = 0.1); U with one rank weighs nothing (0/0);
    # subnormal parameters are computed as 0 by polars (a division by 0).
    with pytest.raises(ValueError, match=message):
        call()


SAME_MESSAGE = [
    pytest.param(
        lambda: rm.precision_at_k("relevance", 10**20, by="score"),
        "P@100000000000000000000",
        id="huge k",
    ),
    pytest.param(lambda: rm.err_at_k("relevance", 0, by="score"), "ERR@0", id="k=0"),
    pytest.param(
        lambda: rm.alpha_dcg_at_k("relevance", 2_000_000, by="score"),
        "alpha-DCG@2000000",
        id="alpha-DCG k",
    ),
    pytest.param(
        lambda: rm.alpha_ndcg_at_k("relevance", 5, alpha=1.5, by="score"),
        "alpha_nDCG(alpha=1.5)@5",
        id="alpha",
    ),
    pytest.param(lambda: rm.inst("relevance", target=0.1, by="score"), "INST(T=0.1)", id="T"),
    pytest.param(
        lambda: rm.inst("relevance", max_rel=5e-324, by="score"),
        "INST(max_rel=5e-324)",
        id="subnormal",
    ),
    pytest.param(lambda: rm.compatibility("relevance", p=1.5, by="score"), "Compat(p=1.5)", id="p"),
]


@pytest.mark.parametrize(("function", "name"), SAME_MESSAGE)
def test_a_bad_value_gets_the_same_message_everywhere(
    function: Callable[[], pl.Expr], name: str, request: pytest.FixtureRequest
) -> None:
    """The function's message, in metrics(), evaluate() and Spark, prefixed by the name."""
    with pytest.raises(ValueError) as raised:
        function()
    message = str(raised.value)
    expected = f"measure {name!r}: {message}"
    with pytest.raises(ValueError) as by_name:
        rm.metrics("relevance", [name], by="score", subtopics="subtopics")
    assert str(by_name.value) == expected
    qrels, run = _qrels_and_run([1, 0], [0.9, 0.1])
    with pytest.raises(ValueError) as evaluated:
        rm.evaluate(qrels, run, [name])
    assert str(evaluated.value) == expected
    from polars_rankmetrics.spark import spark_unavailable

    if spark_unavailable() is None:
        spark = request.getfixturevalue("spark")
        frame = spark.createDataFrame([("q", 0.5, 1)], "query string, score double, relevance long")
        with pytest.raises(ValueError) as on_spark:
            rm.spark.evaluate(frame, [name])
        assert str(on_spark.value) == expected


def test_nan_labels_are_unjudged_on_spark(spark: Any) -> None:
    rows = [("q", "d1", 0.9, 1.0), ("q", "d2", 0.8, math.nan), ("q", "d3", 0.1, 2.0)]
    frame = spark.createDataFrame(rows, "query string, doc string, score double, relevance double")
    names = ["map", "num_rel", "relstring", "bpref"]
    got = rm.spark.evaluate(frame, names, doc="doc").collect()[0].asDict()
    local = pl.DataFrame(rows, schema=["query", "doc", "score", "relevance"], orient="row")
    expected = local.select(
        rm.metrics("relevance", names, by=["score", "doc"], descending=[True, True])
    ).item()
    assert {name: got[name] for name in names} == expected
    assert expected["relstring"] == "1-2"


# --- output files: whole or not at all ------------------------------------------


def _interrupted_save(self: Any, fp: Any, *args: Any, **kwargs: Any) -> None:
    """Altair's save, cut short: half a file written, then the process interrupted."""
    Path(fp).write_bytes(b"<svg trunc")
    raise KeyboardInterrupt


def _chart() -> Any:
    per_query = pl.DataFrame(
        {"system": ["a", "a", "b", "b"], "query": ["q1", "q2"] * 2, "ap": [0.2, 0.4, 0.5, 0.3]}
    )
    return rm.query_delta_chart(per_query, metric="ap", baseline="a")


def test_save_chart_writes_whole_files_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("altair")
    target = tmp_path / "delta.html"
    rm.save_chart(_chart(), target)
    assert "vega" in target.read_text()
    written = target.read_bytes()
    monkeypatch.setattr(type(_chart()), "save", _interrupted_save)
    with pytest.raises(KeyboardInterrupt):
        rm.save_chart(_chart(), target)
    assert target.read_bytes() == written  # the earlier chart, whole
    assert [path.name for path in tmp_path.iterdir()] == ["delta.html"]  # no temporary left
    with pytest.raises(ValueError, match="`path` must end in"):
        rm.save_chart(_chart(), tmp_path / "delta.gif")


def test_rankmetrics_plot_leaves_no_truncated_chart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("altair")
    from polars_rankmetrics.cli import main

    qrels, run = _qrels_and_run([1, 0, 2], [0.9, 0.5, 0.1])
    files = ["qrels.parquet", "a.parquet", "b.parquet"]
    for frame, name in zip([qrels, run, run.reverse()], files, strict=True):
        frame.write_parquet(tmp_path / name)
    monkeypatch.setattr(type(_chart()), "save", _interrupted_save)
    with pytest.raises(KeyboardInterrupt):
        main(["plot", *(str(tmp_path / name) for name in files), "-o", str(tmp_path / "d.svg")])
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(files)
