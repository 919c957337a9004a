"""The table of recommender metric names that :func:`~.evaluate.evaluate` accepts.

A name is ``Name@k`` with optional options in parentheses, e.g.
``NDCG@10(log_base=3,divide_by_achievable=true)``. RecTools' class names
(``MAP``, ``NDCG``, ``Precision``, ...) mean what they mean in RecTools 0.19;
any other name goes to the library's measure registry (trec_eval,
ir_measures and ranx names: ``nDCG@10``, ``P@10``, ``AP@10``, ``RR@10``),
computed on the same recommendations with ties broken by item id. So in
:func:`~.evaluate.evaluate`, ``NDCG@10`` is RecTools' (ideal DCG of 10 hits)
and ``nDCG@10`` is ir_measures' (ideal DCG of the user's test items).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import polars_rankmetrics.recsys.accuracy as accuracy
import polars_rankmetrics.recsys.novelty as novelty

Kind = Literal["user", "catalog", "frame"]
Input = Literal["interactions", "train", "catalog", "features", "genres", "ref"]


@dataclass(frozen=True)
class RecsysMetric:
    """One metric of the table: how to build it, what it needs, what it means.

    ``kind``: ``"user"`` is an expression per user over :func:`~.frames.prepare`'s
    frame; ``"frame"`` a function giving one value per user; ``"catalog"`` one
    value per model.
    """

    kind: Kind
    description: str
    needs: tuple[Input, ...] = ()
    options: dict[str, type] = field(default_factory=dict)
    build: Callable[..., Any] | None = None


METRICS: dict[str, RecsysMetric] = {
    "Precision": RecsysMetric(
        "user",
        "RecTools' Precision: hits ranked <= k over k",
        ("interactions",),
        {"r_precision": bool},
        accuracy.precision_at_k,
    ),
    "Recall": RecsysMetric(
        "user",
        "RecTools' Recall: hits ranked <= k over the test items",
        ("interactions",),
        {},
        accuracy.recall_at_k,
    ),
    "F1Beta": RecsysMetric(
        "user",
        "RecTools' F1Beta of Precision and Recall",
        ("interactions",),
        {"beta": float},
        accuracy.f1_beta_at_k,
    ),
    "HitRate": RecsysMetric(
        "user",
        "RecTools' HitRate: a hit ranked <= k",
        ("interactions",),
        {},
        accuracy.hit_rate_at_k,
    ),
    "MAP": RecsysMetric(
        "user",
        "RecTools' MAP: AP@k over the test items (or k)",
        ("interactions",),
        {"divide_by_k": bool},
        accuracy.map_at_k,
    ),
    "NDCG": RecsysMetric(
        "user",
        "RecTools' NDCG: binary DCG@k over the DCG of k hits (or min(R, k))",
        ("interactions",),
        {"log_base": float, "divide_by_achievable": bool},
        accuracy.ndcg_at_k,
    ),
    "MRR": RecsysMetric(
        "user",
        "RecTools' MRR: 1 / the rank of the first hit <= k",
        ("interactions",),
        {},
        accuracy.mrr_at_k,
    ),
    "PartialAUC": RecsysMetric(
        "user",
        "RecTools' PartialAUC up to the k-th negative",
        ("interactions",),
        {"insufficient": str},
        accuracy.partial_auc_at_k,
    ),
    "PAP": RecsysMetric(
        "user",
        "RecTools' PAP: partial AUC over the first k hits",
        ("interactions",),
        {"insufficient": str},
        accuracy.pap_at_k,
    ),
    "MeanInvUserFreq": RecsysMetric(
        "user",
        "RecTools' MeanInvUserFreq: mean -log2(users(i) / users)",
        ("train",),
        {},
        novelty.mean_inv_user_freq,
    ),
    "AvgRecPopularity": RecsysMetric(
        "user",
        "RecTools' AvgRecPopularity (ARP): mean training count",
        ("train",),
        {"normalize": bool},
        novelty.avg_rec_popularity,
    ),
    "EPC": RecsysMetric(
        "user",
        "Expected popularity complement (Vargas & Castells 2011)",
        ("train",),
        {"discount": str, "relevance": bool},
        novelty.expected_popularity_complement,
    ),
    "APLT": RecsysMetric(
        "user", "Share of long-tail items (Abdollahpouri et al.)", ("train",), {}, novelty.aplt
    ),
    "ACLT": RecsysMetric(
        "user", "Count of long-tail items (Abdollahpouri et al.)", ("train",), {}, novelty.aclt
    ),
    "PopStratifiedRecall": RecsysMetric(
        "user",
        "Popularity-stratified recall (Steck 2011)",
        ("interactions", "train"),
        {"beta": float},
        novelty.popularity_stratified_recall,
    ),
    "Serendipity": RecsysMetric(
        "user",
        "RecTools' Serendipity (needs `catalog`)",
        ("interactions", "train", "catalog"),
        {},
        novelty.serendipity,
    ),
    "CoveredUsers": RecsysMetric(
        "user",
        "RecTools' CoveredUsers: a test user has a recommendation <= k",
        ("interactions",),
        {},
        novelty.covered_users,
    ),
    "SufficientReco": RecsysMetric(
        "user",
        "RecTools' SufficientReco: k items ranked <= k",
        (),
        {"deep": bool},
        novelty.sufficient_reco,
    ),
    "UnrepeatedReco": RecsysMetric(
        "user",
        "RecTools' UnrepeatedReco: no item repeated <= k (see `repeats`)",
        (),
        {"deep": bool},
        novelty.unrepeated_reco,
    ),
    "IntraListDiversity": RecsysMetric(
        "frame",
        "RecTools' IntraListDiversity (Hamming), or cosine / Jaccard",
        ("features",),
        {"distance": str},
    ),
    "IntraListSimilarity": RecsysMetric(
        "frame", "Intra-list similarity (Ziegler et al. 2005)", ("features",), {"distance": str}
    ),
    "Miscalibration": RecsysMetric(
        "frame",
        "Steck's miscalibration KL (needs `genres`)",
        ("train", "genres"),
        {"alpha": float},
    ),
    "RecommendersSerendipity": RecsysMetric(
        "frame",
        "Microsoft Recommenders' serendipity (co-occurrence, or `features`)",
        ("train",),
        {"relevance": bool},
    ),
    "RecommendersDiversity": RecsysMetric(
        "frame",
        "Microsoft Recommenders' user_diversity (co-occurrence, or `features`)",
        ("train",),
    ),
    "Intersection": RecsysMetric(
        "frame",
        "RecTools' Intersection with another model's lists (`ref=<model>`)",
        ("ref",),
        {"ref": str, "ref_k": int},
    ),
    "RBO": RecsysMetric(
        "frame",
        "Rank-biased overlap with another model's lists (`ref=<model>`, `p`)",
        ("ref",),
        {"ref": str, "p": float},
    ),
    "CatalogCoverage": RecsysMetric(
        "catalog",
        "RecTools' CatalogCoverage: distinct items ranked <= k",
        (),
        {"normalize": bool},
    ),
    "PredictionCoverage": RecsysMetric(
        "catalog", "Share of the catalogue in any list (Ge et al. 2010)", ("catalog",)
    ),
    "Gini": RecsysMetric(
        "catalog", "Gini index of item exposure <= k (catalogue items included with `catalog`)"
    ),
    "Entropy": RecsysMetric("catalog", "Shannon entropy (bits) of item exposure <= k"),
    "Novelty": RecsysMetric(
        "catalog", "Microsoft Recommenders' novelty of the rows ranked <= k", ("train",)
    ),
}
"""Every name :func:`~.evaluate.evaluate` knows, beside the library's registry."""

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
"""A table name: letters, digits after the first (``F1Beta``) and underscores."""
_SPEC = re.compile(rf"(?P<name>{_NAME})(?:@(?P<k>[0-9]+))?(?:\((?P<options>[^()]*)\))?")


