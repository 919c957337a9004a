"""Odd inputs of the statistics family: each case of the bad-input table, and one property.

The table is the statistics part of docs/guide/reliability.md; each row has a test here.
The property draws small per-query frames with nulls, NaN, ±inf, duplicated rows and
one or no query, and checks that `compare` and `compare_pairs` either give scipy's and
statsmodels' values or refuse the input with an error naming the argument.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

import polars_rankmetrics as rm

INF = math.inf
ONE_QUERY = pl.DataFrame({"system": ["a", "b"], "query": ["q1", "q1"], "m": [0.5, 0.7]})
PAIRWISE = ["t", "wilcoxon", "sign", "randomization", "bootstrap"]


# Fewer than two queries: every test is undefined, whatever it computes on one value.


@pytest.mark.parametrize("test", PAIRWISE)
def test_one_query_gives_a_null_p_value_and_says_why(test: str) -> None:
    row = rm.compare_pairs(ONE_QUERY, test=test).row(0, named=True)
    assert row["p_value"] is None
    assert row["significant"] is None
    assert row["better"] is None
    assert row["note"] == "1 paired query: the test is undefined"


@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap"])
def test_compare_on_one_query_gives_null_tests(test: str) -> None:
    row = rm.compare(ONE_QUERY, baseline="a", test=test).filter(pl.col("system") == "b")
    assert row["p_value"].item() is None
    assert row["significant"].item() is None
    assert row["delta"].item() == pytest.approx(0.2)


@pytest.mark.parametrize("test", PAIRWISE)
def test_no_query_left_after_dropping_gives_a_null_p_value(test: str) -> None:
    frame = pl.DataFrame({"system": ["a", "b"], "query": ["q1", "q1"], "m": [0.5, None]})
    row = rm.compare_pairs(frame, test=test, missing="drop").row(0, named=True)
    assert row["n_queries"] == 0
    assert row["p_value"] is None
    assert row["note"] == "0 paired queries: the test is undefined"


def test_the_bootstrap_test_is_undefined_below_two_queries() -> None:
    from polars_rankmetrics.comparisons.significance import bootstrap_test

    assert math.isnan(bootstrap_test([0.7], [0.5]))
    assert math.isnan(bootstrap_test([], []))


def test_a_bootstrap_p_value_at_its_floor_is_said() -> None:
    # Two queries both favouring b: no resample of the centred differences reaches the
    # observed mean, so p is the floor 1 / (n_resamples + 1), and the note says so.
    frame = pl.DataFrame(
        {"system": ["a", "a", "b", "b"], "query": ["q1", "q2"] * 2, "m": [0.5, 0.4, 0.7, 0.7]}
    )
    row = rm.compare_pairs(frame, test="bootstrap", n_resamples=999).row(0, named=True)
    assert row["p_value"] == pytest.approx(1 / 1000)
    assert "floor" in row["note"] and "n_resamples" in row["note"]
    spread = pl.DataFrame(
        {
            "system": ["a"] * 6 + ["b"] * 6,
            "query": [f"q{i}" for i in range(6)] * 2,
            "m": [0.5, 0.4, 0.3, 0.6, 0.2, 0.5, 0.6, 0.3, 0.5, 0.5, 0.4, 0.4],
        }
    )
    assert rm.compare_pairs(spread, test="bootstrap", n_resamples=999)["note"].item() is None


@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap"])
def test_discriminative_power_refuses_fewer_than_two_topics(test: str) -> None:
    with pytest.raises(ValueError, match="two topics in `query`"):
        rm.discriminative_power(ONE_QUERY.rename({"m": "value"}), test=test)


# ±inf per-query values: refused, naming the system, the query and the column.


@pytest.mark.parametrize("value", [INF, -INF])
@pytest.mark.parametrize(
    "function",
    [
        lambda frame: rm.compare(frame, baseline="a"),
        lambda frame: rm.compare(frame, baseline="a", test="randomization"),
        lambda frame: rm.compare_pairs(frame),
        lambda frame: rm.compare_pairs(frame, test="wilcoxon"),
        lambda frame: rm.compare_pairs(frame, test="tukey", correction=None),
        lambda frame: rm.anova(frame),
        lambda frame: rm.effect_sizes(frame),
    ],
)
def test_infinite_values_are_refused_naming_system_query_and_column(
    function: object, value: float
) -> None:
    frame = pl.DataFrame(
        {"system": ["a", "a", "b", "b"], "query": ["q1", "q2"] * 2, "m": [0.5, 0.4, value, 0.6]}
    )
    with pytest.raises(ValueError, match=r"column 'm'.*system 'b'.*query 'q1'.*infinite"):
        function(frame)  # type: ignore[operator]


def test_infinite_values_outside_the_query_set_are_ignored() -> None:
    frame = pl.DataFrame(
        {"system": ["a", "a", "b", "b"], "query": ["q1", "q2"] * 2, "m": [0.5, 0.4, INF, 0.6]}
    )
    result = rm.compare(frame, baseline="a", queries=["q2"])
    assert result["n_ignored"].to_list() == [1, 1]


# A duplicated (system, query) row: named, as compare names it.

DUPLICATED = pl.DataFrame(
    {
        "system": ["a", "a", "a", "b", "b"],
        "query": ["q1", "q2", "q2", "q1", "q2"],
        "value": [0.1, 0.2, 0.3, 0.4, 0.5],
    }
)


@pytest.mark.parametrize("function", [rm.discriminative_power, rm.swap_rate, rm.topic_set_variance])
def test_a_duplicated_system_query_row_is_named(function: object) -> None:
    with pytest.raises(ValueError, match=r"duplicate \(system, query\) row: \('a', 'q2'\)"):
        function(DUPLICATED)  # type: ignore[operator]


@pytest.mark.parametrize("function", [rm.discriminative_power, rm.swap_rate, rm.topic_set_variance])
def test_infinite_or_null_keys_are_refused_in_the_system_orderings(function: object) -> None:
    infinite = DUPLICATED.filter(pl.int_range(pl.len()) != 2).with_columns(
        value=pl.Series([0.1, 0.2, -INF, 0.5])
    )
    with pytest.raises(ValueError, match=r"column 'value'.*system 'b'.*query 'q1'.*infinite"):
        function(infinite)  # type: ignore[operator]
    null_key = DUPLICATED.with_columns(query=pl.Series(["q1", None, "q2", "q1", "q2"]))
    with pytest.raises(ValueError, match="query column 'query' has null values"):
        function(null_key)  # type: ignore[operator]


# The property: a value equal to scipy's and statsmodels', or an error naming the argument.

GRID = [0.0, 0.25, 0.5, 0.75, 1.0]  # exact in binary, so no test meets round-off
ODD: list[float | None] = [None, math.nan, INF, -INF]
SYSTEMS = ["a", "b", "c"]


@st.composite
def per_query_frames(draw: st.DrawFn) -> pl.DataFrame:
    """2 or 3 systems, 1 to 5 queries; absent rows, null, NaN, ±inf, a duplicated row."""
    systems = SYSTEMS[: draw(st.integers(2, 3))]
    queries = [f"q{i}" for i in range(draw(st.integers(1, 5)))]
    value = (
        st.one_of(st.sampled_from(GRID), st.sampled_from(ODD))
        if draw(st.booleans())
        else st.sampled_from(GRID)
    )
    rows = [
        (name, query, draw(value))
        for name in systems
        for query in queries
        if draw(st.integers(0, 7)) > 0  # about one row in eight is absent
    ]
    if rows and draw(st.integers(0, 9)) == 0:
        rows.append(draw(st.sampled_from(rows)))
    schema = {"system": pl.String, "query": pl.String, "m": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _expected_matrix(
    frame: pl.DataFrame, missing: str, baseline: str | None = None
) -> tuple[list[str], np.ndarray] | str:
    """The aligned (system x query) matrix, written out, or the error the input deserves."""
    rows = frame.rows()
    keys = [(name, query) for name, query, _ in rows]
    if len(set(keys)) < len(keys):
        return "duplicate \\(system, query\\) row"
    systems = list(dict.fromkeys(name for name, _, _ in rows))
    if baseline is not None and baseline not in systems:
        return "`baseline`"
    if baseline is None and len(systems) < 2:
        return "at least two systems"
    queries = list(dict.fromkeys(query for _, query, _ in rows))
    if any(value is not None and math.isinf(value) for _, _, value in rows):
        return "infinite"
    values = {(name, query): value for name, query, value in rows}
    matrix = np.array(
        [[values.get((name, query)) for query in queries] for name in systems], dtype=np.float64
    )
    present = ~np.isnan(matrix)
    if missing == "zero":
        return systems, np.where(present, matrix, 0.0)
    return systems, matrix[:, present.all(axis=0)]


def _scipy_p(test: str, b: np.ndarray, a: np.ndarray) -> float:
    """The oracle's two-sided p-value of ``b`` against ``a``, with the documented rules."""
    d = b - a
    if d.size < 2:
        return math.nan
    if test == "t":
        if not d.any():
            return 1.0  # documented: no difference at all, where scipy gives NaN
        return float(stats.ttest_rel(b, a).pvalue)  # inf statistic: 0.0 for constant d
    if test == "wilcoxon":
        return float(stats.wilcoxon(b, a).pvalue)
    if test == "sign":
        k, n = int((d > 0).sum()), int((d != 0).sum())
        return 1.0 if n == 0 else float(stats.binomtest(k, n).pvalue)
    result = stats.permutation_test(  # exact: 2**n <= n_resamples
        (b, a),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=10_000,
    )
    return float(result.pvalue)


