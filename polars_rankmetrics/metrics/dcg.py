"""Discounted cumulative gain: DCG@k and nDCG@k, and trec_eval's gain-based measures.

trec_eval's variants live here too: nDCG with custom gains per relevance level
(``ndcg.1=3,2=9``), ``dcg`` and ``ideal_dcg``, ``ndcg_rel``, ``Rndcg``, the
normalised gain ``G`` and the binary gain ``binG``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_rankmetrics._validate import (
    MAX_CUTOFF,
    Gain,
    IntoExpr,
    NoRelevant,
    Ties,
    check_bool,
    check_k,
    check_number,
    choice,
    is_integral,
    optional,
)
from polars_rankmetrics.engine import Ranked, Ranking, evaluate_one, statistic
from polars_rankmetrics.engine.ranked import computed_once, in_order, log2
from polars_rankmetrics.engine.ties import tie_mean

Gains = tuple[tuple[int, float], ...]
"""Custom ``(level, gain)`` pairs: a row of that level gains that much; empty for the labels."""


def check_gains(value: object, name: str) -> Gains:
    """Return custom gains, from a mapping or pairs of integer level to finite gain."""
    refusal = f"`{name}` must map integer relevance levels to gains, got {value!r}"
    pairs = list(value.items()) if isinstance(value, Mapping) else value
    if isinstance(pairs, str) or not isinstance(pairs, Sequence):
        raise ValueError(refusal)
    gains = []
    for pair in pairs:
        if not isinstance(pair, Sequence) or len(pair) != 2 or not is_integral(pair[0]):
            raise ValueError(refusal)
        gains.append((int(pair[0]), check_number(pair[1], name)))
    if len({level for level, _ in gains}) != len(gains):
        msg = f"`{name}` gives a relevance level more than once: {value!r}"
        raise ValueError(msg)
    return tuple(gains)


# ------------------------------------------------------------------ DCG, nDCG


def _relevant_only(ranked: Ranked, labels: pl.Expr) -> pl.Expr:
    """``labels`` where the threshold admits them, else 0 (ranx's gains at ``-l2``)."""
    return pl.when(ranked.threshold.admits(labels)).then(labels).otherwise(0.0)


@statistic(
    exact_average=True,
    top_k="k",
    k=check_k,
    gain=choice(Gain),
    relevant_only=check_bool,
)
def dcg_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int, gain: Gain, relevant_only: bool = False
) -> pl.Expr:
    """DCG@k over a ranked list; unretrieved rows gain nothing.

    For tied scores the expected gain at a position is its tie group's mean gain.
    With ``relevant_only`` only relevant rows gain (their label), as in ranx's
    ``dcg@k-l2``.
    """
    if ranked.ties == "average":
        label = _relevant_only(ranked, ranked.label) if relevant_only else ranked.label
        gains = pl.when(ranked.retrieved).then(ranked.gain(label, gain)).otherwise(0.0)
        gains = tie_mean(ranked, gains).head(k)
        # `+ 0.0`: an empty list's sum is -0.0 in polars; nothing retrieved gains 0.0.
        return ranked.aggregate(in_order(gains / ranked.top_log2_rank(k))) + 0.0

    def gain_of(top: pl.Expr) -> pl.Expr:
        # A retrieved row's code is its label, an unretrieved one's is negative: clipped, 0.
        retrieved = top.clip(lower_bound=0.0)
        return ranked.gain(_relevant_only(ranked, retrieved) if relevant_only else retrieved, gain)

    return ranked.top_dcg(k, gain_of) + 0.0


def _ideal_dcg(ranked: Ranked, k: int, gain: Gain, relevant_only: bool = False) -> pl.Expr:
    """DCG@k of the best ordering of every judged row, retrieved or not."""
    # The gain is increasing in the label, so the ideal order of gains is that of labels.

    def gains(labels: pl.Expr) -> pl.Expr:
        if relevant_only:  # still in decreasing order: the admitted labels are the highest
            labels = _relevant_only(ranked, labels)
        return ranked.gain(labels, gain)

    return ranked.ideal_dcg(k, gains)


def _no_custom_gains(params: Mapping[str, Any]) -> bool:
    return not params.get("gains")


