"""Recommender evaluation beyond accuracy: coverage, novelty, diversity, serendipity, calibration.

Per-list metrics are expressions for ``group_by("user").agg(...)`` over the
frame :func:`prepare` builds (recommendations joined with the test pairs and
the training popularity); catalogue-wide metrics are functions over whole
frames; :func:`evaluate` computes many of both for several models at once.
Names and definitions follow the tool that owns them (RecTools 0.19,
Microsoft Recommenders, the cited papers); each docstring says which.
"""

from __future__ import annotations

from polars_rankmetrics.recsys.accuracy import (
    auc_insufficient,
    f1_beta_at_k,
    hit_rate_at_k,
    map_at_k,
    mrr_at_k,
    ndcg_at_k,
    pap_at_k,
    partial_auc_at_k,
    precision_at_k,
    recall_at_k,
)
from polars_rankmetrics.recsys.coverage import (
    catalog_coverage,
    distributional_coverage,
    exposure_disparity,
    gini_index,
    group_exposure,
    intersection,
    model_rbo,
    prediction_coverage,
    recommenders_catalog_coverage,
    recommenders_novelty,
    shannon_entropy,
    user_coverage,
)
from polars_rankmetrics.recsys.diversity import (
    intra_list_diversity,
    intra_list_similarity,
)
from polars_rankmetrics.recsys.evaluate import RecsysEvaluation, evaluate
from polars_rankmetrics.recsys.frames import item_popularity, prepare, recommendations
from polars_rankmetrics.recsys.history import (
    miscalibration,
    recommenders_diversity,
    recommenders_serendipity,
)
from polars_rankmetrics.recsys.names import METRICS
from polars_rankmetrics.recsys.novelty import (
    aclt,
    aplt,
    avg_rec_popularity,
    covered_users,
    expected_popularity_complement,
    mean_inv_user_freq,
    popularity_stratified_recall,
    serendipity,
    sufficient_reco,
    unrepeated_reco,
)

__all__ = [
    "METRICS",
    "RecsysEvaluation",
    "aclt",
    "aplt",
    "auc_insufficient",
    "avg_rec_popularity",
    "catalog_coverage",
    "covered_users",
    "distributional_coverage",
    "evaluate",
    "expected_popularity_complement",
    "exposure_disparity",
    "f1_beta_at_k",
    "gini_index",
    "group_exposure",
    "hit_rate_at_k",
    "intersection",
    "intra_list_diversity",
    "intra_list_similarity",
    "item_popularity",
    "map_at_k",
    "mean_inv_user_freq",
    "miscalibration",
    "model_rbo",
    "mrr_at_k",
    "ndcg_at_k",
    "pap_at_k",
    "partial_auc_at_k",
    "popularity_stratified_recall",
    "precision_at_k",
    "prediction_coverage",
    "prepare",
    "recall_at_k",
    "recommendations",
    "recommenders_catalog_coverage",
    "recommenders_diversity",
    "recommenders_novelty",
    "recommenders_serendipity",
    "serendipity",
    "shannon_entropy",
    "sufficient_reco",
    "unrepeated_reco",
    "user_coverage",
]
