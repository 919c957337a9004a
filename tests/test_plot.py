"""Charts: the points against independent references, the specs, and a rendered PNG."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import altair as alt
import numpy as np
import polars as pl
import pytest
from sklearn.metrics import precision_recall_curve

import polars_rankmetrics as rm


def _rankings(seed: int = 0, n_queries: int = 6, n_docs: int = 12) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    frames = []
    for system, shift in (("bm25", 0.0), ("dense", 1.0)):
        for query in range(n_queries):
            relevance = (rng.random(n_docs) < 0.3).astype(np.int64)
            relevance[query % n_docs] = 1  # every query has a relevant document
            frames.append(
                pl.DataFrame(
                    {
                        "system": system,
                        "query": f"q{query}",
                        "doc": [f"d{i}" for i in range(n_docs)],
                        "score": np.round(rng.normal(size=n_docs) + shift * relevance, 1),
                        "relevance": relevance,
                    }
                )
            )
    return pl.concat(frames)


def _slow_interpolated(scores: list[float], relevance: list[int]) -> list[float]:
    """11-point interpolated precision of one ranking, textbook definition, in a loop."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    n_relevant = sum(1 for r in relevance if r > 0)
    points = []
    hits = 0
    for rank, index in enumerate(order, start=1):
        hits += relevance[index] > 0
        points.append((hits / n_relevant, hits / rank))
    return [
        max([p for r, p in points if r >= level - 1e-12], default=0.0)
        for level in (i / 10 for i in range(11))
    ]


def _spec(chart: Any) -> dict[str, Any]:
    spec: dict[str, Any] = chart.to_dict()
    return spec


def test_interpolated_mean_curves_equal_a_slow_reference() -> None:
    rankings = _rankings()
    chart = rm.pr_curve_chart(rankings)
    assert isinstance(chart, alt.Chart)
    data = chart.data
    assert isinstance(data, pl.DataFrame)
    for system in ("bm25", "dense"):
        curves = [
            _slow_interpolated(group["score"].to_list(), group["relevance"].to_list())
            for _, group in rankings.filter(pl.col("system") == system).group_by("query")
        ]
        expected = np.mean(curves, axis=0)
        got = data.filter(pl.col("system") == system).sort("recall")
        assert got["recall"].to_list() == pytest.approx([i / 10 for i in range(11)])
        assert got["precision"].to_numpy() == pytest.approx(expected)
        assert (got["n_queries"] == 6).all()


def test_curve_chart_spec_axes_legend_and_title() -> None:
    spec = _spec(rm.pr_curve_chart(_rankings()))
    encoding = spec["encoding"]
    assert spec["mark"]["type"] == "line"
    assert encoding["x"]["field"] == "recall"
    assert encoding["y"]["field"] == "precision"
    assert encoding["x"]["scale"]["domain"] == [0, 1]
    assert encoding["y"]["scale"]["domain"] == [0, 1]
    assert encoding["color"] == {
        "field": "system",
        "type": "nominal",
        "title": "System",
        "sort": None,
    }
    assert spec["title"] == (
        "11-point interpolated precision-recall (textbook interpolation), mean over 6 queries"
    )


def test_exact_per_query_curves_equal_scikit_learn() -> None:
    one_system = _rankings().filter(pl.col("system") == "dense")
    chart = rm.pr_curve_chart(one_system, kind="exact", per_query=True, title="Dense")
    spec = _spec(chart)
    assert spec["encoding"]["color"]["field"] == "query"
    assert spec["mark"]["interpolate"] == "step-before"
    assert spec["title"] == "Dense"
    data = chart.data
    for (query,), group in one_system.group_by("query"):
        precision, recall, _ = precision_recall_curve(group["relevance"], group["score"])
        # scikit-learn runs from the lowest threshold up and appends (recall 0, precision 1).
        got = data.filter(pl.col("query") == query).sort("point")
        assert got["precision"].to_numpy() == pytest.approx(precision[:-1][::-1])
        assert got["recall"].to_numpy() == pytest.approx(recall[:-1][::-1])


def test_exact_curves_of_pooled_rankings_per_system() -> None:
    rankings = _rankings()
    data = rm.pr_curve_chart(rankings, kind="exact", query=None).data
    for system in ("bm25", "dense"):
        rows = rankings.filter(pl.col("system") == system)
        precision, recall, _ = precision_recall_curve(rows["relevance"], rows["score"])
        got = data.filter(pl.col("system") == system).sort("point")
        assert got["precision"].to_numpy() == pytest.approx(precision[:-1][::-1])
        assert got["recall"].to_numpy() == pytest.approx(recall[:-1][::-1])


def test_curve_chart_parameter_errors() -> None:
    rankings = _rankings()
    with pytest.raises(ValueError, match="`kind`"):
        rm.pr_curve_chart(rankings, kind="roc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="query=None"):
        rm.pr_curve_chart(rankings, kind="exact")
    with pytest.raises(ValueError, match="one system's queries"):
        rm.pr_curve_chart(rankings, per_query=True)
    with pytest.raises(ValueError, match="`system`: column 'run'"):
        rm.pr_curve_chart(rankings, system="run")


def test_delta_chart_data_sorted_and_coloured_by_sign() -> None:
    per_query = pl.DataFrame(
        {
            "system": ["a"] * 4 + ["b"] * 4,
            "query": ["q1", "q2", "q3", "q4"] * 2,
            "ap": [0.2, 0.5, 0.4, 0.1, 0.6, 0.5, 0.1, 0.3],
        }
    )
    chart = rm.query_delta_chart(per_query, metric="ap", baseline="a")
    assert isinstance(chart, alt.Chart)
    data = chart.data
    assert data["query"].to_list() == ["q1", "q4", "q2", "q3"]
    assert data["delta"].to_list() == pytest.approx([0.4, 0.2, 0.0, -0.3])
    assert data["change"].to_list() == ["better", "better", "unchanged", "worse"]
    spec = _spec(chart)
    assert spec["mark"]["type"] == "bar"
    assert spec["encoding"]["color"]["field"] == "change"
    assert spec["encoding"]["y"]["scale"]["domain"] == pytest.approx([-0.42, 0.42])
    assert spec["title"] == "Per-query Δ ap: b vs a"


def test_delta_chart_facets_several_systems_and_fills_missing() -> None:
    per_query = pl.DataFrame(
        {
            "system": ["a", "a", "b", "c", "c"],
            "query": ["q1", "q2", "q1", "q1", "q2"],
            "ap": [0.2, 0.5, 0.6, 0.1, 0.5],
        }
    )
    chart = rm.query_delta_chart(per_query, metric="ap", baseline="a")
    assert isinstance(chart, alt.FacetChart)
    assert _spec(chart)["facet"]["row"]["field"] == "system"
    b = chart.data.filter(pl.col("system") == "b")
    assert b["delta"].to_list() == pytest.approx([0.4, -0.5])  # q2 missing: scored 0
    with pytest.raises(ValueError, match="`metric`"):
        rm.query_delta_chart(per_query, metric="map", baseline="a")


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert header[12:16] == b"IHDR"
    width, height = struct.unpack(">II", header[16:24])
    return int(width), int(height)


def test_rendered_png_is_valid_and_sensibly_sized(tmp_path: Path) -> None:
    path = tmp_path / "curves.png"
    rm.pr_curve_chart(_rankings()).save(str(path))
    width, height = _png_size(path)
    assert 400 <= width <= 2000
    assert 300 <= height <= 1500
    assert path.stat().st_size > 10_000  # lines, axes and legend, not an empty canvas