@statistic(
    exact_average=_no_custom_gains,
    top_k="k",
    k=optional(check_k),
    gain=choice(Gain),
    gains=check_gains,
    relevant_only=check_bool,
)
def ndcg_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    k: int | None = None,
    gain: Gain = "linear",
    gains: Gains = (),
    relevant_only: bool = False,
) -> pl.Expr:
    """nDCG@k (the whole ranking without k): null (or 0) when the ideal DCG is 0.

    With custom ``gains`` a row of a listed level gains that much, any other
    judged row its label, and an unjudged row nothing (trec_eval's ``ndcg.1=3``).
    With ``relevant_only`` only relevant rows gain, in the ranking and in the
    ideal (ranx's ``ndcg@k-l2``).
    """
    fallback = None if no_relevant == "null" else 0.0
    if gains:
        if gain != "linear" or relevant_only:
            msg = "nDCG: custom `gains` replace the labels; they need gain='linear'"
            raise ValueError(msg)
        dcg, ideal = _dcg_parts(ranked, gains, k)
        return pl.when(ideal > 0).then(dcg / ideal).otherwise(fallback)
    cutoff = MAX_CUTOFF if k is None else k
    ideal = _ideal_dcg(ranked, cutoff, gain, relevant_only)
    dcg = dcg_statistic(ranked, k=cutoff, gain=gain, relevant_only=relevant_only)
    if gain == "exponential":
        # 2**label overflows a double above label 1023: DCG and ideal DCG are
        # then inf, and their ratio (inf / inf) is undefined, so null, not NaN.
        defined = pl.when(ideal.is_infinite()).then(None).otherwise(dcg / ideal)
        return pl.when(ideal > 0).then(defined).otherwise(fallback)
    return pl.when(ideal > 0).then(dcg / ideal).otherwise(fallback)


# ------------------------------------------------ trec_eval's gain measures


def _listed(gains: Gains, level: int) -> float | None:
    """The custom gain of ``level``: the first pair that names it."""
    return next((value for listed, value in gains if listed == level), None)


def _judged_gain(ranked: Ranked, gains: Gains) -> pl.Expr:
    """The gain of each judged row (its level's custom gain, else its label); 0 if unjudged.

    The ideal ranking orders these: trec_eval counts only judged rows in it.
    """
    if not gains:
        return ranked.label
    # `pl`, `pl.when(...).then(...)` and its chain all offer `.when`.
    chain: Any = pl
    for level, value in gains:
        if level >= 0:
            chain = chain.when(ranked.raw == float(level)).then(pl.lit(value))
    level_gain: pl.Expr = ranked.raw if chain is pl else chain.otherwise(ranked.raw)
    return pl.when(ranked.judged).then(level_gain).otherwise(0.0)


def trec_gain(ranked: Ranked, gains: Gains) -> pl.Expr:
    """The gain of each row in the ranking (trec_eval's ``get_gain``).

    A judged row gains its level's custom gain, else its label. An unjudged row
    gains 0, unless a custom gain names level -1 (a row not in the qrels: a null
    label) or -2 (a row in the pool but unjudged: a negative label), trec_eval's
    codes for them.
    """
    judged = _judged_gain(ranked, gains)
    not_in_pool, unjudged = _listed(gains, -1), _listed(gains, -2)
    if not_in_pool is None and unjudged is None:
        return judged
    return (
        pl.when(ranked.judged)
        .then(judged)
        .when(ranked.raw.is_null())
        .then(pl.lit(not_in_pool or 0.0))
        .otherwise(pl.lit(unjudged or 0.0))
    )


def _retrieved_gain(ranked: Ranked, gains: Gains) -> pl.Expr:
    return pl.when(ranked.retrieved).then(trec_gain(ranked, gains)).otherwise(0.0)


_TABLE_LEVELS = 32
"""Up to this many judged levels, fractional custom gains follow trec_eval's gain table."""


