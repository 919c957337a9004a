"""Charts for comparing systems, drawn with Altair (the backend of ``df.plot``).

- :func:`pr_curve_chart`: precision-recall curves, exact or 11-point
  interpolated, of several systems overlaid or of one system's queries.
- :func:`query_delta_chart`: per-query differences of a metric to a baseline,
  sorted, as bars.
- :func:`save_chart`: write a chart to a file atomically (what ``rankmetrics
  plot`` does).

The curves are computed with the core expressions
(:func:`polars_rankmetrics.pr_curve`, :func:`polars_rankmetrics.interpolated_precision`);
Altair only draws them. Needs the ``plot`` extra (altair, and vl-convert-python
to save PNG or SVG with ``rm.save_chart(chart, "curves.png")`` or ``chart.save``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import polars as pl

from polars_rankmetrics._atomic import replacing
from polars_rankmetrics._validate import IntoExpr, check_choice
from polars_rankmetrics.metrics.curves import ELEVEN_POINTS, interpolated_precision, pr_curve

if TYPE_CHECKING:
    import altair

CurveKind: TypeAlias = Literal["interpolated", "exact"]
"""An exact curve (one point per distinct score), or 11-point interpolated precision."""

_WIDTH = 420
_HEIGHT = 320


def _altair() -> Any:
    try:
        import altair
    except ImportError as error:  # pragma: no cover - depends on the environment
        msg = "charts need altair: pip install 'polars_rankmetrics[plot]'"
        raise ImportError(msg) from error
    return altair


def _check_column(frame: pl.DataFrame, name: str | None, role: str) -> None:
    if name is not None and name not in frame.columns:
        msg = (
            f"`{role}`: column {name!r} not found; the columns are {frame.columns} "
            f"(pass {role}=None if there is no such column)"
        )
        raise ValueError(msg)


def _unit_axis(title: str) -> dict[str, Any]:
    """An axis over [0, 1] that shows every label whole, 0.0 and 1.0 included.

    Vega-Lite aligns the end labels inside the plot (``labelFlush``), where the
    legend beside it clipped "1.0"; centred on their ticks, the chart's padding
    makes room for them. ``labelOverlap`` never drops an end label.
    """
    return {
        "title": title,
        "scale": {"domain": [0, 1], "nice": False},
        "axis": {"labelFlush": False, "labelOverlap": False, "labelBound": False, "tickCount": 10},
    }


def pr_curve_chart(
    rankings: pl.DataFrame | pl.LazyFrame,
    *,
    relevance: str = "relevance",
    by: IntoExpr | Sequence[IntoExpr] = "score",
    system: str | None = "system",
    query: str | None = "query",
    kind: CurveKind = "interpolated",
    per_query: bool = False,
    threshold: float = 0,
    title: str | None = None,
) -> altair.Chart:
    """
    Precision-recall curves as an Altair line chart, recall and precision in [0, 1].

    ``rankings`` has one row per (system, query, document) with a relevance
    label and a score, like the input of every metric (a full join of a run
    with its qrels: unretrieved relevant rows have a null score and count in R).

    - ``kind="interpolated"``: interpolated precision at the 11 recall levels
      0.0, 0.1, ..., 1.0 (:func:`polars_rankmetrics.interpolated_precision`),
      averaged over the queries that have a relevant document, per system.
    - ``kind="exact"``: the exact curve (:func:`polars_rankmetrics.pr_curve`),
      one point per distinct score, drawn as a step function whose area is the
      average precision. Per system this needs one ranking, so use
      ``query=None`` (every row of a system is one ranking, as for a classifier)
      or ``per_query=True``.
    - ``per_query=True`` draws one curve per query of a single system, coloured
      by query.

    Systems (or queries) are told apart by colour, with a legend.

    Parameters
    ----------
    rankings
        One row per ranked (or judged) document.
    relevance
        The relevance column.
    by
        The score; see :func:`polars_rankmetrics.pr_curve`.
    system
        The column naming the system, or ``None`` for a single system.
    query
        The column naming the query, or ``None`` when all rows form one ranking.
    kind : {'interpolated', 'exact'}
        Which curve.
    per_query
        One curve per query of a single system instead of one per system.
    threshold
        Labels above this value are relevant.
    title
        The chart title; a description of the curves by default.

    Returns
    -------
    altair.Chart
        A line chart; ``rm.save_chart(chart, "curves.png")`` writes it
        atomically (PNG and SVG need vl-convert-python), and ``chart.data``
        holds the points as a polars frame.

    Examples
    --------
    >>> rankings = pl.DataFrame(
    ...     {
    ...         "system": ["bm25"] * 6 + ["dense"] * 6,
    ...         "query": ["q1", "q1", "q1", "q2", "q2", "q2"] * 2,
    ...         "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0] * 2,
    ...         "relevance": [0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0],
    ...     }
    ... )
    >>> chart = rm.pr_curve_chart(rankings)
    >>> chart.data.filter(pl.col("recall") == 0.5)
    shape: (2, 4)
    ┌────────┬────────┬───────────┬───────────┐
    │ system ┆ recall ┆ precision ┆ n_queries │
    │ ---    ┆ ---    ┆ ---       ┆ ---       │
    │ str    ┆ f64    ┆ f64       ┆ u32       │
    ╞════════╪════════╪═══════════╪═══════════╡
    │ bm25   ┆ 0.5    ┆ 0.833333  ┆ 2         │
    │ dense  ┆ 0.5    ┆ 1.0       ┆ 2         │
    └────────┴────────┴───────────┴───────────┘
    """
    alt = _altair()
    check_choice(kind, "kind", CurveKind)
    if not isinstance(per_query, bool):
        msg = f"`per_query` must be a bool, got {per_query!r}"
        raise ValueError(msg)
    frame = rankings.collect() if isinstance(rankings, pl.LazyFrame) else rankings
    for name, role in ((relevance, "relevance"), (system, "system"), (query, "query")):
        _check_column(frame, name, role)
    if per_query and query is None:
        msg = "`per_query=True` needs a `query` column"
        raise ValueError(msg)
    if kind == "exact" and query is not None and not per_query:
        msg = (
            "`kind='exact'` draws one ranking per curve: pass query=None to rank all of a "
            "system's rows together, per_query=True for one curve per query, or "
            "kind='interpolated' to average over queries"
        )
        raise ValueError(msg)
    series = "_system" if system is None else system
    if system is None:
        frame = frame.with_columns(pl.lit("ranking").alias(series))
    frame = frame.with_columns(pl.col(series).cast(pl.String))
    if per_query:
        systems = frame[series].unique(maintain_order=True).to_list()
        if len(systems) != 1:
            msg = f"`per_query=True` draws one system's queries; got systems {systems}"
            raise ValueError(msg)
    assert query is not None or not per_query
    groups = [series, query] if query is not None else [series]
    colour = query if per_query else series
    assert colour is not None

    if kind == "interpolated":
        points = _interpolated_points(frame, groups, relevance, by, threshold)
        n_queries = points[query].n_unique() if query is not None else 1
        if not per_query:
            points = (
                points.group_by(series, "recall", maintain_order=True)
                .agg(pl.col("precision").mean(), n_queries=pl.len())
                .sort(series, "recall", maintain_order=True)
            )
        shape = "linear"
        what = "11-point interpolated precision-recall (textbook interpolation)"
        default_title = (
            f"{what} curves of {systems[0]}, per query"
            if per_query
            else f"{what}, mean over {n_queries} {'query' if n_queries == 1 else 'queries'}"
        )
    else:
        points = _exact_points(frame, groups, relevance, by, threshold)
        shape = "step-before"
        default_title = (
            f"Precision-recall curves of {systems[0]}, per query"
            if per_query
            else "Precision-recall curves"
        )
    if per_query:
        points = points.drop(series)
    legend_title = "Query" if per_query else ("System" if system is not None else "Ranking")
    encoding: dict[str, Any] = {
        "x": alt.X("recall:Q", **_unit_axis("Recall")),
        "y": alt.Y("precision:Q", **_unit_axis("Precision")),
        "color": alt.Color(f"{colour}:N", title=legend_title, sort=None),
        "order": alt.Order("point:Q") if "point" in points.columns else alt.Order("recall:Q"),
        "tooltip": [
            f"{colour}:N",
            alt.Tooltip("recall:Q", format=".3f"),
            alt.Tooltip("precision:Q", format=".3f"),
        ],
    }
    chart: altair.Chart = (
        alt.Chart(points, title=title or default_title)
        # Markers help on short curves and bury long ones.
        .mark_line(point=points.height <= 300, interpolate=shape, clip=True)
        .encode(**encoding)
        .properties(width=_WIDTH, height=_HEIGHT)
    )
    return chart


IPREC = "iprec_at_recall"
"""trec_eval's 11-point interpolated precision: ``iprec_at_recall_0.00`` to ``_1.00``."""


