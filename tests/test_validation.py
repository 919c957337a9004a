"""Bad parameters fail when the expression is built; bad data fails (or is handled) at collect."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from datetime import date

import polars as pl
import pytest

import polars_rankmetrics as rm
from tests.metric_table import MEASURES, METRICS, subtopic_lists_of

BAD_K = [0, -1, 1.5, True, "3", None, 2**63, float("nan")]


# Every function of the table whose cutoff is its second, required argument.
CUTOFF_FUNCTIONS = sorted(
    {
        case.function
        for case in METRICS
        if "k" in (parameters := inspect.signature(case.function).parameters)
        and parameters["k"].default is inspect.Parameter.empty
    },
    key=lambda function: function.__name__,
)


@pytest.mark.parametrize("k", BAD_K)
@pytest.mark.parametrize("metric", CUTOFF_FUNCTIONS, ids=lambda f: f.__name__)
def test_k_must_be_a_positive_int(metric: Callable[..., pl.Expr], k: object) -> None:
    with pytest.raises(ValueError, match="`k` must be a positive int"):
        metric("relevance", k, by="score")


@pytest.mark.parametrize("k", [0, -2, 2.0])
def test_reciprocal_rank_cutoff_is_checked(k: object) -> None:
    with pytest.raises(ValueError, match="`k`"):
        rm.reciprocal_rank("relevance", k=k, by="score")  # type: ignore[arg-type]


@pytest.mark.parametrize("beta", [0, -1, math.nan, "1"])
def test_beta_must_be_positive(beta: object) -> None:
    with pytest.raises(ValueError, match="`beta` must be a finite number > 0"):
        rm.f_beta_at_k("relevance", 3, beta=beta, by="score")  # type: ignore[arg-type]


@pytest.mark.parametrize("bins", [0, -3, [], "10", True, ["a"], [0.5, math.nan], [True]])
def test_bins_must_be_positive_or_cutoffs(bins: object) -> None:
    with pytest.raises(ValueError, match="`bins`"):
        rm.binned_pr_curve("relevance", bins, by="score")  # type: ignore[arg-type]


@pytest.mark.parametrize("levels", [[-0.1], [1.5], [], [0.5, math.nan]])
def test_recall_levels_must_be_in_the_unit_interval(levels: list[float]) -> None:
    with pytest.raises(ValueError, match="`recall_levels`"):
        rm.interpolated_precision("relevance", levels, by="score")
    with pytest.raises(ValueError, match="`recall_levels`"):
        rm.interpolated_ap("relevance", levels, by="score")


def test_option_strings_are_checked() -> None:
    with pytest.raises(ValueError, match="`no_relevant` must be one of 'null', 'zero'"):
        rm.average_precision("relevance", by="score", no_relevant="skip")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`denominator`"):
        rm.ap_at_k("relevance", 3, by="score", denominator="k")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`gain`"):
        rm.ndcg_at_k("relevance", 3, by="score", gain="log")  # type: ignore[arg-type]


def test_by_and_descending_are_checked() -> None:
    with pytest.raises(ValueError, match="`descending`"):
        rm.average_precision("relevance", by=["score", "doc"], descending=[True])
    with pytest.raises(ValueError, match="`by`"):
        rm.average_precision("relevance", by=[])
    with pytest.raises(ValueError, match="`threshold`"):
        rm.average_precision("relevance", by="score", threshold=-1)
    with pytest.raises(ValueError, match="needs scores"):
        rm.pr_curve("relevance", by=None)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match="`relevance` must be a column name or a polars expression"
    ):
        rm.average_precision(3, by="score")  # type: ignore[arg-type]


def test_measures_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown measure 'MAPP@10'"):
        rm.metrics("relevance", ["MAPP@10"], by="score")
    with pytest.raises(ValueError, match="measure 'MAP@ten': the cutoff 'ten' is not a number"):
        rm.metrics("relevance", ["MAP@ten"], by="score")
    with pytest.raises(ValueError, match="duplicate"):
        rm.metrics("relevance", ["AP", "AP"], by="score")
    with pytest.raises(ValueError, match="non-empty list"):
        rm.metrics("relevance", None, by="score")  # type: ignore[arg-type]
    # One name is one measure, as in evaluate() (not its characters).
    one = pl.DataFrame({"relevance": [0, 1], "score": [2.0, 1.0]}).select(
        rm.metrics("relevance", "AP", by="score")  # type: ignore[arg-type]
    )
    assert one.unnest("relevance").to_dicts() == [{"AP": 0.5}]


def test_non_numeric_columns_fail_at_collect_naming_the_column() -> None:
    df = pl.DataFrame(
        {"score": ["a", "b"], "label": ["1", "0"], "ok": [0.5, 0.1], "day": [date(2020, 1, 1)] * 2}
    )
    bad_score = (
        r"(?s)`floor` operation not supported for dtype `(str|date)`"
        r'.*col\("(score|day)"\)'
    )
    with pytest.raises(pl.exceptions.InvalidOperationError, match=bad_score):
        df.select(rm.average_precision("ok", by="score"))
    with pytest.raises(pl.exceptions.InvalidOperationError, match=bad_score):
        df.lazy().group_by(pl.lit(1)).agg(rm.ndcg_at_k("ok", 3, by="day")).collect()
    # A string label is refused, not parsed: "1" would otherwise count as relevant.
    bad_label = r"'horizontal_mean' expects numeric expressions, found \"label\" \(dtype=str\)"
    with pytest.raises(pl.exceptions.InvalidOperationError, match=bad_label):
        df.select(rm.average_precision("label", by="ok"))
    with pytest.raises(pl.exceptions.InvalidOperationError, match=bad_label):
        df.select(rm.metrics("label", ["bpref", "map"], by="ok"))


def test_nan_scores_are_not_retrieved_and_infinite_scores_rank_normally() -> None:
    df = pl.DataFrame(
        {
            "score": [math.nan, math.inf, 1.0, -math.inf, None],
            "relevance": [1, 0, 1, 1, 1],
        }
    )
    out = df.select(
        p1=rm.precision_at_k("relevance", 1, by="score"),
        p3=rm.precision_at_k("relevance", 3, by="score"),
        r10=rm.recall_at_k("relevance", 10, by="score"),
        rr=rm.reciprocal_rank("relevance", by="score"),
    )
    # Ranking: inf (0), 1.0 (1), -inf (1); the NaN and null rows are judged, not retrieved.
    assert out.row(0) == pytest.approx((0.0, 2 / 3, 2 / 4, 1 / 2))


def test_boolean_and_float_labels() -> None:
    df = pl.DataFrame({"score": [3, 2, 1], "b": [False, True, True], "f": [0.0, 0.5, 2.5]})
    out = df.select(
        b=rm.average_precision("b", by="score"),
        f=rm.average_precision("f", by="score"),
        f_t=rm.average_precision("f", by="score", threshold=1.0),
        dcg=rm.dcg_at_k("f", 3, by="score"),
    )
    assert out.row(0) == pytest.approx(
        ((1 / 2 + 2 / 3) / 2, (1 / 2 + 2 / 3) / 2, 1 / 3, 0.5 / math.log2(3) + 2.5 / 2)
    )


def test_ties_keep_input_order_and_tie_breakers_apply() -> None:
    df = pl.DataFrame({"score": [1.0, 1.0, 1.0], "doc": ["a", "c", "b"], "relevance": [0, 0, 1]})
    assert df.select(rm.reciprocal_rank("relevance", by="score")).item() == 1 / 3
    by_doc_desc = rm.reciprocal_rank("relevance", by=["score", "doc"], descending=[True, True])
    assert df.select(by_doc_desc).item() == 1 / 2  # c, b, a


def test_rows_in_rank_order_without_by() -> None:
    df = pl.DataFrame({"relevance": [0, 1, 0, 1]})
    assert df.select(rm.average_precision("relevance")).item() == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert df.select(rm.precision_at_k("relevance", 2)).item() == 0.5


def test_ascending_scores() -> None:
    df = pl.DataFrame({"distance": [0.1, 0.9, 0.5], "relevance": [1, 0, 0]})
    assert df.select(rm.reciprocal_rank("relevance", by="distance", descending=False)).item() == 1.0
    assert df.select(rm.reciprocal_rank("relevance", by="distance")).item() == 1 / 3


def test_empty_frame() -> None:
    df = pl.DataFrame(schema={"score": pl.Float64, "relevance": pl.Int64})
    out = df.select(
        p=rm.precision_at_k("relevance", 3, by="score"),
        ap=rm.average_precision("relevance", by="score"),
    )
    assert out.row(0) == (0.0, None)
    assert df.group_by("score").agg(rm.average_precision("relevance", by="score")).height == 0


def test_average_ties_refuses_measures_without_an_exact_expectation() -> None:
    with pytest.raises(ValueError, match=r"no exact expected value for bpref, rbp;"):
        rm.metrics("relevance", ["map", "bpref", "rbp"], by="score", ties="average")
    # The tie-aware trec_eval names average exactly: same as the functions.
    df = pl.DataFrame({"score": [1.0, 0.5, 0.5, 0.5, 0.1], "relevance": [1, 0, 1, 1, 0]})
    names = ["map", "P_3", "recip_rank", "ndcg_cut_3", "num_ret", "set_P"]
    together = df.select(
        rm.metrics("relevance", names, by="score", ties="average").alias("m")
    ).unnest("m")
    expected = df.select(
        map=rm.average_precision("relevance", by="score", ties="average"),
        P_3=rm.precision_at_k("relevance", 3, by="score", ties="average"),
        recip_rank=rm.reciprocal_rank("relevance", by="score", ties="average"),
        ndcg_cut_3=rm.ndcg_at_k("relevance", 3, by="score", ties="average"),
    )
    for name in expected.columns:
        assert together[name].item() == pytest.approx(expected[name].item(), abs=1e-12)
    assert together.select("num_ret", "set_P").row(0) == (5.0, 0.6)


def test_trec_measures_follow_no_relevant_for_undefined_queries() -> None:
    df = pl.DataFrame({"score": [0.3, 0.2], "relevance": [0, -1]})
    names = ["iprec_at_recall_0.50", "11pt_avg", "Rprec_mult_0.20", "map", "bpref", "P_5"]
    null = df.select(rm.metrics("relevance", names, by="score").alias("m")).unnest("m")
    zero = df.select(
        rm.metrics("relevance", names, by="score", no_relevant="zero").alias("m")
    ).unnest("m")
    assert null.row(0) == (None, None, None, None, None, 0.0)
    assert zero.row(0) == (0.0,) * 6


def test_a_huge_bin_count_costs_nothing() -> None:
    # bins=10**12 was accepted and the process was killed for memory: with more
    # bins than rows, every rank is its own point, as with bins equal to the rows.
    df = pl.DataFrame({"score": [8, 7, 6, 5, 4], "relevance": [1, 1, 0, 1, 0]})
    huge = df.select(rm.binned_pr_curve("relevance", 10**12, by="score")).item()
    assert (
        huge.to_list() == df.select(rm.binned_pr_curve("relevance", 5, by="score")).item().to_list()
    )
    assert len(huge) == 5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"descending": 1}, "`descending` must be a bool or one bool per `by` expression"),
        ({"descending": None}, "`descending` must be a bool"),
        ({"by": 5}, "`by` must be a column name, an expression or a list of them"),
        ({"by": [5]}, "`by` must be a column name or a polars expression"),
        ({"threshold": "1"}, "`threshold` must be a finite number >= 0"),
        ({"threshold": math.inf}, "`threshold` must be a finite number >= 0"),
    ],
)
def test_ranking_options_name_the_parameter(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rm.average_precision("relevance", **{"by": "score", **kwargs})  # type: ignore[arg-type]


def test_numpy_numbers_are_accepted_as_parameters() -> None:
    import numpy as np

    df = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.1], "relevance": [1, 0, 1, 1]})
    assert df.select(rm.precision_at_k("relevance", np.int64(2), by="score")).item() == 0.5
    assert df.select(rm.average_precision("relevance", by="score", descending=np.True_)).item() == (
        df.select(rm.average_precision("relevance", by="score")).item()
    )
    numpy_bins = df.select(rm.binned_pr_curve("relevance", np.int32(2), by="score")).item()
    assert (
        numpy_bins.to_list()
        == df.select(rm.binned_pr_curve("relevance", 2, by="score")).item().to_list()
    )
    assert (
        df.select(rm.recall_at_k("relevance", 2, by="score", threshold=np.float64(0.5))).item()
        == 1 / 3
    )


def test_recall_levels_given_as_a_string_are_refused() -> None:
    with pytest.raises(ValueError, match="`recall_levels` must be a non-empty list of numbers"):
        rm.interpolated_precision("relevance", "0.5", by="score")  # type: ignore[arg-type]


def test_nan_labels_are_unjudged_like_null_labels() -> None:
    # A NaN label on an unretrieved row once made it a retrieved hit (P@3 = 1/3,
    # num_ret 3), and on a retrieved row a relevant one (nDCG NaN).
    nan = pl.DataFrame(
        {"score": [0.9, 0.8, None, 0.5], "relevance": [0.0, 1.0, math.nan, math.nan]}
    )
    null = nan.with_columns(pl.col("relevance").fill_nan(None))
    assert nan.select(rm.precision_at_k("relevance", 3, by="score")).item() == 1 / 3
    for case in METRICS:
        assert nan.select(case.expr()).equals(null.select(case.expr())), case.id
    names = [name for name, _ in MEASURES.values()]
    subtopics = subtopic_lists_of(pl.col("relevance"))  # for the diversity measures
    assert nan.select(rm.metrics("relevance", names, by="score", subtopics=subtopics)).equals(
        null.select(rm.metrics("relevance", names, by="score", subtopics=subtopics))
    )
    counts = nan.select(rm.metrics("relevance", ["num_ret", "num_rel", "relstring"], by="score"))
    assert (
        counts.item().values() if False else counts.unnest("relevance").row(0) == (3.0, 1.0, "01-")
    )
