"""``fuse`` and ``optimize_fusion`` on odd inputs, against ranx 0.3.21.

Each test reproduces one edge case (a parameter too large for a float, a duplicate
row whose second score is NaN, a non-finite score, a grid without a valid trial);
the property at the end draws small runs with such cases and checks that every one
gives ranx's fused scores (on the runs without their non-finite rows: those are not
retrieved) or a ``ValueError`` naming the argument. The bad-input table is in the
guide's "Reliability" page.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from polars_rankmetrics.fusion import fuse
from polars_rankmetrics.fusion.methods import METHODS
from polars_rankmetrics.fusion.optimize import optimize_fusion
from tests.fusion_data import assert_same_fusion, ranx_frame

ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")

INF, NAN = math.inf, math.nan
A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
B = {"q1": {"d2": 0.9, "d4": 0.5}}
PARAMS: dict[str, dict[str, Any]] = {"gmnz": {"gamma": 0.5}, "rbc": {"phi": 0.8}}
WEIGHTED = {"wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"}


def options(method: str) -> dict[str, Any]:
    """What ``fuse`` needs besides the runs for ``method``."""
    extra = dict(PARAMS.get(method, {}))
    if method in WEIGHTED:
        extra["weights"] = [0.3, 0.7]
    return extra


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"method": "rrf", "k": 10**400}, "`k`"),
        ({"method": "wsum", "weights": [10**400, 1]}, "`weights`"),
        ({"method": "gmnz", "gamma": -(10**400)}, "`gamma`"),
        ({"method": "logn_isr", "sigma": 10**400}, "`sigma`"),
        ({"method": "probfuse", "n_segments": 10**400}, "`n_segments`"),
        ({"method": "probfuse", "n_segments": 10**12}, "`n_segments`"),
    ],
)
def test_numbers_too_large_for_a_float_are_refused_by_name(
    kwargs: dict[str, Any], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        fuse({"a": A, "b": B}, train_qrels={"q1": {"d2": 1}}, **kwargs)
    if "k" in kwargs:  # a large k that a float holds is computed, as ranx computes it
        huge = fuse({"a": A, "b": B}, method="rrf", k=10**300)
        theirs = ranx.fuse([ranx.Run(A, name="a"), ranx.Run(B, name="b")], method="rrf",
                           params={"k": 1e300})  # fmt: skip
        assert_same_fusion(huge, ranx_frame(theirs))  # three single-run documents tie


@pytest.mark.parametrize("norm", ["min-max", "borda", None])
@pytest.mark.parametrize("method", [*METHODS, "probfuse"])
def test_one_duplicate_rule_for_every_method(method: str, norm: str | None) -> None:
    extra = options(method)
    if method == "probfuse":
        extra = {"n_segments": 2, "train_qrels": {"q1": {"d2": 1}}}
    for second in (NAN, 0.1, INF):  # a duplicate whatever its score
        twice = pl.DataFrame(
            {"query": ["q1"] * 3, "doc": ["d1", "d2", "d1"], "score": [1.0, 0.5, second]}
        )
        with pytest.raises(ValueError, match=r"run 'x' has duplicate \(query, doc\) rows"):
            fuse({"y": B, "x": twice}, method=method, norm=norm, **extra)
        long = pl.concat(
            [twice.with_columns(system=pl.lit("x")), pl.DataFrame(
                {"query": ["q1"], "doc": ["d4"], "score": [0.5], "system": ["y"]})]
        )  # fmt: skip
        with pytest.raises(ValueError, match=r"run 'x' has duplicate \(query, doc\) rows"):
            fuse(long, method=method, norm=norm, **extra)


@pytest.mark.parametrize("method", ["sum", "max", "min", "wsum", "rrf", "bordafuse", "mnz"])
@pytest.mark.parametrize("norm", ["min-max", "zmuv", "borda", None])
def test_non_finite_scores_are_not_retrieved(method: str, norm: str | None) -> None:
    odd = {"q1": {"d1": -INF, "d2": 1.0, "d3": 0.0, "d5": INF, "d6": NAN}}
    clean = {"q1": {"d2": 1.0, "d3": 0.0}}
    other = {"q1": {"d2": 0.9, "d4": 0.5}}
    ours = fuse({"a": odd, "b": other}, method=method, norm=norm, **options(method))
    assert ours.equals(fuse({"a": clean, "b": other}, method=method, norm=norm, **options(method)))
    assert set(ours.get_column("doc")) == {"d2", "d3", "d4"}
    assert ours.get_column("score").is_finite().all()
    if not (norm == "borda" and method in ("rrf", "bordafuse")):  # ranx's set order
        params = dict(PARAMS.get(method, {}))
        if method in WEIGHTED:
            params["weights"] = [0.3, 0.7]
        theirs = ranx.fuse(
            [ranx.Run(clean, name="a"), ranx.Run(other, name="b")],
            norm=norm,
            method=method,
            params=params,
        )
        assert_same_fusion(ours, ranx_frame(theirs))
    lazy = fuse(
        {"a": ranx_frame(ranx.Run(odd)).drop("position").lazy(), "b": other},
        method=method,
        norm=norm,
        **options(method),
    )
    assert lazy.collect().equals(ours)


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"method": "wsum", "step": 0.3}, "`step`=0.3 gives no 2 weights"),
        ({"method": "wsum", "step": 0}, "`step` must be in"),
        ({"method": "wsum", "step": 1e-9}, "too many weight combinations"),
        ({"method": "rrf", "min_k": 50, "max_k": 10}, "`min_k` .* is above `max_k`"),
        ({"method": "rrf", "step": 0.5}, "`step` must be an integer"),
        ({"method": "rrf", "min_k": -10}, "tries -10, which fuse refuses: `k` must be >= 0"),
        ({"method": "rrf", "max_k": 10**400}, "`max_k` must be a finite number"),
        ({"method": "probfuse", "min_n_segments": 0}, "tries 0, which fuse refuses"),
        ({"method": "logn_isr", "min_sigma": -1, "max_sigma": -0.5}, "`min_sigma`=-1"),
        ({"method": "logn_isr", "max_sigma": 1.5, "step": 0.5}, "tries 1.5"),
        ({"method": "rbc", "step": NAN}, "`step` must be a finite number"),
        ({"method": "gmnz", "step": 1e-9}, "over 100,000 trials"),
    ],
)
def test_optimize_refuses_a_grid_without_a_valid_trial_up_front(
    kwargs: dict[str, Any], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        optimize_fusion({"q1": {"d2": 1}}, {"a": A, "b": B}, **kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "logn_isr", "min_sigma": 0.5, "max_sigma": 1.0, "step": 0.25},
        {"method": "rrf", "min_k": 0, "max_k": 2, "step": 1},
        {"method": "probfuse", "min_n_segments": 1, "max_n_segments": 3},
        {"method": "wsum", "step": 0.5},
    ],
)
def test_what_optimize_returns_fuse_accepts(kwargs: dict[str, Any]) -> None:
    qrels = {"q1": {"d2": 1}}
    best = optimize_fusion(qrels, {"a": A, "b": B}, **kwargs)
    assert isinstance(best, dict)
    extra = {"train_qrels": qrels} if kwargs["method"] == "probfuse" else {}
    fused = fuse({"a": A, "b": B}, method=kwargs["method"], **best, **extra)
    assert fused.height == 4


# --------------------------------------------- the property: ranx's numbers, or refused

PROPERTY_METHODS = ["sum", "min", "max", "anz", "mnz", "wsum", "rrf", "isr", "rbc", "bordafuse"]
PROPERTY_NORMS = ["min-max", "max", "sum", "zmuv", "rank", None]
ODD_SCORES = [NAN, INF, -INF, None]


@st.composite
def odd_run(draw: st.DrawFn, queries: list[str]) -> pl.DataFrame:
    """A run of ``queries``: distinct finite scores, maybe odd ones and a duplicate row."""
    rows = []
    for query in queries:
        docs = draw(st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=5, unique=True))
        eighths = st.lists(st.integers(-800, 800), min_size=len(docs), max_size=len(docs),
                           unique=True)  # fmt: skip
        scores = [value / 8 for value in draw(eighths)]
        rows += [(query, doc, score) for doc, score in zip(docs, scores, strict=True)]
    if draw(st.integers(0, 3)) == 0:
        rows.append((rows[0][0], draw(st.sampled_from("xyz")), draw(st.sampled_from(ODD_SCORES))))
    if draw(st.integers(0, 11)) == 0:
        rows.append((rows[0][0], rows[0][1], draw(st.sampled_from([1.5, NAN]))))
    return pl.DataFrame(rows, schema={"query": pl.String, "doc": pl.String, "score": pl.Float64},
                        orient="row")  # fmt: skip


def finite_nested(run: pl.DataFrame) -> dict[str, dict[str, float]]:
    kept = run.filter(pl.col("score").is_finite())
    return {q: dict(zip(g["doc"], g["score"], strict=True))
            for (q,), g in kept.group_by("query")}  # fmt: skip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    runs=st.sampled_from([["q1"], ["q1", "q2"]]).flatmap(
        lambda queries: st.lists(odd_run(queries), min_size=2, max_size=3)
    ),
    method=st.sampled_from(PROPERTY_METHODS),
    norm=st.sampled_from(PROPERTY_NORMS),
    k=st.sampled_from([60, 60, 60, 0, 1.5, 2, -1, 10**400, INF]),
    weight=st.sampled_from([0.5, 0.5, 0.25, 3.0, 0.0, -0.1, 10**400, NAN]),
)
def test_fuse_gives_ranx_numbers_or_refuses_naming_the_argument(
    runs: list[pl.DataFrame], method: str, norm: str | None, k: Any, weight: Any
) -> None:
    params: dict[str, Any] = {"rbc": {"phi": 0.7}, "rrf": {"k": k}}.get(method, {})
    weights = [weight, *[1.0] * (len(runs) - 1)] if method == "wsum" else None
    named = {f"r{i}": run for i, run in enumerate(runs)}
    try:
        ours = fuse(named, method=method, norm=norm, weights=weights, **params)  # type: ignore[arg-type]
    except (ValueError, TypeError) as error:
        message = str(error)
        assert "`k`" in message or "`weights`" in message or "duplicate" in message, message
        duplicated = any(run.select(pl.struct("query", "doc").is_duplicated().any()).item()
                         for run in runs)  # fmt: skip
        bad_k = method == "rrf" and not (isinstance(k, int | float) and 0 <= k < 1e308)
        bad_weight = method == "wsum" and not (isinstance(weight, float) and 0 <= weight < 1e308)
        assert duplicated or bad_k or bad_weight, message
        event("refused")
        return
    event("compared with ranx")
    nested = [finite_nested(run) for run in runs]
    queries = {query for run in nested for query in run}
    assume(all(set(run) == queries for run in nested))  # ranx needs one query set
    ranx_params = dict(params)
    if weights is not None:
        ranx_params["weights"] = weights
    theirs = ranx.fuse(
        [ranx.Run(run, name=name) for run, name in zip(nested, named, strict=True)],
        norm=norm,
        method=method,
        params=ranx_params,
    )
    assert_same_fusion(ours, ranx_frame(theirs))