def iprec_curves(
    per_query: pl.DataFrame, *, missing: str = "zero", title: str | None = None
) -> altair.Chart:
    """trec_eval's ``iprec_at_recall`` curves: the means of ``rm.evaluate``'s per-query values.

    ``per_query`` holds ``system, query`` and the eleven ``iprec_at_recall_*``
    columns, as ``rankmetrics compare`` evaluates them (one query set for every
    run): each point is then the value ``rankmetrics trec-eval`` prints. A
    query a system lacks scores 0 (``missing='zero'``) or is dropped for every
    system (``'drop'``), as in :func:`polars_rankmetrics.compare`.
    """
    alt = _altair()
    levels = [name for name in per_query.columns if name.startswith(IPREC)]
    wide = per_query.select("system", "query", *levels)
    systems = wide.get_column("system").unique(maintain_order=True)
    queries = wide.get_column("query").unique()
    if missing == "drop":
        common = wide.group_by("query").agg(pl.len()).filter(pl.col("len") == systems.len())
        wide = wide.join(common.select("query"), on="query", how="semi")
    else:
        grid = pl.DataFrame({"system": systems}).join(pl.DataFrame({"query": queries}), how="cross")
        wide = grid.join(wide, on=["system", "query"], how="left").fill_null(0.0)
    n_queries = wide.get_column("query").n_unique()
    points = (
        wide.group_by("system", maintain_order=True)
        .agg(pl.col(levels).mean())
        .unpivot(index="system", variable_name="level", value_name="precision")
        .with_columns(recall=pl.col("level").str.strip_prefix(IPREC + "_").cast(pl.Float64))
        .select("system", "recall", "precision", pl.lit(n_queries).alias("n_queries"))
        .sort("system", "recall", maintain_order=True)
    )
    shown = f"{n_queries} {'query' if n_queries == 1 else 'queries'}"
    default_title = (
        f"trec_eval's 11-point interpolated precision (iprec_at_recall), mean over {shown}"
    )
    encoding: dict[str, Any] = {
        "x": alt.X("recall:Q", **_unit_axis("Recall")),
        "y": alt.Y("precision:Q", **_unit_axis("Precision")),
        "color": alt.Color("system:N", title="System", sort=None),
        "order": alt.Order("recall:Q"),
        "tooltip": [
            "system:N",
            alt.Tooltip("recall:Q", format=".2f"),
            alt.Tooltip("precision:Q", format=".4f"),
        ],
    }
    chart: altair.Chart = (
        alt.Chart(points, title=title or default_title)
        .mark_line(point=True, clip=True)
        .encode(**encoding)
        .properties(width=_WIDTH, height=_HEIGHT)
    )
    return chart


