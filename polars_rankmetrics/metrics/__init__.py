"""The metric families, one module each: statistics over a ranked list, and the functions.

Each module declares its statistics (:func:`polars_rankmetrics.engine.statistic`)
and the public functions built on them: precision and recall at k, average
precision, reciprocal rank, DCG, curves; and the families only trec_eval names
(counts and set measures, incomplete-judgement measures, RBP). Then the
measures of the other peers: ERR (cascade), intent-aware diversity (ndeval),
the C/W/L user models (cwl_eval), compatibility, and classifier-style measures
(scikit-learn, torchmetrics).
"""

from polars_rankmetrics._docstrings import fill_parameters
from polars_rankmetrics.metrics.average_precision import ap_at_k, average_precision
from polars_rankmetrics.metrics.cascade import err_at_k, nerr_at_k
from polars_rankmetrics.metrics.classifier import (
    fall_out,
    gauc,
    recall_at_fixed_precision,
    roc_auc,
    threshold_average_precision,
)
from polars_rankmetrics.metrics.compat import compatibility
from polars_rankmetrics.metrics.curves import (
    binned_pr_curve,
    cumulative_pr,
    interpolated_ap,
    interpolated_precision,
    mean_curve,
    pr_curve,
)
from polars_rankmetrics.metrics.dcg import dcg_at_k, ndcg_at_k
from polars_rankmetrics.metrics.diversity import (
    alpha_dcg_at_k,
    alpha_ndcg_at_k,
    ap_ia,
    err_ia_at_k,
    nerr_ia_at_k,
    nnrbp,
    nrbp,
    precision_ia_at_k,
    subtopic_recall_at_k,
)
from polars_rankmetrics.metrics.precision_recall import (
    f_beta_at_k,
    hit_rate_at_k,
    hits_at_k,
    precision_at_k,
    r_precision,
    recall_at_k,
)
from polars_rankmetrics.metrics.reciprocal_rank import reciprocal_rank
from polars_rankmetrics.metrics.user_models import bpm, insq, inst, tbg, u_measure

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
    err_at_k,
    nerr_at_k,
    alpha_ndcg_at_k,
    alpha_dcg_at_k,
    err_ia_at_k,
    nerr_ia_at_k,
    nrbp,
    nnrbp,
    precision_ia_at_k,
    subtopic_recall_at_k,
    ap_ia,
    inst,
    insq,
    bpm,
    u_measure,
    tbg,
    compatibility,
    roc_auc,
    threshold_average_precision,
    fall_out,
    recall_at_fixed_precision,
)
"""The metric functions of a relevance column: each is also a ``.rank`` method.

(:func:`gauc` and :func:`mean_curve` summarise many queries, so they are not.)"""

for _function in (*FUNCTIONS, gauc, mean_curve):
    # The shared parameter descriptions (relevance, k, by, ...), written once.
    _function.__doc__ = fill_parameters(_function.__doc__ or "")

__all__ = [
    "FUNCTIONS",
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
]