def _glibc_merge_sort(entries: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """Sort ``(level, gain)`` entries as trec_eval does: glibc's merge sort.

    It compares ``(int)(gain1 - gain2)``, so gains less than 1 apart compare
    equal and keep their order.
    """
    if len(entries) <= 1:
        return entries
    half = len(entries) // 2
    left, right = _glibc_merge_sort(entries[:half]), _glibc_merge_sort(entries[half:])
    merged = []
    while left and right:
        merged.append(left.pop(0) if int(left[0][1] - right[0][1]) <= 0 else right.pop(0))
    return merged + left + right


def gain_table_order(gains: Gains, levels: int) -> dict[int, int]:
    """The order in which trec_eval fills the ideal ranking from levels 0..``levels``-1.

    trec_eval lists the custom gains, then every other level (gain = level),
    sorts them (:func:`_glibc_merge_sort`) and fills the ideal ranking from the
    last entry down, skipping levels no document has, and stopping at the first
    level some document has whose gain is <= 0. Returns each level's place.
    """
    listed = dict(gains)
    table = list(gains) + [(level, float(level)) for level in range(levels) if level not in listed]
    return {level: place for place, (level, _) in enumerate(reversed(_glibc_merge_sort(table)))}


def _ideal_gains(ranked: Ranked, gains: Gains) -> pl.Expr:
    """Return the positive gains of every judged row in the ideal order, then zeros.

    The ideal order is by gain, largest first; with custom gains that are not
    whole numbers, it is trec_eval's gain table order (:func:`gain_table_order`),
    which differs when two gains are less than 1 apart.
    """
    if not gains:
        # The gains are the labels: their ideal order is the ranking's, which the
        # engine sorts once per list for every statistic that reads it.
        return ranked.ideal_labels.clip(lower_bound=0.0)
    judged_gain = _judged_gain(ranked, gains)
    if all(float(gain).is_integer() for _, gain in gains):
        return judged_gain.sort(descending=True).clip(lower_bound=0.0)
    levels = ranked.raw.filter(ranked.judged).max() + 1.0
    mapping = {
        (count * 1024 + level): float(place)
        for count in range(1, _TABLE_LEVELS + 1)
        for level, place in gain_table_order(gains, count).items()
        if level >= 0
    }
    key = (levels * 1024.0 + ranked.raw).cast(pl.Int64, strict=False)
    place = key.replace_strict(mapping, default=None, return_dtype=pl.Float64)
    place = pl.when(levels <= _TABLE_LEVELS).then(place).otherwise(-judged_gain)
    place = pl.when(ranked.judged).then(place)
    stop = place.filter(judged_gain <= 0.0).min()
    walked = place.is_not_null() & (stop.is_null() | (place < stop))
    ordered = pl.when(walked).then(judged_gain).otherwise(0.0)
    return ordered.sort_by(place.fill_null(math.inf)).clip(lower_bound=0.0)


def _cumulative_dcg(ranked: Ranked, gains: Gains) -> tuple[pl.Expr, pl.Expr]:
    """Return the running DCG of the ranking and of the ideal ranking, per position.

    Each gain is divided by ``log2(rank + 1)`` and added in rank order, as
    trec_eval does (``cum_sum`` adds in order).
    """
    if not gains:  # shared by every statistic that reads them (the engine's fields)
        return ranked.running_dcg, ranked.running_ideal_dcg
    log2_rank = ranked.log2_rank
    dcg = (_retrieved_gain(ranked, gains) / log2_rank).cum_sum()
    ideal = (_ideal_gains(ranked, gains) / log2_rank).cum_sum()
    return dcg, ideal


def _dcg_parts(ranked: Ranked, gains: Gains, k: int | None = None) -> tuple[pl.Expr, pl.Expr]:
    """DCG and ideal DCG over the whole ranking (or its top ``k``), with custom gains."""
    dcg, ideal = _cumulative_dcg(ranked, gains)
    if k is not None:
        dcg, ideal = dcg.head(k), ideal.head(k)
    return dcg.last().fill_null(0.0), ideal.last().fill_null(0.0)


def _count(mask: pl.Expr) -> pl.Expr:
    return mask.cast(pl.Float64).sum()


def _safe_ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator``, or 0 where the denominator is 0."""
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(0.0)


@statistic(gains=check_gains)
def trec_dcg_statistic(ranked: Ranked, no_relevant: NoRelevant, *, gains: Gains = ()) -> pl.Expr:
    """DCG over the whole ranking, with custom gains (trec_eval's ``dcg``)."""
    return _dcg_parts(ranked, gains)[0]


@statistic(gains=check_gains)
def ideal_dcg_statistic(ranked: Ranked, no_relevant: NoRelevant, *, gains: Gains = ()) -> pl.Expr:
    """The ideal DCG over every judged row, with custom gains (trec_eval's ``ideal_dcg``)."""
    return _dcg_parts(ranked, gains)[1]


@statistic(gains=check_gains)
def ndcg_rel_statistic(ranked: Ranked, no_relevant: NoRelevant, *, gains: Gains = ()) -> pl.Expr:
    """ndcg_rel: nDCG averaged over the ranks of the rows with a positive gain.

    ``(sum of nDCG@i over the retrieved ranks i with a positive gain, in rank
    order, + (g - f)·nDCG) / g``, where g counts the judged rows with a positive
    gain, f the retrieved ones, and nDCG is over the whole ranking. "Relevant"
    means a positive gain here, whatever the relevance threshold (as in
    trec_eval, where ``-l`` does not change it). 0 when the sum is not positive;
    undefined (``no_relevant``) without positive gains.
    """
    dcg, ideal = _cumulative_dcg(ranked, gains)
    values = {
        "dcg": dcg,
        "ideal": ideal,
        "positive": _ideal_gains(ranked, gains) > 0.0,
        "found": ranked.retrieved & (_retrieved_gain(ranked, gains) > 0.0),
    }
    fallback = None if no_relevant == "null" else 0.0

    def mean(field: dict[str, pl.Expr]) -> pl.Expr:
        # Each value above is computed once (read here as fields, up to four times).
        dcg, ideal, found = field["dcg"], field["ideal"], field["found"]
        n_positive = _count(field["positive"])
        at_found = in_order((dcg / ideal).filter(found))
        rest = (n_positive - _count(found)) * dcg.last() / ideal.last()
        total = at_found + rest
        value = pl.when(total > 0.0).then(total / n_positive).otherwise(0.0)
        return pl.when(n_positive > 0.0).then(value).otherwise(fallback)

    return computed_once(values, mean)


@statistic(gains=check_gains)
def r_ndcg_statistic(ranked: Ranked, no_relevant: NoRelevant, *, gains: Gains = ()) -> pl.Expr:
    """Rndcg: nDCG averaged at the ranks where the ideal gain drops a level.

    Those ranks are the ends of the runs of equal gain in the ideal ranking
    (the R levels); when the run retrieves at least two rows more than there
    are positive gains, nDCG at the end of the ranking is averaged in as well.
    The values are added in rank order. With no such rank (no positive gain)
    the mean is 0/0, NaN, as in trec_eval.
    """
    dcg, ideal = _cumulative_dcg(ranked, gains)
    values = {
        "dcg": dcg,
        "ideal": ideal,
        "gain": _ideal_gains(ranked, gains),
        "position": ranked.rank - 1.0,
        "retrieved": ranked.retrieved,
    }

    def mean(field: dict[str, pl.Expr]) -> pl.Expr:
        # Each value above is computed once (read here as fields); the cheap
        # expressions below are read two or three times each.
        dcg, ideal, ideal_gain, position = (field[n] for n in ("dcg", "ideal", "gain", "position"))
        n_positive = _count(ideal_gain > 0.0)
        level_ends = (position < n_positive) & (
            (position == n_positive - 1.0) | (ideal_gain.shift(-1) != ideal_gain)
        )
        at_ends = in_order((dcg / ideal).filter(level_ends))
        extra = (_count(field["retrieved"]) >= n_positive + 2.0) & (ideal.last() > 0.0)
        total = pl.when(extra).then(at_ends + dcg.last() / ideal.last()).otherwise(at_ends)
        return total / (_count(level_ends) + extra.cast(pl.Float64))

    return ranked.if_relevant(computed_once(values, mean), no_relevant)


@statistic(gains=check_gains)
def normalized_gain_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, gains: Gains = ()
) -> pl.Expr:
    """G: each gain discounted by the gain still missing against the ideal.

    ``G(i) = gain(i) / log2(2 + cost(i) - found(i))``, where ``found(i)`` sums the
    gains retrieved up to rank i and ``cost(i)`` sums ``max(ideal gain, 1)`` up to
    rank i. G is the sum over ranks divided by the total ideal gain (sums in
    rank order, as trec_eval's).
    """
    gain = _retrieved_gain(ranked, gains)
    ideal = _ideal_gains(ranked, gains)
    cost = ideal.clip(lower_bound=1.0).cum_sum()
    found = gain.cum_sum()
    whole = all(float(value).is_integer() for _, value in gains)
    # Only the rows with a gain add a term: the discount is computed for those only.
    # trec_eval adds them to 0.0 (`+ 0.0`: a sum of -0.0 terms alone is 0.0).
    has_gain = ranked.retrieved & (gain != 0.0)
    discount = log2((2.0 + cost - found).filter(has_gain), whole=whole)
    terms = gain.filter(has_gain) / discount
    return _safe_ratio(in_order(terms) + 0.0, in_order(ideal))


@statistic()
def binary_gain_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """binG: ``(sum over relevant retrieved rows of 1 / log2(2 + non-relevant rows above)) / R``."""
    hit = ranked.top_hit(None)
    nonrelevant_above = ranked.rank - hit.cast(pl.Float64).cum_sum()
    value = in_order((1.0 / log2(2.0 + nonrelevant_above)).filter(hit)) / ranked.n_relevant
    return ranked.if_relevant(value, no_relevant)


# ---------------------------------------------------------------- functions


def dcg_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    gain: Gain = "linear",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Discounted cumulative gain at k.

    ``DCG@k = sum(gain(label_i) / log2(i + 1) for the retrieved ranks i <= k)``.
    Null labels (unjudged) and negative labels gain 0. With ``gain='linear'`` the
    gain is the label itself, as in trec_eval, scikit-learn's ``dcg_score`` and
    ranx; ``gain='exponential'`` uses ``2**label - 1`` (Burges et al.), which
    equals the linear gain for binary labels. Above label 1023, ``2**label``
    exceeds a double: the exponential DCG is then ``inf``.

    Parameters
    ----------
    relevance
        Graded relevance labels: bool, int or float.
    k
    by, descending, ties
        As for :func:`~polars_rankmetrics.precision_at_k`: the score and tie-breakers,
        their direction and the tie policy.
    gain : {'linear', 'exponential'}
        How a label becomes a gain.

    References
    ----------
    Järvelin and Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [3, 2, 1], "relevance": [3, 0, 2]})
    >>> df.select(
    ...     linear=rm.dcg_at_k("relevance", 3, by="score"),
    ...     exponential=rm.dcg_at_k("relevance", 3, by="score", gain="exponential"),
    ... )
    shape: (1, 2)
    ┌────────┬─────────────┐
    │ linear ┆ exponential │
    │ ---    ┆ ---         │
    │ f64    ┆ f64         │
    ╞════════╪═════════════╡
    │ 4.0    ┆ 8.5         │
    └────────┴─────────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold=0, ties=ties)
    return evaluate_one(ranking, dcg_statistic.bind("dcg_at_k", k=k, gain=gain))


