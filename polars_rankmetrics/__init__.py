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
import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from polars_rankmetrics._accessor import install as _install
from polars_rankmetrics._version import __version__ as __version__

if TYPE_CHECKING:
    import polars as pl

    from polars_rankmetrics import counterfactual, online, recsys, spark
    from polars_rankmetrics.comparisons.comparison import compare
    from polars_rankmetrics.comparisons.plot import pr_curve_chart, query_delta_chart, save_chart
    from polars_rankmetrics.comparisons.report import latex_table, markdown_table
    from polars_rankmetrics.evaluation import judged_frame, subtopic_lists
    from polars_rankmetrics.evaluation.evaluate import Evaluation, evaluate
    from polars_rankmetrics.experiments import Experiment, experiment
    from polars_rankmetrics.fusion import (
        borda_norm,
        borda_points,
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
    from polars_rankmetrics.fusion.fuse import fuse
    from polars_rankmetrics.fusion.optimize import optimize_fusion
    from polars_rankmetrics.measures import list_measures
    from polars_rankmetrics.meta_evaluation.agreement import (
        cohen_kappa,
        compare_qrels,
        fleiss_kappa,
        krippendorff_alpha,
    )
    from polars_rankmetrics.meta_evaluation.correlation import kendall_tau, smare, spearman, tau_ap
    from polars_rankmetrics.meta_evaluation.rbo import rbo, rbo_runs
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
    from polars_rankmetrics.metrics import (
        alpha_dcg_at_k,
        alpha_ndcg_at_k,
        ap_ia,
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
        roc_auc,
        subtopic_recall_at_k,
        tbg,
        threshold_average_precision,
        u_measure,
    )
    from polars_rankmetrics.metrics.average_precision import ap_at_k, average_precision
    from polars_rankmetrics.metrics.reciprocal_rank import reciprocal_rank
    from polars_rankmetrics.multi import metrics
    from polars_rankmetrics.parquet import evaluate_parquet
    from polars_rankmetrics.trec import (
        read_trec_qrels,
        read_trec_run,
        scan_trec_qrels,
        scan_trec_run,
    )

# Every public name is imported on first use: the parts with optional or heavy
# dependencies (numpy/scipy: `stats`; altair: `plot`; pyarrow and pyspark: `spark`),
# so that `import polars_rankmetrics` needs none of them, and the metrics, the
# measure registry and the rest, so that it stays quick (at most 0.05 s
# over `import polars`). Importing the package only installs the `.rank` accessor.
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
    "latex_table": "polars_rankmetrics.comparisons.report",
    "markdown_table": "polars_rankmetrics.comparisons.report",
    "list_measures": "polars_rankmetrics.measures",
    "rbo": "polars_rankmetrics.meta_evaluation.rbo",
    "rbo_runs": "polars_rankmetrics.meta_evaluation.rbo",
    "evaluate_parquet": "polars_rankmetrics.parquet",
    "Experiment": "polars_rankmetrics.experiments",
    "experiment": "polars_rankmetrics.experiments",
    **dict.fromkeys(
        ("Evaluation", "evaluate", "judged_frame", "subtopic_lists"),
        "polars_rankmetrics.evaluation",
    ),
    **dict.fromkeys(
        ("read_trec_qrels", "read_trec_run", "scan_trec_qrels", "scan_trec_run"),
        "polars_rankmetrics.trec",
    ),
    **dict.fromkeys(
        (
            "borda_norm",
            "borda_points",
            "fuse",
            "isr_weight",
            "max_norm",
            "min_max_norm",
            "rank_norm",
            "rbc_weight",
            "rrf_weight",
            "run_rank",
            "sum_norm",
            "zmuv_norm",
        ),
        "polars_rankmetrics.fusion",
    ),
    **dict.fromkeys(
        (
            "alpha_dcg_at_k",
            "alpha_ndcg_at_k",
            "ap_at_k",
            "ap_ia",
            "average_precision",
            "binned_pr_curve",
            "bpm",
            "compatibility",
            "cumulative_pr",
            "dcg_at_k",
            "err_at_k",
            "err_ia_at_k",
            "f_beta_at_k",
            "fall_out",
            "gauc",
            "hit_rate_at_k",
            "hits_at_k",
            "insq",
            "inst",
            "interpolated_ap",
            "interpolated_precision",
            "mean_curve",
            "ndcg_at_k",
            "nerr_at_k",
            "nerr_ia_at_k",
            "nnrbp",
            "nrbp",
            "pr_curve",
            "precision_at_k",
            "precision_ia_at_k",
            "r_precision",
            "recall_at_fixed_precision",
            "recall_at_k",
            "reciprocal_rank",
            "roc_auc",
            "subtopic_recall_at_k",
            "tbg",
            "threshold_average_precision",
            "u_measure",
        ),
        "polars_rankmetrics.metrics",
    ),
}

_SUBMODULES = frozenset(
    {
        "cli",
        "comparisons",
        "counterfactual",
        "demo",
        "engine",
        "evaluation",
        "experiments",
        "fusion",
        "measures",
        "meta_evaluation",
        "multi",
        "online",
        "parquet",
        "recsys",
        "spark",
        "trec",
    }
)
"""The subpackages and modules reachable as attributes (``rm.spark``, ``rm.trec``), imported
on first access (``rm.metrics`` is the function :func:`metrics`, see :class:`_Package`)."""


def __getattr__(name: str) -> Any:
    """Import the public names, and the subpackages, on first access."""
    if name in _SUBMODULES:
        return importlib.import_module(f"polars_rankmetrics.{name}")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # the next access is a plain attribute
        return value
    msg = f"module 'polars_rankmetrics' has no attribute {name!r}"
    raise AttributeError(msg)


__all__ = [
    "Evaluation",
    "Experiment",
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
    "counterfactual",
    "cumulative_pr",
    "dcg_at_k",
    "discriminative_power",
    "effect_sizes",
    "err_at_k",
    "err_ia_at_k",
    "evaluate",
    "evaluate_parquet",
    "experiment",
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
    "online",
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


class _Package(types.ModuleType):
    """The package's module type, for one name: ``metrics`` is the function :func:`metrics`.

    The subpackage ``polars_rankmetrics.metrics`` has the same name. Python binds a
    subpackage as an attribute of its parent when it first imports it, which would
    hide the function once anything imported the metric modules; the setter keeps the
    function (the subpackage stays in ``sys.modules``, as it always was). While the
    subpackage itself is being imported, the name is left to the import system, so
    that ``import polars_rankmetrics.metrics.<module> as name`` inside it finds the
    subpackage in ``sys.modules``, as it did when the package imported it first.
    """

    @property
    def metrics(self) -> Callable[..., pl.Expr]:
        """:func:`polars_rankmetrics.multi.metrics`, imported on first access."""
        package = sys.modules.get("polars_rankmetrics.metrics")
        if package is not None and getattr(package.__spec__, "_initializing", False):
            raise AttributeError("metrics")  # the import system falls back to sys.modules
        from polars_rankmetrics.multi import metrics

        return metrics

    @metrics.setter
    def metrics(self, value: object) -> None:
        """The import system's binding of the subpackage: the name stays the function."""


sys.modules[__name__].__class__ = _Package
_install()
