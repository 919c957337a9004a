"""Ranking metrics (AP, nDCG, P@k, curves, ...) as lazy polars expressions.

Every metric is a typed function returning a ``pl.Expr``. Importing the package
also makes them available on expressions as ``pl.col("relevance").rank.<metric>``,
while ``pl.col(x).rank(...)`` keeps calling polars' own ``Expr.rank``.
"""

from polars_rankmetrics._accessor import install as _install
from polars_rankmetrics.average_precision import ap_at_k, average_precision
from polars_rankmetrics.curves import (
    binned_pr_curve,
    cumulative_pr,
    interpolated_ap,
    interpolated_precision,
    pr_curve,
)
from polars_rankmetrics.dcg import dcg_at_k, ndcg_at_k
from polars_rankmetrics.multi import metrics
from polars_rankmetrics.precision_recall import (
    f_beta_at_k,
    hit_rate_at_k,
    precision_at_k,
    r_precision,
    recall_at_k,
)
from polars_rankmetrics.reciprocal_rank import reciprocal_rank

from polars_rankmetrics import spark  # isort: skip  (pyspark itself is imported lazily)

__all__ = [
    "ap_at_k",
    "average_precision",
    "binned_pr_curve",
    "cumulative_pr",
    "dcg_at_k",
    "f_beta_at_k",
    "hit_rate_at_k",
    "interpolated_ap",
    "interpolated_precision",
    "metrics",
    "ndcg_at_k",
    "pr_curve",
    "precision_at_k",
    "r_precision",
    "recall_at_k",
    "reciprocal_rank",
    "spark",
]

__version__ = "0.1.0"

_install()