@dataclass(frozen=True)
class Spec:
    """A parsed metric name: the table entry's name, ``k`` and options."""

    label: str
    name: str
    k: int | None
    options: dict[str, Any]


def _value(text: str, kind: type) -> Any:
    if kind is bool:
        if text.lower() not in ("true", "false"):
            raise ValueError(text)
        return text.lower() == "true"
    return kind(text)


def parse(label: str) -> Spec | None:
    """The table entry a name refers to, or None when it is not one of :data:`METRICS`."""
    match = _SPEC.fullmatch(label.strip())
    found = re.match(_NAME, label.strip())
    head = None if found is None else found[0]
    if head is not None and head not in METRICS:
        head = head.rstrip("0123456789")  # "Novelty10": a table name and a k without its @
    known = match is not None and match["name"] in METRICS
    if not known and head in METRICS:
        msg = (
            f"{label!r}: write {head}@k with k an integer >= 1, options in parentheses, "
            f"e.g. '{head}@10'"
        )
        raise ValueError(msg)
    if match is None or match["name"] not in METRICS:
        return None
    entry = METRICS[match["name"]]
    options: dict[str, Any] = {}
    for part in filter(None, (match["options"] or "").split(",")):
        key, _, text = part.partition("=")
        key = key.strip()
        if key not in entry.options:
            msg = (
                f"{label!r}: unknown option {key!r}; {match['name']} takes {sorted(entry.options)}"
            )
            raise ValueError(msg)
        try:
            options[key] = _value(text.strip(), entry.options[key])
        except ValueError:
            msg = f"{label!r}: option {key!r} must be a {entry.options[key].__name__}, got {text!r}"
            raise ValueError(msg) from None
    k = None if match["k"] is None else int(match["k"])
    if k is not None and k < 1:
        msg = f"{label!r}: k must be an integer >= 1"
        raise ValueError(msg)
    if k is None and match["name"] not in ("PredictionCoverage",):
        msg = f"{label!r}: give a cut-off, e.g. '{match['name']}@10'"
        raise ValueError(msg)
    return Spec(label, match["name"], k, options)
