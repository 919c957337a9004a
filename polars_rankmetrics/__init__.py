"""Ranking metrics (AP, nDCG, P@k, curves, ...) as lazy polars expressions.

Every metric is a typed function returning a ``pl.Expr``. Importing the package
also makes them available on expressions as ``pl.col("relevance").rank.<metric>``,
while ``pl.col(x).rank(...)`` keeps calling polars' own ``Expr.rank``.
"""

from typing import TYPE_CHECKING, Any

from polars_rankmetrics import spark  # pyspark itself is imported only when used
from polars_rankmetrics._accessor import install as _install
from polars_rankmetrics.average_precision import ap_at_k, average_precision
from polars_rankmetrics.curves import (
    binned_pr_curve,
    cumulative_pr,
    interpolated_ap,
    interpolated_precision,
    mean_curve,
    pr_curve,
)
from polars_rankmetrics.dcg import dcg_at_k, ndcg_at_k
from polars_rankmetrics.multi import metrics
from polars_rankmetrics.parquet import evaluate_parquet
from polars_rankmetrics.precision_recall import (
    f_beta_at_k,
    hit_rate_at_k,
    precision_at_k,
    r_precision,
    recall_at_k,
)
from polars_rankmetrics.reciprocal_rank import reciprocal_rank
from polars_rankmetrics.report import latex_table, markdown_table
from polars_rankmetrics.trec import (
    Evaluation,
    evaluate,
    read_trec_qrels,
    read_trec_run,
    scan_trec_qrels,
    scan_trec_run,
)

if TYPE_CHECKING:
    from polars_rankmetrics.comparison import compare
    from polars_rankmetrics.plot import pr_curve_chart, query_delta_chart

# Features with optional dependencies (numpy/scipy: `stats`; altair: `plot`) are
# imported on first use, so that `import polars_rankmetrics` needs neither.
_LAZY = {
    "compare": "polars_rankmetrics.comparison",
    "pr_curve_chart": "polars_rankmetrics.plot",
    "query_delta_chart": "polars_rankmetrics.plot",
}


def __getattr__(name: str) -> Any:
    """Import the optional features on first access."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    msg = f"module 'polars_rankmetrics' has no attribute {name!r}"
    raise AttributeError(msg)


__all__ = [
    "Evaluation",
    "ap_at_k",
    "average_precision",
    "binned_pr_curve",
    "compare",
    "cumulative_pr",
    "dcg_at_k",
    "evaluate",
    "evaluate_parquet",
    "f_beta_at_k",
    "hit_rate_at_k",
    "interpolated_ap",
    "interpolated_precision",
    "latex_table",
    "markdown_table",
    "mean_curve",
    "metrics",
    "ndcg_at_k",
    "pr_curve",
    "pr_curve_chart",
    "precision_at_k",
    "query_delta_chart",
    "r_precision",
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_k",
    "reciprocal_rank",
    "scan_trec_qrels",
    "scan_trec_run",
    "spark",
]

__version__ = "0.1.0"

_install()
