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
from polars_rankmetrics.recsys.frames import item_popularity, prepare, recommendations

__all__ = [
    "auc_insufficient",
    "f1_beta_at_k",
    "hit_rate_at_k",
    "item_popularity",
    "map_at_k",
    "mrr_at_k",
    "ndcg_at_k",
    "pap_at_k",
    "partial_auc_at_k",
    "precision_at_k",
    "prepare",
    "recall_at_k",
    "recommendations",
]
