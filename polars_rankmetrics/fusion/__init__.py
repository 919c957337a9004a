"""Rank fusion (ranx's methods and normalisations) as lazy polars pipelines.

:func:`fuse` stacks the runs into one long frame ``system, query, doc, score``,
normalises each run's scores per query, and combines the documents with a
group-by over ``(query, doc)``. The building blocks are public expressions: the
normalisations (:func:`min_max_norm`, ...) to use ``.over("system", "query")``,
a run's ranks (:func:`run_rank`), and the rank-based methods' per-rank scores
(:func:`rrf_weight`, :func:`isr_weight`, :func:`rbc_weight`,
:func:`borda_points`). :func:`optimize_fusion` searches ranx's grid of
weights or parameters; :func:`sink_fused` writes a fused run to disk a batch of
queries at a time, in bounded memory.
"""

from __future__ import annotations

from polars_rankmetrics.fusion.batched import sink_fused
from polars_rankmetrics.fusion.fuse import NORMALIZATIONS, Method, fuse
from polars_rankmetrics.fusion.normalization import (
    Normalization,
    borda_norm,
    borda_norm_unretrieved,
    max_norm,
    min_max_norm,
    rank_norm,
    run_rank,
    sum_norm,
    zmuv_norm,
)
from polars_rankmetrics.fusion.rank_weights import (
    borda_points,
    borda_points_unretrieved,
    isr_weight,
    rbc_weight,
    rrf_weight,
)

__all__ = [
    "NORMALIZATIONS",
    "Method",
    "Normalization",
    "borda_norm",
    "borda_norm_unretrieved",
    "borda_points",
    "borda_points_unretrieved",
    "fuse",
    "isr_weight",
    "max_norm",
    "min_max_norm",
    "rank_norm",
    "rbc_weight",
    "rrf_weight",
    "run_rank",
    "sink_fused",
    "sum_norm",
    "zmuv_norm",
]
