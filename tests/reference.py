"""Slow, obviously-correct reference implementations, one query at a time, in plain Python.

Each takes the rows of one query as ``(score, label)`` pairs in input order. A
``None`` or NaN score means not retrieved; a ``None`` label means unjudged. The
ranking is by score, highest first, with equal scores in input order, which is
what Python's stable ``sorted`` gives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Row = tuple[float | None, float | None]


def _retrieved(score: float | None) -> bool:
    return score is not None and not math.isnan(score)


def gain(label: float | None) -> float:
    return 0.0 if label is None or label < 0 else float(label)


def is_relevant(label: float | None, threshold: float = 0.0) -> bool:
    return label is not None and label > threshold


def ranked_labels(rows: Sequence[Row]) -> list[float | None]:
    retrieved = [row for row in rows if _retrieved(row[0])]
    return [label for _, label in sorted(retrieved, key=lambda row: -row[0])]  # type: ignore[operator]


def n_relevant(rows: Sequence[Row], threshold: float = 0.0) -> int:
    return sum(is_relevant(label, threshold) for _, label in rows)


def precision_at_k(rows: Sequence[Row], k: int, threshold: float = 0.0) -> float:
    top = ranked_labels(rows)[:k]
    return sum(is_relevant(label, threshold) for label in top) / k


def recall_at_k(rows: Sequence[Row], k: int, threshold: float = 0.0) -> float | None:
    total = n_relevant(rows, threshold)
    if total == 0:
        return None
    top = ranked_labels(rows)[:k]
    return sum(is_relevant(label, threshold) for label in top) / total


def f_beta_at_k(rows: Sequence[Row], k: int, beta: float, threshold: float = 0.0) -> float | None:
    recall = recall_at_k(rows, k, threshold)
    if recall is None:
        return None
    precision = precision_at_k(rows, k, threshold)
    if precision + recall == 0:
        return 0.0
    return (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


def hit_rate_at_k(rows: Sequence[Row], k: int, threshold: float = 0.0) -> float:
    return float(any(is_relevant(label, threshold) for label in ranked_labels(rows)[:k]))


def average_precision(rows: Sequence[Row], threshold: float = 0.0) -> float | None:
    total = n_relevant(rows, threshold)
    if total == 0:
        return None
    hits, summed = 0, 0.0
    for rank, label in enumerate(ranked_labels(rows), start=1):
        if is_relevant(label, threshold):
            hits += 1
            summed += hits / rank
    return summed / total


def ap_at_k(
    rows: Sequence[Row], k: int, denominator: str = "min_k_r", threshold: float = 0.0
) -> float | None:
    total = n_relevant(rows, threshold)
    if total == 0:
        return None
    hits, summed = 0, 0.0
    for rank, label in enumerate(ranked_labels(rows)[:k], start=1):
        if is_relevant(label, threshold):
            hits += 1
            summed += hits / rank
    if denominator == "min_k_r":
        return summed / min(k, total)
    if denominator == "r":
        return summed / total
    return summed / hits if hits else 0.0


def reciprocal_rank(
    rows: Sequence[Row], k: int | None = None, threshold: float = 0.0
) -> float | None:
    if n_relevant(rows, threshold) == 0:
        return None
    for rank, label in enumerate(ranked_labels(rows), start=1):
        if k is not None and rank > k:
            break
        if is_relevant(label, threshold):
            return 1.0 / rank
    return 0.0


def r_precision(rows: Sequence[Row], threshold: float = 0.0) -> float | None:
    total = n_relevant(rows, threshold)
    if total == 0:
        return None
    top = ranked_labels(rows)[:total]
    return sum(is_relevant(label, threshold) for label in top) / total


def _gain(label: float | None, kind: str) -> float:
    value = gain(label)
    return value if kind == "linear" else 2.0**value - 1.0


def dcg_at_k(rows: Sequence[Row], k: int, kind: str = "linear") -> float:
    return sum(
        _gain(label, kind) / math.log2(rank + 1)
        for rank, label in enumerate(ranked_labels(rows)[:k], start=1)
    )


def ndcg_at_k(rows: Sequence[Row], k: int, kind: str = "linear") -> float | None:
    ideal_gains = sorted((_gain(label, kind) for _, label in rows), reverse=True)[:k]
    ideal = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal_gains, start=1))
    if ideal == 0:
        return None
    return dcg_at_k(rows, k, kind) / ideal


def pr_points(rows: Sequence[Row], threshold: float = 0.0) -> list[dict[str, float | None]]:
    """One point per distinct score, highest first."""
    total = n_relevant(rows, threshold)
    retrieved = [row for row in rows if _retrieved(row[0])]
    points = []
    for cut in sorted({score for score, _ in retrieved}, reverse=True):  # type: ignore[type-var]
        inside = [label for score, label in retrieved if score >= cut]  # type: ignore[operator]
        tp = sum(is_relevant(label, threshold) for label in inside)
        points.append(
            {
                "threshold": cut,
                "tp": tp,
                "pp": len(inside),
                "precision": tp / len(inside),
                "recall": tp / total if total else None,
            }
        )
    return points


def interpolated_precision(
    rows: Sequence[Row], levels: Sequence[float], threshold: float = 0.0
) -> list[float] | None:
    total = n_relevant(rows, threshold)
    if total == 0:
        return None
    curve = []  # (recall, precision) at every retrieved rank
    hits = 0
    for rank, label in enumerate(ranked_labels(rows), start=1):
        hits += is_relevant(label, threshold)
        curve.append((hits / total, hits / rank))
    return [max((p for r, p in curve if r >= level - 1e-12), default=0.0) for level in levels]


def hits_at_k(rows: Sequence[Row], k: int, threshold: float = 0.0) -> float:
    return float(sum(is_relevant(label, threshold) for label in ranked_labels(rows)[:k]))


def interpolated_ap(
    rows: Sequence[Row], levels: Sequence[float], threshold: float = 0.0
) -> float | None:
    values = interpolated_precision(rows, levels, threshold)
    return None if values is None else sum(values) / len(values)


def cumulative_pr(rows: Sequence[Row], threshold: float = 0.0) -> list[dict[str, float] | None]:
    """Per input row: the counts at its rank (stable ties), None when not retrieved."""
    total = n_relevant(rows, threshold)
    order = sorted(
        (i for i, (score, _) in enumerate(rows) if _retrieved(score)),
        key=lambda i: -rows[i][0],  # type: ignore[operator]
    )
    points: list[dict[str, float] | None] = [None] * len(rows)
    tp = 0
    for rank, i in enumerate(order, start=1):
        tp += is_relevant(rows[i][1], threshold)
        points[i] = {
            "tp": tp,
            "pp": rank,
            "precision": tp / rank,
            "recall": tp / total if total else None,  # type: ignore[dict-item]
        }
    return points


def binned_pr_curve(
    rows: Sequence[Row], bins: int, threshold: float = 0.0
) -> list[dict[str, float | None]]:
    """Equal bins along the ranking: bin i ends at rank ceil(i * N / bins)."""
    total = n_relevant(rows, threshold)
    retrieved = sorted(
        (row for row in rows if _retrieved(row[0])),
        key=lambda row: -row[0],  # type: ignore[operator]
    )
    ends = sorted({-(-i * len(retrieved) // bins) for i in range(1, bins + 1)} - {0})
    points = []
    for end in ends:
        tp = sum(is_relevant(label, threshold) for _, label in retrieved[:end])
        points.append(
            {
                "threshold": retrieved[end - 1][0],
                "tp": tp,
                "pp": end,
                "precision": tp / end,
                "recall": tp / total if total else None,
            }
        )
    return points