@contextmanager
def _quiet() -> Iterator[None]:
    """scipy warns on degenerate samples (the documented rules decide those)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _corrected(p_values: list[float], correction: str | None) -> list[float]:
    testable = [p for p in p_values if not math.isnan(p)]
    if correction is None or not testable:
        return p_values
    adjusted = iter(multipletests(testable, method=correction)[1])
    return [p if math.isnan(p) else float(next(adjusted)) for p in p_values]


def _same(actual: float | None, expected: float) -> bool:
    if math.isnan(expected):
        return actual is None
    return actual is not None and actual == pytest.approx(expected, rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    frame=per_query_frames(),
    test=st.sampled_from(["t", "wilcoxon", "sign", "randomization"]),
    correction=st.sampled_from([None, "holm", "bonferroni", "fdr_bh"]),
    missing=st.sampled_from(["zero", "drop"]),
)
def test_compare_pairs_equals_scipy_or_refuses_by_name(
    frame: pl.DataFrame, test: str, correction: str | None, missing: str
) -> None:
    expected = _expected_matrix(frame, missing)
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=expected):
            rm.compare_pairs(frame, test=test, correction=correction, missing=missing)
        return
    systems, matrix = expected
    result = rm.compare_pairs(frame, test=test, correction=correction, missing=missing)
    pairs = [(i, j) for i in range(len(systems)) for j in range(i + 1, len(systems))]
    with _quiet():
        p_values = [_scipy_p(test, matrix[j], matrix[i]) for i, j in pairs]
    adjusted = _corrected(p_values, correction)
    n = matrix.shape[1]
    for row, (i, j), p, q in zip(
        result.iter_rows(named=True), pairs, p_values, adjusted, strict=True
    ):
        assert (row["system_a"], row["system_b"], row["n_queries"]) == (systems[i], systems[j], n)
        assert _same(row["p_value"], p), (row, p)
        assert _same(row["p_value_adjusted"], q), (row, q)
        assert row["significant"] == (None if math.isnan(q) else q <= 0.05)
        if n:
            assert row["delta"] == pytest.approx(matrix[j].mean() - matrix[i].mean())
        else:
            assert row["delta"] is None and row["mean_a"] is None
        if n < 2:
            assert (
                row["note"]
                == f"{n} paired {'query' if n == 1 else 'queries'}: the test is undefined"
            )


@settings(max_examples=40, deadline=None)
@given(
    frame=per_query_frames(),
    test=st.sampled_from(["t", "randomization"]),
    correction=st.sampled_from([None, "holm", "bonferroni"]),
    missing=st.sampled_from(["zero", "drop"]),
)
def test_compare_equals_scipy_or_refuses_by_name(
    frame: pl.DataFrame, test: str, correction: str | None, missing: str
) -> None:
    expected = _expected_matrix(frame, missing, baseline="b")
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=expected):
            rm.compare(frame, baseline="b", test=test, correction=correction, missing=missing)
        return
    systems, matrix = expected
    result = rm.compare(frame, baseline="b", test=test, correction=correction, missing=missing)
    order = [systems.index("b"), *(k for k, name in enumerate(systems) if name != "b")]
    base = matrix[order[0]]
    with _quiet():
        p_values = [math.nan] + [_scipy_p(test, matrix[k], base) for k in order[1:]]
    adjusted = _corrected(p_values, correction)
    for row, k, p, q in zip(result.iter_rows(named=True), order, p_values, adjusted, strict=True):
        assert row["system"] == systems[k]
        assert row["n_queries"] == matrix.shape[1]
        assert _same(row["p_value"], p), (row, p)
        assert _same(row["p_value_adjusted"], q), (row, q)
        if matrix.shape[1]:
            assert row["mean"] == pytest.approx(matrix[k].mean())
            assert row["delta"] == pytest.approx((matrix[k] - base).mean())


# The bad-input table of docs/guide/reliability.md: each row names the tests that cover it.

RELIABILITY = Path(__file__).resolve().parents[1] / "docs" / "guide" / "reliability.md"


def table_rows(heading: str) -> list[str]:
    """The first cells of the table under ``## heading`` in the reliability page."""
    section = RELIABILITY.read_text(encoding="utf-8").split(f"\n## {heading}", 1)[1]
    lines = section.split("\n## ", 1)[0].splitlines()
    return [
        line.split(" | ", 1)[0].removeprefix("| ")
        for line in lines
        if line.startswith("| ") and not line.startswith(("| Input", "| ---"))
    ]


