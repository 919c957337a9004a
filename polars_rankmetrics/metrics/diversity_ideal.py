"""The ideal ranking of the novelty-based diversity measures (alpha-nDCG, nERR-IA, nNRBP).

The ideal of alpha-nDCG@k maximises ``sum_{r<=k} discount(r) · gain_r``, where a
document's gain depends on the documents above it (``gain = sum over its
subtopics j of w_j (1 - alpha)**c_j``, ``c_j`` the documents above covering j).
Finding it is NP-hard (Carterette, ICTIR 2009), so ndeval ranks greedily: each
rank takes the remaining document of largest gain, ties to the largest
document id. :func:`ideal_value` gives that greedy ideal (``'greedy'``,
ndeval's, the default) or the true maximum by branch and bound
(``'exact'``): the greedy list can fall short of it, and then a ranking scores
above 1.

The functions here are the definition, one query at a time in Python. The
measures compute the greedy ideal of all queries at once with
:mod:`.diversity_greedy` (numpy over all queries, the same bits; without
intent weights the whole measure, :mod:`.diversity_batched`);
``ideal='exact'`` runs :func:`ideal_value` once per query and statistic
(``map_batches`` inside the engine's ``list.agg``). Everything else of the
diversity measures is polars expressions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeAlias

import polars as pl

Ideal: TypeAlias = Literal["greedy", "exact"]
"""The ideal ranking: ndeval's greedy list, or the true maximum (branch and bound)."""

Discount: TypeAlias = Literal["log", "reciprocal", "geometric"]
"""``1/log2(r+1)`` (alpha-nDCG), ``1/r`` (nERR-IA), ``beta**(r-1)`` (nNRBP)."""

EXACT_NODE_LIMIT = 1_000_000
"""How many partial rankings ``ideal='exact'`` may explore for one query before it gives up."""

Pools = dict[tuple[Any, ...], list[Any]]
"""The relevant documents of a query by their (sorted) subtopics: documents with the same
subtopics are interchangeable, so each set keeps only its documents' tie-break keys
(their ids, or the set itself), sorted."""


def _documents(batch: pl.Series) -> tuple[Pools, dict[Any, float]]:
    """The relevant documents of one query and the intent weight of each subtopic.

    ``batch`` holds one struct per row that covers a subtopic: the subtopic
    list, and optionally the intent weights (``weights``) and the document id
    (``doc``). Weights default to 1 per subtopic (ndeval's unnormalised gain,
    whose ties are exact); without ids, ties go to the larger subtopic tuple,
    which does not depend on the run.
    """
    columns = batch.struct.unnest().to_dict(as_series=False)
    weight_lists = columns.get("weights")
    docs = columns.get("doc")
    weight: dict[Any, float] = {}
    pools: Pools = {}
    for i, subtopics in enumerate(columns["subtopics"]):
        if weight_lists is not None:
            for subtopic, value in zip(subtopics, weight_lists[i] or (), strict=False):
                weight.setdefault(subtopic, float(value))
        covered = tuple(sorted(set(subtopics), key=str))
        pools.setdefault(covered, []).append(covered if docs is None else docs[i])
        for subtopic in covered:
            weight.setdefault(subtopic, 1.0)
    for keys in pools.values():
        keys.sort()
    return pools, weight


def _discounts(discount: Discount, depth: int, beta: float) -> list[float]:
    if discount == "log":
        return [1.0 / math.log2(rank + 1.0) for rank in range(1, depth + 1)]
    if discount == "reciprocal":
        return [1.0 / rank for rank in range(1, depth + 1)]
    return [beta ** (rank - 1) for rank in range(1, depth + 1)]


def _gain(
    covered: Sequence[Any], counts: dict[Any, int], weight: dict[Any, float], keep: float
) -> float:
    return sum(weight[j] * keep ** counts[j] for j in covered)