def _interpolated_points(
    frame: pl.DataFrame,
    groups: list[str],
    relevance: str,
    by: IntoExpr | Sequence[IntoExpr],
    threshold: float,
) -> pl.DataFrame:
    """One row per (group, recall level): the interpolated precision."""
    return (
        frame.group_by(groups, maintain_order=True)
        .agg(
            precision=interpolated_precision(relevance, by=by, threshold=threshold),
        )
        .drop_nulls("precision")  # queries without a relevant document have no curve
        .with_columns(recall=pl.lit(pl.Series(ELEVEN_POINTS)).implode())
        .explode("precision", "recall")
        .select(*groups, "recall", "precision")
    )


def _exact_points(
    frame: pl.DataFrame,
    groups: list[str],
    relevance: str,
    by: IntoExpr | Sequence[IntoExpr],
    threshold: float,
) -> pl.DataFrame:
    """One row per point of each group's exact curve, ``point`` numbering them."""
    curves = frame.group_by(groups, maintain_order=True).agg(
        curve=pr_curve(relevance, by=by, threshold=threshold)
    )
    return (
        curves.explode("curve")
        .drop_nulls("curve")
        .unnest("curve")
        .drop_nulls("recall")  # no relevant document: recall is undefined
        .with_columns(point=pl.int_range(pl.len()).over(groups))
        .select(*groups, "point", "threshold", "recall", "precision")
    )


