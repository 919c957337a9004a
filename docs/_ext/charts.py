"""MkDocs hook: the charts the library draws, made from the demo's data at build time.

The pages show ``images/charts/<name>.png``; this hook draws each with the
library's own functions (``pr_curve_chart``, ``query_delta_chart``) and writes it
with ``save_chart`` (vl-convert, no browser, offline), so the images always show
what the current code draws. The data is the demo's (scikit-learn's handwritten
digits, ``polars_rankmetrics.demo``): the first queries, ranked by three
"systems" that score the same candidates differently. It takes a few seconds.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

N_QUERIES = 40
"""Queries of the demo's data drawn in the charts (each has 1,796 candidates)."""

CHARTS = ("pr_curves", "pr_curves_per_query", "query_delta")
"""The images, ``images/charts/<name>.png``, that the pages link to."""


def demo_systems(n_queries: int = N_QUERIES) -> Any:
    """Rankings of three systems over the demo's first ``n_queries`` digits.

    ``euclidean`` is the demo's own score (minus the distance between images);
    ``cosine`` the cosine similarity of the images; ``noisy`` the euclidean score
    with Gaussian noise (seeded), a weaker system.
    """
    import numpy as np
    import polars as pl

    from polars_rankmetrics.demo import digits_rankings

    rankings = digits_rankings().filter(pl.col("query") < n_queries)
    from sklearn.datasets import load_digits  # the demo extra, as digits_rankings

    images = load_digits().data
    unit = images / np.linalg.norm(images, axis=1, keepdims=True)
    query, doc = rankings["query"].to_numpy(), rankings["doc"].to_numpy()
    cosine = (unit[query] * unit[doc]).sum(axis=1)
    noise = np.random.default_rng(0).normal(scale=8.0, size=rankings.height)
    scores = {
        "euclidean": rankings["score"].to_numpy(),
        "cosine": cosine,
        "noisy": rankings["score"].to_numpy() + noise,
    }
    return pl.concat(
        rankings.select("query", "doc", "relevance").with_columns(
            system=pl.lit(name), score=pl.Series(values)
        )
        for name, values in scores.items()
    ).select("system", "query", "doc", "score", "relevance")


def draw(n_queries: int = N_QUERIES) -> dict[str, bytes]:
    """Every chart of :data:`CHARTS`, as PNG bytes."""
    import polars as pl

    import polars_rankmetrics as rm

    rankings = demo_systems(n_queries)
    per_query = (
        rankings.group_by("system", "query", maintain_order=True)
        .agg(rm.metrics("relevance", ["AP"], by="score").alias("m"))
        .unnest("m")
    )
    first_queries = rankings.filter(pl.col("system") == "noisy", pl.col("query") < 4)
    charts = {
        "pr_curves": rm.pr_curve_chart(rankings),
        "pr_curves_per_query": rm.pr_curve_chart(
            first_queries.with_columns(pl.format("image {}", "query").alias("query")),
            kind="exact",
            per_query=True,
        ),
        "query_delta": rm.query_delta_chart(per_query, metric="AP", baseline="euclidean"),
    }
    images = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, chart in charts.items():
            path = Path(folder) / f"{name}.png"
            rm.save_chart(chart, path)
            images[name] = path.read_bytes()
    return images


def on_files(files: Any, config: Any) -> Any:
    """Add the drawn charts to the site's files, where the pages' links find them."""
    from mkdocs.structure.files import File

    for name, png in draw().items():
        files.append(File.generated(config, f"images/charts/{name}.png", content=png))
    return files
