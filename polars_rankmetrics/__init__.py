"""Ranking metrics (AP, nDCG, P@k, curves, ...) as lazy polars expressions.

Every metric is a typed function returning a ``pl.Expr``. Importing the package
also makes them available on expressions as ``pl.col("relevance").rank.<metric>``,
while ``pl.col(x).rank(...)`` keeps calling polars' own ``Expr.rank``.
Name the ranking with ``by=`` (``rm.ndcg_at_k("relevance", 10, by="score")``):
without it the rows are ranked in the order they come in.

The layout, from the bottom up: :mod:`.engine` ranks each group once and
computes statistics from that ranking; :mod:`.metrics` holds the metric
families; :mod:`.measures` is the registry of measures and the dialects that
name them (trec_eval, ir_measures, ranx, ...), resolved in one pipeline;
:func:`metrics` evaluates many of them at once; :mod:`.evaluation` turns user
inputs (files, frames, dicts, ranx objects) into judged rankings and per-query
values (:func:`evaluate`); on top, :mod:`.trec` (trec_eval's formats and
command line), :mod:`.parquet`, :mod:`.spark`, :mod:`.comparisons` (comparing
systems), ``fusion``, ``recsys`` and ``meta_evaluation``, and the
``rankmetrics`` command. The documentation's architecture page says where a
new piece goes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from polars_rankmetrics._accessor import install as _install
from polars_rankmetrics._version import __version__ as __version__
from polars_rankmetrics.comparisons.report import latex_table, markdown_table
from polars_rankmetrics.evaluation import Evaluation, evaluate, judged_frame, subtopic_lists
from polars_rankmetrics.fusion import (
    borda_norm,
    borda_points,
    fuse,
    isr_weight,
    max_norm,
    min_max_norm,
    rank_norm,
    rbc_weight,
    rrf_weight,
    run_rank,
    sum_norm,
    zmuv_norm,
)
from polars_rankmetrics.measures import list_measures
from polars_rankmetrics.meta_evaluation.rbo import rbo, rbo_runs
from polars_rankmetrics.metrics import (
    alpha_dcg_at_k,
    alpha_ndcg_at_k,
    ap_at_k,
    ap_ia,
    average_precision,
    binned_pr_curve,
    bpm,
    compatibility,
    cumulative_pr,
    dcg_at_k,
    err_at_k,
    err_ia_at_k,
    f_beta_at_k,
    fall_out,
    gauc,
    hit_rate_at_k,
    hits_at_k,
    insq,
    inst,
    interpolated_ap,
    interpolated_precision,
    mean_curve,
    ndcg_at_k,
    nerr_at_k,
    nerr_ia_at_k,
    nnrbp,
    nrbp,
    pr_curve,
    precision_at_k,
    precision_ia_at_k,
    r_precision,
    recall_at_fixed_precision,
    recall_at_k,
    reciprocal_rank,
    roc_auc,
    subtopic_recall_at_k,
    tbg,
    threshold_average_precision,
    u_measure,
)
from polars_rankmetrics.multi import metrics
from polars_rankmetrics.parquet import evaluate_parquet
from polars_rankmetrics.trec import (
    read_trec_qrels,
    read_trec_run,
    scan_trec_qrels,
    scan_trec_run,
)

if TYPE_CHECKING:
    from polars_rankmetrics import recsys, spark
    from polars_rankmetrics.comparisons.comparison import compare
    from polars_rankmetrics.comparisons.plot import pr_curve_chart, query_delta_chart, save_chart
    from polars_rankmetrics.fusion.optimize import optimize_fusion
    from polars_rankmetrics.meta_evaluation.agreement import (
        cohen_kappa,
        compare_qrels,
        fleiss_kappa,
        krippendorff_alpha,
    )
    from polars_rankmetrics.meta_evaluation.correlation import kendall_tau, smare, spearman, tau_ap
    from polars_rankmetrics.meta_evaluation.reproducibility import reproduce
    from polars_rankmetrics.meta_evaluation.systems import (
        discriminative_power,
        qpp_evaluation,
        ranking_agreement,
        swap_rate,
        system_scores,
    )
    from polars_rankmetrics.meta_evaluation.topic_set_size import (
        topic_set_size_anova,
        topic_set_size_ci,
        topic_set_size_t,
        topic_set_variance,
    )

# Parts with optional or heavy dependencies (numpy/scipy: `stats`; altair: `plot`;
# pyarrow and pyspark: `spark`) are imported on first use, so that
# `import polars_rankmetrics` needs none of them and stays quick.
_LAZY = {
    "optimize_fusion": "polars_rankmetrics.fusion.optimize",
    "compare": "polars_rankmetrics.comparisons.comparison",
    "compare_pairs": "polars_rankmetrics.comparisons.pairs",
    "p_value_matrix": "polars_rankmetrics.comparisons.letters",
    "anova": "polars_rankmetrics.comparisons.anova",
    "effect_sizes": "polars_rankmetrics.comparisons.effect_sizes",
    "risk": "polars_rankmetrics.comparisons.risk",
    "georisk": "polars_rankmetrics.comparisons.risk",
    "compact_letter_display": "polars_rankmetrics.comparisons.letters",
    "pairs_table": "polars_rankmetrics.comparisons.pairs_report",
    "means_chart": "polars_rankmetrics.comparisons.means_plot",
    "pr_curve_chart": "polars_rankmetrics.comparisons.plot",
    "query_delta_chart": "polars_rankmetrics.comparisons.plot",
    "save_chart": "polars_rankmetrics.comparisons.plot",
    # meta-evaluation (numpy/scipy): agreement, correlations, reproducibility, systems
    "cohen_kappa": "polars_rankmetrics.meta_evaluation.agreement",
    "compare_qrels": "polars_rankmetrics.meta_evaluation.agreement",
    "fleiss_kappa": "polars_rankmetrics.meta_evaluation.agreement",
    "krippendorff_alpha": "polars_rankmetrics.meta_evaluation.agreement",
    "kendall_tau": "polars_rankmetrics.meta_evaluation.correlation",
    "smare": "polars_rankmetrics.meta_evaluation.correlation",
    "spearman": "polars_rankmetrics.meta_evaluation.correlation",
    "tau_ap": "polars_rankmetrics.meta_evaluation.correlation",
    "reproduce": "polars_rankmetrics.meta_evaluation.reproducibility",
    "discriminative_power": "polars_rankmetrics.meta_evaluation.systems",
    "qpp_evaluation": "polars_rankmetrics.meta_evaluation.systems",
    "ranking_agreement": "polars_rankmetrics.meta_evaluation.systems",
    "swap_rate": "polars_rankmetrics.meta_evaluation.systems",
    "system_scores": "polars_rankmetrics.meta_evaluation.systems",
    "topic_set_size_anova": "polars_rankmetrics.meta_evaluation.topic_set_size",
    "topic_set_size_ci": "polars_rankmetrics.meta_evaluation.topic_set_size",
    "topic_set_size_t": "polars_rankmetrics.meta_evaluation.topic_set_size",
    "topic_set_variance": "polars_rankmetrics.meta_evaluation.topic_set_size",
}


def __getattr__(name: str) -> Any:
    """Import the optional features on first access."""
    if name == "spark":
        return importlib.import_module("polars_rankmetrics.spark")
    if name == "recsys":  # recommender metrics (issue 29), loaded on first use
        return importlib.import_module("polars_rankmetrics.recsys")
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    msg = f"module 'polars_rankmetrics' has no attribute {name!r}"
    raise AttributeError(msg)


__all__ = [
    "Evaluation",
    "alpha_dcg_at_k",
    "alpha_ndcg_at_k",
    "anova",
    "ap_at_k",
    "ap_ia",
    "average_precision",
    "binned_pr_curve",
    "borda_norm",
    "borda_points",
    "bpm",
    "cohen_kappa",
    "compact_letter_display",
    "compare",
    "compare_pairs",
    "compare_qrels",
    "compatibility",
    "cumulative_pr",
    "dcg_at_k",
    "discriminative_power",
    "effect_sizes",
    "err_at_k",
    "err_ia_at_k",
    "evaluate",
    "evaluate_parquet",
    "f_beta_at_k",
    "fall_out",
    "fleiss_kappa",
    "fuse",
    "gauc",
    "georisk",
    "hit_rate_at_k",
    "hits_at_k",
    "insq",
    "inst",
    "interpolated_ap",
    "interpolated_precision",
    "isr_weight",
    "judged_frame",
    "kendall_tau",
    "krippendorff_alpha",
    "latex_table",
    "list_measures",
    "markdown_table",
    "max_norm",
    "mean_curve",
    "means_chart",
    "metrics",
    "min_max_norm",
    "ndcg_at_k",
    "nerr_at_k",
    "nerr_ia_at_k",
    "nnrbp",
    "nrbp",
    "optimize_fusion",
    "p_value_matrix",
    "pairs_table",
    "pr_curve",
    "pr_curve_chart",
    "precision_at_k",
    "precision_ia_at_k",
    "qpp_evaluation",
    "query_delta_chart",
    "r_precision",
    "rank_norm",
    "ranking_agreement",
    "rbc_weight",
    "rbo",
    "rbo_runs",
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_fixed_precision",
    "recall_at_k",
    "reciprocal_rank",
    "recsys",
    "reproduce",
    "risk",
    "roc_auc",
    "rrf_weight",
    "run_rank",
    "save_chart",
    "scan_trec_qrels",
    "scan_trec_run",
    "smare",
    "spark",
    "spearman",
    "subtopic_lists",
    "subtopic_recall_at_k",
    "sum_norm",
    "swap_rate",
    "system_scores",
    "tau_ap",
    "tbg",
    "threshold_average_precision",
    "topic_set_size_anova",
    "topic_set_size_ci",
    "topic_set_size_t",
    "topic_set_variance",
    "u_measure",
    "zmuv_norm",
]


def __dir__() -> list[str]:
    """The public API: ``__all__``, the lazily loaded names included."""
    return sorted(__all__)


_install()
