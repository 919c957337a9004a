"""The accuracy-against-novelty chart of :func:`~.evaluate.evaluate`'s summary (needs altair)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    import altair


def _altair() -> Any:
    try:
        import altair
    except ImportError as error:  # pragma: no cover - depends on the environment
        msg = 'the chart needs altair: pip install "polars-rankmetrics[plot]"'
        raise ImportError(msg) from error
    return altair


def tradeoff_chart(
    summary: pl.DataFrame, *, x: str, y: str, model: str = "model"
) -> altair.LayerChart:
    """
    One labelled point per model: ``x`` against ``y`` from a summary (e.g. novelty against nDCG).

    Examples
    --------
    >>> summary = pl.DataFrame(
    ...     {"model": ["pop", "knn"], "NDCG@10": [0.2, 0.3], "MeanInvUserFreq@10": [2.0, 5.0]}
    ... )
    >>> chart = tradeoff_chart(summary, x="MeanInvUserFreq@10", y="NDCG@10")
    >>> sorted(chart.to_dict()["layer"][0]["encoding"])
    ['tooltip', 'x', 'y']
    """
    for column in (model, x, y):
        if column not in summary.columns:
            msg = f"the summary has no column {column!r} (columns: {summary.columns})"
            raise ValueError(msg)
    alt = _altair()
    data = summary.select(
        pl.col(model).cast(pl.String).alias("model"),
        pl.col(x).cast(pl.Float64).alias("x"),
        pl.col(y).cast(pl.Float64).alias("y"),
    ).to_dicts()
    base = alt.Chart(alt.Data(values=data)).encode(
        x=alt.X("x:Q", title=x, scale=alt.Scale(zero=False)),
        y=alt.Y("y:Q", title=y, scale=alt.Scale(zero=False)),
    )
    points = base.mark_point(filled=True, size=80).encode(
        tooltip=[alt.Tooltip("model:N"), alt.Tooltip("x:Q", title=x), alt.Tooltip("y:Q", title=y)]
    )
    labels = base.mark_text(align="left", dx=8).encode(text="model:N")
    chart: altair.LayerChart = (points + labels).properties(
        title=f"{y} against {x}", width=360, height=260
    )
    return chart