def greedy_gains(pools: Pools, weight: dict[Any, float], alpha: float, depth: int) -> list[float]:
    """The greedy ideal of ndeval: the gains of its first ``depth`` ranks (unnormalised weights).

    Each rank takes the document of largest gain, ties to the largest key
    (ndeval: document id); within a set of equal subtopics that is its last key.
    """
    keep = 1.0 - alpha
    counts = dict.fromkeys(weight, 0)
    remaining = {covered: list(keys) for covered, keys in pools.items()}
    gains: list[float] = []
    while remaining and len(gains) < depth:
        scored = {covered: _gain(covered, counts, weight, keep) for covered in remaining}
        best = max(remaining, key=lambda covered: (scored[covered], remaining[covered][-1]))
        gains.append(scored[best])
        remaining[best].pop()
        if not remaining[best]:
            del remaining[best]
        for j in best:
            counts[j] += 1
    return gains


def exact_value(
    pools: Pools, weight: dict[Any, float], alpha: float, discounts: list[float]
) -> float:
    """The largest ``sum_r discounts[r] · gain_r`` over every ranking, by branch and bound.

    Documents with the same subtopics are interchangeable, so they are counted,
    not ranked apart. A partial ranking is abandoned when even the current
    gains of the remaining documents, best first, cannot beat the best
    ranking found (future gains only shrink). The greedy ranking is the first
    bound.
    """
    keep = 1.0 - alpha
    pool = {covered: len(keys) for covered, keys in pools.items()}
    counts = dict.fromkeys(weight, 0)
    greedy = greedy_gains(pools, weight, alpha, len(discounts))
    best = sum(d * g for d, g in zip(discounts, greedy, strict=False))
    nodes = 0

    def search(rank: int, value: float) -> None:
        nonlocal best, nodes
        nodes += 1
        if nodes > EXACT_NODE_LIMIT:
            msg = (
                f"ideal='exact' explored {EXACT_NODE_LIMIT:,} partial rankings of one query "
                "without finishing; use ideal='greedy' (ndeval's) for it"
            )
            raise ValueError(msg)
        if rank == len(discounts):
            best = max(best, value)
            return
        options = sorted(
            ((_gain(covered, counts, weight, keep), covered) for covered in pool if pool[covered]),
            reverse=True,
        )
        bound = value + sum(d * g for d, (g, _) in zip(discounts[rank:], options, strict=False))
        if not options or options[0][0] == 0.0 or bound <= best * (1.0 + 1e-12):
            best = max(best, value)
            return
        for gain, covered in options:
            pool[covered] -= 1
            for j in covered:
                counts[j] += 1
            search(rank + 1, value + discounts[rank] * gain)
            for j in covered:
                counts[j] -= 1
            pool[covered] += 1

    search(0, 0.0)
    return best


def ideal_value(
    batch: pl.Series,
    *,
    alpha: float,
    discount: Discount,
    depth: int | None,
    beta: float = 0.5,
    ideal: Ideal = "greedy",
) -> float:
    """``sum_{r<=depth} discount(r) · gain_r`` of one query's ideal ranking.

    Gains are normalised by the intent weights' total (1/S each by default), as
    the measures' own. ``depth=None`` ranks every relevant document.
    """
    pools, weight = _documents(batch)
    total = sum(weight.values())
    relevant = sum(len(keys) for keys in pools.values())
    if not relevant or total == 0.0:
        return 0.0
    length = relevant if depth is None else min(depth, relevant)
    discounts = _discounts(discount, length, beta)
    if ideal == "exact":
        value = exact_value(pools, weight, alpha, discounts)
    else:
        gains = greedy_gains(pools, weight, alpha, length)
        value = sum(d * g for d, g in zip(discounts, gains, strict=False))
    return value / total


def ideal_expr(fields: pl.Expr, **options: Any) -> pl.Expr:
    """:func:`ideal_value` of each list, for ``list.agg`` over a list of ``fields`` structs."""
    function: Callable[[pl.Series], float] = lambda batch: ideal_value(batch, **options)  # noqa: E731
    return fields.map_batches(
        lambda batch: pl.Series([function(batch)], dtype=pl.Float64),
        return_dtype=pl.Float64,
        returns_scalar=True,
    )