def ndcg_at_k(
    relevance: IntoExpr,
    k: int,
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    gain: Gain = "linear",
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
) -> pl.Expr:
    """
    Normalised discounted cumulative gain at k: DCG@k over the ideal DCG@k.

    The ideal ranking orders every judged row of the group by its gain, whether
    it was retrieved or not (a row with a null score counts in the ideal but
    not in the DCG), as trec_eval's ``ndcg_cut_k`` does. A query whose ideal DCG
    is 0 (no row with a positive label) has no defined nDCG; see
    ``no_relevant``. With exponential gains, a label above 1023 makes both DCGs
    ``inf`` (``2**label`` exceeds a double): nDCG is then null (undefined), never NaN.

    Parameters
    ----------
    relevance
        Graded relevance labels: bool, int or float.
    k
    by, descending, ties
        As for :func:`~polars_rankmetrics.precision_at_k`: the score and tie-breakers,
        their direction and the tie policy.
    gain : {'linear', 'exponential'}
        How a label becomes a gain; see :func:`dcg_at_k`.
    no_relevant : {'null', 'zero'}
        The value for a query whose ideal DCG is 0.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [3, 2, 1, None], "relevance": [3, 0, 2, 3]})
    >>> df.select(rm.ndcg_at_k("relevance", 3, by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ relevance │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.678796  │
    └───────────┘
    """
    ranking = Ranking.build(relevance, by, descending, threshold=0, ties=ties)
    return evaluate_one(
        ranking, ndcg_statistic.bind("ndcg_at_k", no_relevant, k=check_k(k), gain=gain)
    )
