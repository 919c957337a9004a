"""Odd inputs of the meta-evaluation family: each case of the bad-input table, and properties.

The table is the meta-evaluation part of docs/guide/reliability.md; each row has a test
here. The properties draw small rankings and score arrays with ties, ±inf, NaN, repeated
items and empty lists, and check that `rbo`, `kendall_tau` (and the other correlations),
`ranking_agreement` and `krippendorff_alpha` either give the value of their oracle (the
`rbo` package, scipy, `krippendorff`) or refuse the input with an error naming the argument.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankmetrics as rm
from polars_rankmetrics.meta_evaluation import pearson, rbo
from polars_rankmetrics.meta_evaluation.rbo import ranked_lists
from polars_rankmetrics.meta_evaluation.reproducibility import ktu, rbo_truncated
from tests.test_edge_statistics import covered
from tests.test_meta_correlation import _slow_tau_ap

stats = pytest.importorskip("scipy.stats")
rbo_package = pytest.importorskip("rbo")
krippendorff = pytest.importorskip("krippendorff")
document_order = pytest.importorskip("repro_eval.measure.document_order")

NAN, INF = math.nan, math.inf


# Null and NaN scores are not retrieved: every ranking leaves them out, in trec_eval's order.

ODD_SCORES = pl.DataFrame(
    {"query": ["q1"] * 5, "doc": ["a", "b", "c", "d", "e"], "score": [NAN, 0.5, None, 0.5, 0.9]}
)
CLEAN = {"q1": {"e": 0.9, "d": 0.5, "b": 0.5}}  # the retrieved rows, trec_eval's order


def test_ranked_lists_leave_out_null_and_nan_scores() -> None:
    assert ranked_lists(ODD_SCORES).rows() == [("q1", ["e", "d", "b"])]
    nothing = pl.DataFrame({"query": ["q1", "q2"], "doc": ["a", "b"], "score": [NAN, 1.0]})
    assert ranked_lists(nothing).rows() == [("q1", []), ("q2", ["b"])]


def test_rbo_runs_equals_the_package_on_the_retrieved_rows() -> None:
    run = pl.DataFrame({"query": ["q1"] * 3, "doc": ["a", "b", "c"], "score": [NAN, 0.5, None]})
    value = rm.rbo_runs(run, {"q1": {"b": 2.0, "a": 1.0}})["rbo"].item()
    assert value == rbo_package.RankingSimilarity(["b"], ["b", "a"]).rbo_ext(0.9)
    other = {"q1": {"d": 0.5, "e": 0.7, "b": 0.1}}
    expected = rbo_package.RankingSimilarity(["e", "d", "b"], ["e", "d", "b"]).rbo_ext(0.9)
    assert rm.rbo_runs(ODD_SCORES, other)["rbo"].item() == expected == 1.0


def test_ktu_and_rbo_of_reproduce_leave_out_null_and_nan_scores() -> None:
    reproduced = {"q1": {"d": 0.9, "e": 0.7, "b": 0.4}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected_ktu = document_order.KTU(CLEAN, reproduced, per_topic=True)["q1"]
        expected_rbo = document_order.RBO(CLEAN, reproduced, 0.95, 10, False, True)["q1"]
    assert ktu(ODD_SCORES, reproduced)["ktu"].item() == pytest.approx(expected_ktu, abs=1e-12)
    assert rbo_truncated(ODD_SCORES, reproduced, depth=10)["rbo"].item() == pytest.approx(
        expected_rbo, abs=1e-12
    )
    result = rm.reproduce({"q1": {"e": 1, "b": 1}}, ODD_SCORES, reproduced, measures=("AP",))
    assert result.per_topic["ktu"].item() == pytest.approx(expected_ktu, abs=1e-12)
    assert math.isnan(result.per_measure["p_value"].item())  # one topic: scipy's NaN


def test_the_t_tests_of_reproduce_on_one_topic_equal_scipy_without_a_warning() -> None:
    from polars_rankmetrics.meta_evaluation.reproducibility import _t_test_p

    one, three = np.array([[0.5]]), np.array([[0.2], [0.3], [0.6]])
    assert math.isnan(_t_test_p(one, np.array([[0.2]]), paired=True)[0])
    expected = stats.ttest_ind([0.5], [0.2, 0.3, 0.6]).pvalue
    assert _t_test_p(one, three, paired=False)[0] == pytest.approx(expected, abs=1e-12)


# RBO of a ranking with itself is exactly 1, and no RBO leaves [0, 1].


def test_rbo_of_a_ranking_with_itself_is_exactly_one() -> None:
    rng = np.random.default_rng(0)
    lists = [[f"d{i}" for i in rng.permutation(n)] for n in rng.integers(1, 300, 60)]
    frame = pl.DataFrame({"a": lists, "b": lists})
    for p in (0.5, 0.9, 0.99):
        assert frame.select(rbo("a", "b", p=p))["rbo"].to_list() == [1.0] * 60
    run = pl.DataFrame(
        {
            "query": [f"q{n}" for n, items in enumerate(lists) for _ in items],
            "doc": [doc for items in lists for doc in items],
            "score": [float(-i) for items in lists for i in range(len(items))],
        }
    )
    assert rm.rbo_runs(run, run)["rbo"].to_list() == [1.0] * 60


def test_a_list_with_a_null_item_is_not_identical_to_itself() -> None:
    frame = pl.DataFrame({"a": [["x", None]], "b": [["x", None]]})
    expected = rbo_package.RankingSimilarity(["x", "y"], ["x", "z"]).rbo_ext(0.9)
    assert frame.select(rbo("a", "b")).item() == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("kind", ["ext", "min", "res", "truncated"])
def test_no_rbo_leaves_the_unit_interval(kind: str) -> None:
    rng = np.random.default_rng(1)
    lists = [[f"d{i}" for i in rng.permutation(n)] for n in rng.integers(1, 400, 80)]
    shuffled = [list(items[:2]) + list(rng.permutation(items[2:])) for items in lists]
    frame = pl.DataFrame({"a": lists + lists, "b": lists + shuffled})
    for p in (0.5, 0.9, 0.99):
        values = frame.select(rbo("a", "b", p=p, kind=kind))["rbo"]
        assert values.min() >= 0.0 and values.max() <= 1.0, (kind, p)
    same = rbo_truncated({"q": {"a": 2.0, "b": 1.0}}, {"q": {"a": 2.0, "b": 1.0}}, depth=2)
    assert 0.0 <= same["rbo"].item() <= 1.0


# Correlations: ±inf is a score like any other where the statistic reads only the order.


def test_kendall_tau_with_infinite_scores_equals_scipy() -> None:
    assert rm.kendall_tau([1, INF, 2], [1, 3, 2]) == stats.kendalltau([1, INF, 2], [1, 3, 2])[0]
    assert rm.kendall_tau([-INF, INF, 2, 2], [1, 3, 2, 0], variant="a") == pytest.approx(
        (4 - 1) / 6  # one pair tied in x, one discordant: (0, 3)
    )
    assert rm.spearman([1, INF, 2], [1, 3, 2]) == pytest.approx(1.0)
    assert rm.tau_ap([1, INF, 2], [1, 3, 2]) == 1.0


def test_pearson_refuses_infinite_values_by_name() -> None:
    with pytest.raises(ValueError, match="`y` holds ±inf"):
        pearson([1.0, 2.0, 3.0], [1.0, -INF, 2.0])


def test_krippendorff_alpha_without_any_label_says_so() -> None:
    with pytest.raises(ValueError, match="at least one item labelled by two raters"):
        rm.krippendorff_alpha(np.full((2, 2), NAN))
    with pytest.raises(ValueError, match="`ratings` holds ±inf"):
        rm.krippendorff_alpha([[1.0, INF], [2.0, 3.0]])


# tau_AP with tied systems: undefined, said as tau_ap says it.


def test_ranking_agreement_refuses_ties_as_tau_ap_does() -> None:
    with pytest.raises(ValueError, match="tied scores"):
        rm.tau_ap([0.3, 0.3, 0.1], [0.2, 0.5, 0.1])
    with pytest.raises(ValueError, match=r"`scores` has tied scores.*systems 0 and 1"):
        rm.ranking_agreement([0.3, 0.3, 0.1], [0.2, 0.5, 0.1])
    with pytest.raises(ValueError, match=r"`other` has tied scores.*systems 'x' and 'z'"):
        rm.ranking_agreement([0.3, 0.2, 0.1], [0.5, 0.2, 0.5], names=["x", "y", "z"])
    others = rm.ranking_agreement([0.3, 0.3, 0.1], [0.2, 0.5, 0.1], tau_ap=False)
    assert set(others) == {"n_systems", "tau_a", "tau_b", "spearman", "pearson"}
    assert others["tau_b"] == pytest.approx(stats.kendalltau([0.3, 0.3, 0.1], [0.2, 0.5, 0.1])[0])


# The properties: a value equal to the oracle's, or an error naming the argument.

ITEMS = st.sampled_from(["a", "b", "c", "d", "e", "f"])
SCORES = st.sampled_from([0.0, 0.25, 0.5, 1.0, -1.0, INF, -INF, NAN])


@st.composite
def rankings(draw: st.DrawFn) -> list[str] | None:
    """A list of items (a repeated one now and then), empty, or null."""
    if draw(st.integers(0, 9)) == 0:
        return None
    if draw(st.integers(0, 7)) == 0:
        return draw(st.lists(ITEMS, max_size=5))
    return draw(st.lists(ITEMS, max_size=6, unique=True))


def _package_rbo(first: list[str], second: list[str], p: float, kind: str) -> float:
    if not first or not second:
        return float(not first and not second)  # the package's 1 and 0
    similarity = rbo_package.RankingSimilarity(first, second)
    return float(similarity.rbo_ext(p) if kind == "ext" else similarity.rbo(p=p))


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(st.tuples(rankings(), rankings()), min_size=1, max_size=4),
    p=st.one_of(st.sampled_from([0.5, 0.9, 0.99]), st.sampled_from([0.0, 1.0, -0.5, NAN, INF])),
    kind=st.sampled_from(["ext", "truncated", "min", "res"]),
)
def test_rbo_equals_the_package_or_refuses_by_name(
    pairs: list[tuple[list[str] | None, list[str] | None]], p: float, kind: str
) -> None:
    if not 0.0 < p < 1.0:
        with pytest.raises(ValueError, match="`p` must be"):
            rbo("a", "b", p=p, kind=kind)  # type: ignore[arg-type]
        return
    schema = {"a": pl.List(pl.String), "b": pl.List(pl.String)}
    frame = pl.DataFrame({"a": [a for a, _ in pairs], "b": [b for _, b in pairs]}, schema=schema)
    expression = rbo("a", "b", p=p, kind=kind)  # type: ignore[arg-type]
    repeated = [
        name
        for a, b in pairs
        for name, items in (("a", a), ("b", b))
        if items is not None and len(set(items)) < len(items)
    ]
    if repeated:
        named = f"`({'|'.join(sorted(set(repeated)))})` holds an item twice"
        with pytest.raises(pl.exceptions.ComputeError, match=named):
            frame.select(expression)
        return
    values = frame.select(expression)["rbo"].to_list()
    ext = frame.select(rbo("a", "b", p=p))["rbo"].to_list()
    for (a, b), value, extrapolated in zip(pairs, values, ext, strict=True):
        if a is None or b is None:
            assert value is None
            continue
        assert 0.0 <= value <= 1.0
        if kind in ("ext", "truncated"):
            assert value == pytest.approx(_package_rbo(a, b, p, kind), abs=1e-12)
        if kind == "ext" and a == b:
            assert value == 1.0
        if kind == "min" and a and b:
            assert value <= extrapolated + 1e-12
        if kind == "res" and a and b:
            low = frame.select(rbo("a", "b", p=p, kind="min"))["rbo"].to_list()
            assert all(x is None or x + y >= 0 for x, y in zip(low, values, strict=True))


def _tau_a(x: list[float], y: list[float]) -> float:
    pairs = [(i, j) for i in range(len(x)) for j in range(i + 1, len(x))]
    sign = [((x[i] > x[j]) - (x[i] < x[j])) * ((y[i] > y[j]) - (y[i] < y[j])) for i, j in pairs]
    return sum(sign) / len(pairs)


def _refusal(x: list[float], y: list[float]) -> str | None:
    """The error the correlations owe two score arrays, by the documented rules."""
    if len(x) != len(y):
        return "equal length"
    if len(x) < 2:
        return "at least two items"
    for values, name in ((x, "x"), (y, "y")):
        if any(math.isnan(v) for v in values):
            return f"`{name}` holds NaN"
        if len(set(values)) == 1:
            return f"`{name}` is constant"
    return None


@settings(max_examples=80, deadline=None)
@given(
    x=st.lists(SCORES, max_size=6),
    y=st.lists(SCORES, max_size=6),
    same_length=st.booleans(),
)
def test_correlations_equal_scipy_or_refuse_by_name(
    x: list[float], y: list[float], same_length: bool
) -> None:
    if same_length:
        y = (y + x)[: len(x)] if len(y) < len(x) else y[: len(x)]
    refusal = _refusal(x, y)
    if refusal is not None:
        for function in (rm.kendall_tau, rm.spearman, pearson):
            with pytest.raises(ValueError, match=refusal):
                function(x, y)
        named = refusal.replace("`x`", "`scores`").replace("`y`", "`other`")
        with pytest.raises(ValueError, match=named.replace("items", "systems")):
            rm.ranking_agreement(x, y)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tau_b = stats.kendalltau(x, y).statistic
        rho = stats.spearmanr(x, y).statistic
    assert rm.kendall_tau(x, y) == pytest.approx(tau_b, abs=1e-12)
    assert rm.kendall_tau(x, y, variant="a") == pytest.approx(_tau_a(x, y), abs=1e-12)
    assert rm.spearman(x, y) == pytest.approx(rho, abs=1e-12)
    infinite = next((n for n, v in (("x", x), ("y", y)) if any(map(math.isinf, v))), None)
    if infinite is not None:
        with pytest.raises(ValueError, match=f"`{infinite}` holds ±inf"):
            pearson(x, y)
        with pytest.raises(ValueError, match=r"`(scores|other)` holds ±inf"):
            rm.ranking_agreement(x, y)
        return
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    tied = next((n for n, v in (("scores", x), ("other", y)) if len(set(v)) < len(v)), None)
    if tied is not None:
        with pytest.raises(ValueError, match=f"`{tied}` has tied scores"):
            rm.ranking_agreement(x, y)
        return
    agreement = rm.ranking_agreement(x, y)
    assert agreement["tau_b"] == pytest.approx(tau_b, abs=1e-12)
    assert agreement["tau_ap"] == pytest.approx(
        (_slow_tau_ap(np.array(x), np.array(y)) + _slow_tau_ap(np.array(y), np.array(x))) / 2
    )


LABELS = st.sampled_from([0.0, 1.0, 2.0, 3.0, NAN, NAN, INF])


@settings(max_examples=80, deadline=None)
@given(
    ratings=st.integers(0, 5).flatmap(
        lambda n: st.lists(st.lists(LABELS, min_size=n, max_size=n), min_size=1, max_size=3)
    ),
    level=st.sampled_from(["nominal", "ordinal", "interval"]),
)
def test_krippendorff_alpha_equals_the_package_or_refuses_by_name(
    ratings: list[list[float]], level: str
) -> None:
    matrix = np.array(ratings, dtype=np.float64).T  # items x raters
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] < 2:
        with pytest.raises(ValueError, match="`ratings` must be a 2-d array"):
            rm.krippendorff_alpha(matrix, level=level)  # type: ignore[arg-type]
        return
    if np.isinf(matrix).any():
        with pytest.raises(ValueError, match="`ratings` holds ±inf"):
            rm.krippendorff_alpha(matrix, level=level)  # type: ignore[arg-type]
        return
    if not ((~np.isnan(matrix)).sum(axis=1) >= 2).any():
        with pytest.raises(ValueError, match="at least one item labelled by two raters"):
            rm.krippendorff_alpha(matrix, level=level)  # type: ignore[arg-type]
        return
    value = rm.krippendorff_alpha(matrix, level=level)  # type: ignore[arg-type]
    paired = matrix[(~np.isnan(matrix)).sum(axis=1) >= 2]
    if np.unique(paired[~np.isnan(paired)]).size == 1:
        assert math.isnan(value)  # one label throughout: 0 / 0 (the package raises)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = krippendorff.alpha(reliability_data=matrix.T, level_of_measurement=level)
    assert value == pytest.approx(expected, abs=1e-12, nan_ok=True)


@settings(max_examples=60, deadline=None)
@given(
    ratings=st.integers(0, 5).flatmap(
        lambda n: st.lists(st.lists(LABELS, min_size=n, max_size=n), min_size=2, max_size=3)
    ),
    weights=st.sampled_from([None, "linear", "quadratic"]),
)
def test_kappas_equal_scikit_learn_and_statsmodels_or_refuse_by_name(
    ratings: list[list[float]], weights: str | None
) -> None:
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

    matrix = np.array(ratings, dtype=np.float64).T  # items x raters
    first, second = matrix[:, 0], matrix[:, 1]
    if matrix.shape[0] == 0:
        with pytest.raises(ValueError, match="`labels` must be a non-empty"):
            rm.cohen_kappa(first, second, weights=weights)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="`ratings` must be a 2-d array"):
            rm.fleiss_kappa(matrix)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if np.isfinite(matrix).all():
            fleiss = statsmodels_fleiss(aggregate_raters(matrix)[0])
            assert rm.fleiss_kappa(matrix) == pytest.approx(fleiss, abs=1e-12, nan_ok=True)
        else:
            with pytest.raises(ValueError, match=r"`ratings` holds (NaN|±inf)"):
                rm.fleiss_kappa(matrix)
        odd = [
            (n, v) for n, v in (("labels", first), ("other", second)) if not np.isfinite(v).all()
        ]
        if odd:
            name, values = odd[0]
            reason = "holds NaN" if np.isnan(values).any() else "holds ±inf"
            with pytest.raises(ValueError, match=f"`{name}` {reason}"):
                rm.cohen_kappa(first, second, weights=weights)  # type: ignore[arg-type]
            return
        expected = cohen_kappa_score(first, second, weights=weights)
    value = rm.cohen_kappa(first, second, weights=weights)  # type: ignore[arg-type]
    assert value == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_compare_qrels_names_the_runs_that_tie() -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    runs = {
        "bm25": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}},
        "dense": {"q1": {"a": 3.0, "b": 1.0}, "q2": {"c": 2.0}},  # the same ranking
        "worse": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"x": 1.0}},
    }
    with pytest.raises(ValueError, match="`scores` has tied scores \\(systems 'bm25' and 'dense'"):
        rm.compare_qrels(qrels, qrels, runs, measure="AP")


# The bad-input table of docs/guide/reliability.md: each row names the tests that cover it.

META_TABLE = {
    "a null or NaN score in a run (`rbo_runs`, `ranked_lists`, `reproduce`'s KTU and RBO)": [
        "test_ranked_lists_leave_out_null_and_nan_scores",
        "test_rbo_runs_equals_the_package_on_the_retrieved_rows",
        "test_ktu_and_rbo_of_reproduce_leave_out_null_and_nan_scores",
    ],
    'a ranking compared with itself (`rbo`, `kind="ext"`)': [
        "test_rbo_of_a_ranking_with_itself_is_exactly_one",
        "test_rbo_equals_the_package_or_refuses_by_name",
    ],
    "any RBO": [
        "test_no_rbo_leaves_the_unit_interval",
        "test_rbo_equals_the_package_or_refuses_by_name",
    ],
    "a null item in a ranking": [
        "test_a_list_with_a_null_item_is_not_identical_to_itself",
        "test_meta_rbo.py::test_blocks_of_rows_and_null_items",
    ],
    "a ranking that repeats an item (`rbo`)": [
        "test_meta_rbo.py::test_duplicate_items_are_refused_naming_the_column",
        "test_rbo_equals_the_package_or_refuses_by_name",
    ],
    "±inf scores (`kendall_tau`, `spearman`, `tau_ap`, `smare`)": [
        "test_kendall_tau_with_infinite_scores_equals_scipy",
        "test_correlations_equal_scipy_or_refuse_by_name",
    ],
    "±inf scores (`pearson`, `ranking_agreement`)": [
        "test_pearson_refuses_infinite_values_by_name",
        "test_correlations_equal_scipy_or_refuse_by_name",
    ],
    "NaN scores, fewer than two items, a constant side (correlations, `ranking_agreement`)": [
        "test_meta_correlation.py::test_bad_inputs",
        "test_correlations_equal_scipy_or_refuse_by_name",
    ],
    "tied systems (`tau_ap`, `ranking_agreement`, `compare_qrels` with runs)": [
        "test_ranking_agreement_refuses_ties_as_tau_ap_does",
        "test_compare_qrels_names_the_runs_that_tie",
    ],
    "every label missing, or no item with two labels (`krippendorff_alpha`)": [
        "test_krippendorff_alpha_without_any_label_says_so",
        "test_krippendorff_alpha_equals_the_package_or_refuses_by_name",
    ],
    "a ±inf label (`krippendorff_alpha`, `fleiss_kappa`, `cohen_kappa`)": [
        "test_krippendorff_alpha_without_any_label_says_so",
        "test_krippendorff_alpha_equals_the_package_or_refuses_by_name",
        "test_kappas_equal_scikit_learn_and_statsmodels_or_refuse_by_name",
    ],
    "one label value throughout (κ, α)": [
        "test_meta_agreement.py::test_one_label_throughout_gives_nan_kappa_as_documented",
        "test_krippendorff_alpha_equals_the_package_or_refuses_by_name",
        "test_kappas_equal_scikit_learn_and_statsmodels_or_refuse_by_name",
    ],
    "one topic (`reproduce`'s t-test)": [
        "test_the_t_tests_of_reproduce_on_one_topic_equal_scipy_without_a_warning"
    ],
}


def test_every_row_of_the_meta_evaluation_table_has_its_tests() -> None:
    heading = "Meta-evaluation: what odd rankings, scores and labels get"
    covered(META_TABLE, heading, "test_edge_meta.py")
