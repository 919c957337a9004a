"""An experiment's charts in Altair: :meth:`polars_rankmetrics.Experiment.chart`.

- ``'pr'``: each run's 11-point interpolated precision-recall curve, trec_eval's
  ``iprec_at_recall`` averaged over the compared queries (the same queries and
  numbers as the means);
- ``'delta'``: per measure, each run's per-query differences to the reference
  run (the baseline, else the best run), sorted:
  :func:`~polars_rankmetrics.query_delta_chart`'s bars up to
  :data:`BARS_UP_TO` queries, beyond that a filled profile of the same sorted
  differences (one path per run instead of one bar per query: the page stays
  small and fast to draw);
- ``'means'``: :func:`~polars_rankmetrics.comparisons.means_plot.means_chart`.

The HTML report draws the first two itself, as plain SVG (:mod:`.svg`).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_rankmetrics._validate import check_choice
from polars_rankmetrics.comparisons.plot import _HEIGHT, _WIDTH, _altair, _unit_axis
from polars_rankmetrics.experiments.record import ChartKind, Record

BARS_UP_TO = 200
"""Up to this many queries the delta chart draws one bar per query."""


def pr_chart(record: Record) -> Any:
    """Each run's mean interpolated precision at the 11 recall levels, as lines."""
    alt = _altair()
    curves = record.curves
    counts = curves.get_column("n_queries").unique().sort().to_list()
    shown = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    title = f"Interpolated precision (iprec_at_recall), mean over {shown} queries"
    return (
        alt.Chart(curves, title=title)
        .mark_line(point=True)
        .encode(
            x=alt.X("recall:Q", **_unit_axis("Recall")),
            y=alt.Y("precision:Q", **_unit_axis("Interpolated precision")),
            color=alt.Color("system:N", title="Run", sort=record.systems),
            tooltip=["system:N", "recall:Q", alt.Tooltip("precision:Q", format=".4f")],
        )
        .properties(width=_WIDTH, height=_HEIGHT)
    )


def _sorted_deltas(record: Record, metric: str, reference: str) -> pl.DataFrame:
    from polars_rankmetrics.experiments.build import deltas

    found = deltas(record.per_query, record.systems, metric, reference, record.settings.missing)
    parts = []
    for name, values in found.items():
        delta = pl.Series("delta", values).sort(descending=True)
        parts.append(
            pl.DataFrame({"system": name, "position": range(1, delta.len() + 1), "delta": delta})
        )
    return pl.concat(parts).with_columns(
        gain=pl.col("delta").clip(lower_bound=0.0), loss=pl.col("delta").clip(upper_bound=0.0)
    )


def _profile_chart(record: Record, metric: str, reference: str) -> Any:
    """The sorted per-query differences as a filled profile, one row per run."""
    alt = _altair()
    deltas = _sorted_deltas(record, metric, reference)
    n = int(deltas.get_column("position").max() or 0)
    others = [name for name in record.systems if name != reference]
    base = alt.Chart(deltas).encode(
        x=alt.X("position:Q", title=f"Queries, sorted by Δ ({n})", scale=alt.Scale(nice=False))
    )
    gains = base.mark_area(color="#2e7d32").encode(y=alt.Y("gain:Q", title=f"Δ {metric}"))
    losses = base.mark_area(color="#c62828").encode(y="loss:Q")
    layered = alt.layer(gains, losses).properties(
        width=_WIDTH + 80, height=max(60, _HEIGHT // max(1, len(others)))
    )
    return layered.facet(
        row=alt.Row("system:N", title=None, sort=others),
        title=f"Per-query Δ {metric} vs {reference} (green: better, red: worse)",
    )


def delta_chart(record: Record, metric: str) -> Any:
    """The per-query differences of ``metric`` to the reference run."""
    from polars_rankmetrics.comparisons.plot import query_delta_chart

    reference = record.reference[metric]
    n_queries = record.per_query.get_column("query").n_unique()
    if n_queries > BARS_UP_TO:
        return _profile_chart(record, metric, reference)
    return query_delta_chart(
        record.per_query,
        metric=metric,
        baseline=reference,
        missing=record.settings.missing,  # type: ignore[arg-type]
    )


def chart(record: Record, kind: str, metric: str | None) -> Any:
    """The chart ``kind`` of :meth:`polars_rankmetrics.Experiment.chart`."""
    check_choice(kind, "kind", ChartKind)
    if metric is None:
        metric = record.metrics[0]
    if metric not in record.metrics:
        msg = f"`metric`: {metric!r} is not a measure of the experiment: {record.metrics}"
        raise ValueError(msg)
    if kind == "pr":
        return pr_chart(record)
    if len(record.systems) < 2:
        msg = f"`kind`: {kind!r} compares runs, and the experiment has one"
        raise ValueError(msg)
    if kind == "delta":
        return delta_chart(record, metric)
    from polars_rankmetrics.comparisons.means_plot import means_chart

    return means_chart(
        record.per_query,
        metric=metric,
        alpha=record.settings.alpha,
        missing=record.settings.missing,  # type: ignore[arg-type]
    )