def covered(tests: dict[str, list[str]], heading: str, home: str) -> None:
    """Every row of the table has its tests, each in ``home`` unless its file is named."""
    assert table_rows(heading) == list(tests)
    for names in tests.values():
        assert names
        for name in names:
            path, _, function = name.rpartition("::")
            source = (RELIABILITY.parents[2] / "tests" / (path or home)).read_text()
            assert f"def {function}(" in source, name


STATISTICS_TABLE = {
    'fewer than two queries (one, or none left after `missing="drop"`)': [
        "test_one_query_gives_a_null_p_value_and_says_why",
        "test_compare_on_one_query_gives_null_tests",
        "test_no_query_left_after_dropping_gives_a_null_p_value",
        "test_the_bootstrap_test_is_undefined_below_two_queries",
    ],
    "a bootstrap test whose observed mean no resample can reach (e.g. two queries that both "
    "favour one system)": ["test_a_bootstrap_p_value_at_its_floor_is_said"],
    "a ±inf per-query value on the query set": [
        "test_infinite_values_are_refused_naming_system_query_and_column",
        "test_infinite_values_outside_the_query_set_are_ignored",
        "test_infinite_or_null_keys_are_refused_in_the_system_orderings",
    ],
    "a null or NaN value, or no row, for a (system, query)": [
        "test_comparison.py::test_missing_values_filled_with_zero_are_counted",
        "test_comparison.py::test_missing_queries_dropped_for_every_system_are_counted",
        "test_compare_pairs_equals_scipy_or_refuses_by_name",
    ],
    "a duplicated (system, query) row": [
        "test_comparison.py::test_duplicate_rows_are_an_error_naming_the_pair",
        "test_a_duplicated_system_query_row_is_named",
    ],
    "a null system or query id": ["test_infinite_or_null_keys_are_refused_in_the_system_orderings"],
    "constant differences (t-test)": [
        "test_many_systems_frames.py::test_constant_differences_and_few_queries_are_said"
    ],
    "every difference 0 (Wilcoxon, sign test)": [
        "test_many_systems_frames.py::test_constant_differences_and_few_queries_are_said",
        "test_compare_pairs_equals_scipy_or_refuses_by_name",
    ],
    "fewer than two topics (`discriminative_power`, `topic_set_variance`)": [
        "test_discriminative_power_refuses_fewer_than_two_topics",
        "test_meta_topic_set_size.py::test_bad_frames_are_named",
    ],
    "a missing (system, topic) value (`discriminative_power`, `swap_rate`, `topic_set_variance`)": [
        "test_meta_topic_set_size.py::test_bad_frames_are_named"
    ],
    "a Tukey test with a `correction`": ["test_many_systems_frames.py::test_bad_inputs"],
}


def test_every_row_of_the_statistics_table_has_its_tests() -> None:
    covered(STATISTICS_TABLE, "Statistics: what odd per-query values get", Path(__file__).name)