def query_delta_chart(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    metric: str,
    baseline: str,
    system: str = "system",
    query: str = "query",
    queries: Sequence[Any] | pl.Series | None = None,
    missing: Literal["zero", "drop"] = "zero",
    title: str | None = None,
) -> altair.Chart | altair.FacetChart:
    """
    Per-query difference of a metric to the baseline, sorted, as bars.

    For each system other than the baseline, one bar per query of
    ``metric(system) - metric(baseline)``, sorted from the largest gain to the
    largest loss and coloured by sign (with a legend), so the share of queries
    that improve and by how much can be read at a glance. The query set and
    missing values follow :func:`polars_rankmetrics.compare`. Several systems
    give one row of bars each.

    Parameters
    ----------
    per_query
        One row per (system, query), one numeric column per metric.
    metric
        The metric column to draw.
    baseline
        The system the others are compared with.
    system
        The column naming the system.
    query
        The column naming the query.
    queries
        The query set; ``None`` means every query in ``per_query``.
    missing : {'zero', 'drop'}
        What a missing (system, query) value becomes.
    title
        The chart title; a description by default.

    Returns
    -------
    altair.Chart or altair.FacetChart
        A bar chart, faceted by system when more than one is compared; its
        data (``chart.data``) holds ``system, query, delta, change``.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["bm25"] * 3 + ["dense"] * 3,
    ...         "query": ["q1", "q2", "q3"] * 2,
    ...         "ap": [0.2, 0.4, 0.5, 0.5, 0.3, 0.5],
    ...     }
    ... )
    >>> rm.query_delta_chart(per_query, metric="ap", baseline="bm25").data
    shape: (3, 4)
    ┌────────┬───────┬───────┬───────────┐
    │ system ┆ query ┆ delta ┆ change    │
    │ ---    ┆ ---   ┆ ---   ┆ ---       │
    │ str    ┆ str   ┆ f64   ┆ str       │
    ╞════════╪═══════╪═══════╪═══════════╡
    │ dense  ┆ q1    ┆ 0.3   ┆ better    │
    │ dense  ┆ q3    ┆ 0.0   ┆ unchanged │
    │ dense  ┆ q2    ┆ -0.1  ┆ worse     │
    └────────┴───────┴───────┴───────────┘
    """
    from polars_rankmetrics.comparisons.comparison import Missing, _query_set, align, prepare

    alt = _altair()
    check_choice(missing, "missing", Missing)
    frame, systems = prepare(per_query, baseline=baseline, system=system, query=query)
    if metric not in frame.columns or not frame.schema[metric].is_numeric():
        msg = f"`metric`: {metric!r} is not a numeric column; the columns are {frame.columns}"
        raise ValueError(msg)
    if len(systems) < 2:
        msg = f"`per_query` has only the baseline {baseline!r}; nothing to compare"
        raise ValueError(msg)
    aligned = align(
        frame,
        metric,
        systems,
        _query_set(frame, query, queries),
        system=system,
        query=query,
        missing=missing,
    )
    query_names = aligned.queries.cast(pl.String).to_list()
    deltas = pl.concat(
        pl.DataFrame(
            {
                "system": name,
                "query": query_names,
                "delta": aligned.values[index] - aligned.values[0],
            },
            schema={"system": pl.String, "query": pl.String, "delta": pl.Float64},
        ).sort("delta", descending=True, maintain_order=True)
        for index, name in enumerate(systems)
        if index > 0
    ).with_columns(
        change=pl.when(pl.col("delta") > 0)
        .then(pl.lit("better"))
        .when(pl.col("delta") < 0)
        .then(pl.lit("worse"))
        .otherwise(pl.lit("unchanged"))
    )
    largest = float(deltas.select(pl.col("delta").abs().max()).item() or 0.0)
    extent = largest * 1.05 if largest > 0 else 1.0
    few = len(query_names) <= 40
    bars = (
        alt.Chart(deltas)
        .mark_bar()
        .encode(
            x=alt.X(
                "query:N",
                sort=alt.EncodingSortField("delta", order="descending"),
                title=f"Queries, sorted by Δ ({len(query_names)})",
                axis=alt.Axis(labels=few, ticks=few, labelAngle=-60),
            ),
            y=alt.Y(
                "delta:Q",
                title=f"Δ {metric} vs {baseline}",
                scale=alt.Scale(domain=[-extent, extent]),
            ),
            color=alt.Color(
                "change:N",
                title="Change",
                scale=alt.Scale(
                    domain=["better", "unchanged", "worse"],
                    range=["#2e7d32", "#9e9e9e", "#c62828"],
                ),
            ),
            tooltip=["system:N", "query:N", alt.Tooltip("delta:Q", format="+.4f")],
        )
        .properties(width=_WIDTH + 80, height=_HEIGHT // (1 if len(systems) == 2 else 2))
    )
    others = systems[1:]
    default_title = f"Per-query Δ {metric}: {', '.join(others)} vs {baseline}"
    if len(others) == 1:
        chart: altair.Chart = bars.properties(title=title or default_title)
        return chart
    faceted: altair.FacetChart = bars.facet(
        row=alt.Row("system:N", title=None, sort=others), title=title or default_title
    ).resolve_scale(x="independent")
    return faceted


def save_chart(chart: Any, path: str | Path, **options: Any) -> None:
    """
    Write a chart to a file atomically: a temporary file in the same folder, then a rename.

    An interrupted or failed write (a full disk, a missing PNG renderer, Ctrl-C)
    never leaves a truncated chart that looks complete: the file appears whole,
    or an earlier file of that name stays as it was.

    Parameters
    ----------
    chart
        An Altair chart, such as :func:`pr_curve_chart` or :func:`query_delta_chart` give.
    path
        The file to write; its extension gives the format: ``.png``, ``.svg``
        (both need vl-convert-python), ``.pdf``, ``.html`` or ``.json``.
    **options
        Passed to Altair's ``chart.save`` (``scale_factor=2`` for a sharper PNG).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> per_query = pl.DataFrame(
    ...     {"system": ["a", "a", "b", "b"], "query": ["q1", "q2"] * 2, "ap": [0.2, 0.4, 0.5, 0.3]}
    ... )
    >>> chart = rm.query_delta_chart(per_query, metric="ap", baseline="a")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     rm.save_chart(chart, Path(folder) / "delta.json")
    ...     sorted(path.name for path in Path(folder).iterdir())
    ['delta.json']
    """
    target = Path(path)
    extension = target.suffix.lower().lstrip(".")
    if extension not in ("png", "svg", "pdf", "html", "json"):
        msg = f"`path` must end in .png, .svg, .pdf, .html or .json, got {str(path)!r}"
        raise ValueError(msg)
    with replacing(target) as temporary:
        chart.save(str(temporary), format=extension, **options)
