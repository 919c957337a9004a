"""A long frame of runs with each run's scores normalised per query (ranx's ``norm``)."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

import polars_rankmetrics.fusion.normalization as norms
from polars_rankmetrics.fusion.runs import Runs


def normalize(
    runs: Runs, norm: str, *, per_run: Sequence[str] = ("system", "query")
) -> pl.LazyFrame:
    """The long frame with each run's scores normalised per query (ranx's ``norm``).

    ``per_run`` are the columns that tell one run's query from another's: by
    default ``system, query``; ``_block`` for runs whose blocks are known
    (:mod:`.blocks`). ``borda`` always uses the default.
    """
    frame = runs.frame
    if norm == "none":
        return frame
    if norm in ("rank", "borda"):
        frame = frame.with_columns(rank=norms.run_rank().over(*per_run))
    if norm == "borda":
        return _borda(frame, runs.n_systems)
    expressions: dict[str, pl.Expr] = {
        "min-max": norms.min_max_norm(),
        "min-max-inverted": norms.min_max_norm(invert=True),
        "max": norms.max_norm(),
        "sum": norms.sum_norm(),
        "zmuv": norms.zmuv_norm(),
        "rank": norms.rank_norm(),
    }
    expression = expressions[norm]
    return frame.with_columns(score=expression.over(*per_run)).drop("rank", strict=False)


def _borda(ranked: pl.LazyFrame, n_systems: int) -> pl.LazyFrame:
    """Every run scores every candidate of the query: unretrieved ones get the mean leftover."""
    candidates = ranked.select("query", "doc").unique()
    counts = candidates.group_by("query").agg(n_candidates=pl.len())
    per_run = ranked.group_by("system", "query").agg(n_retrieved=pl.len())
    systems = pl.LazyFrame({"system": pl.Series(range(n_systems), dtype=pl.UInt32)})
    full = (  # in run order, as the rest of the pipeline (see methods.py)
        systems.join(candidates, how="cross", maintain_order="left_right")
        .join(ranked, on=["system", "query", "doc"], how="left", maintain_order="left")
        .join(counts, on="query", maintain_order="left")
        .join(per_run, on=["system", "query"], how="left", maintain_order="left")
        .with_columns(pl.col("n_retrieved").fill_null(0))
    )
    score = (
        pl.when(pl.col("rank").is_null())
        .then(norms.borda_norm_unretrieved())
        .otherwise(norms.borda_norm())
    )
    return full.select("system", "query", "doc", score=score)
