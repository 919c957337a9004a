"""The metric families, one module each: statistics over a ranked list, and the functions.

Each module declares its statistics (:func:`polars_rankmetrics.engine.statistic`)
and the public functions built on them: precision and recall at k, average
precision, reciprocal rank, DCG, curves; and the families only trec_eval names
(counts and set measures, incomplete-judgement measures, RBP).
"""

from polars_rankmetrics.metrics.average_precision import ap_at_k, average_precision
from polars_rankmetrics.metrics.curves import (
    binned_pr_curve,
    cumulative_pr,
    interpolated_ap,
    interpolated_precision,
    mean_curve,
    pr_curve,
)
from polars_rankmetrics.metrics.dcg import dcg_at_k, ndcg_at_k
from polars_rankmetrics.metrics.precision_recall import (
    f_beta_at_k,
    hit_rate_at_k,
    hits_at_k,
    precision_at_k,
    r_precision,
    recall_at_k,
)
from polars_rankmetrics.metrics.reciprocal_rank import reciprocal_rank

FUNCTIONS = (
    precision_at_k,
    recall_at_k,
    f_beta_at_k,
    hit_rate_at_k,
    hits_at_k,
    r_precision,
    average_precision,
    ap_at_k,
    reciprocal_rank,
    dcg_at_k,
    ndcg_at_k,
    pr_curve,
    cumulative_pr,
    binned_pr_curve,
    interpolated_precision,
    interpolated_ap,
)
"""The metric functions of a relevance column: each is also a ``.rank`` method."""

__all__ = [
    "FUNCTIONS",
    "ap_at_k",
    "average_precision",
    "binned_pr_curve",
    "cumulative_pr",
    "dcg_at_k",
    "f_beta_at_k",
    "hit_rate_at_k",
    "hits_at_k",
    "interpolated_ap",
    "interpolated_precision",
    "mean_curve",
    "ndcg_at_k",
    "pr_curve",
    "precision_at_k",
    "r_precision",
    "recall_at_k",
    "reciprocal_rank",
]
