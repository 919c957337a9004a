"""Every measure of trec_eval's ``all_trec`` set, as statistics over one ranked list.

Each statistic is an expression evaluated with ``list.agg`` over the group's
ranking (see :mod:`polars_rankmetrics._ranking`), so that any number of them
share one sort per query. Names and parameter syntax follow trec_eval 10
(``P.5,10``, ``iprec_at_recall.0.1,0.5``, ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``),
and :func:`parse_trec_measure` turns one such name into its output columns.

Definitions follow trec_eval's documentation and source (``m_<name>.c``). The
measures that need to tell unjudged from judged rows (``bpref``, ``infAP``,
``unj``, ``relstring``, ``num_nonrel_judged_ret``, ``rbp_resid``) and those with
custom gains read the ``{code, raw}`` list (:class:`JudgedRanked`); the rest
read the plain list. Where trec_eval gives 0 for a query without relevant
documents, the statistics follow ``no_relevant`` instead ('zero' reproduces
trec_eval).

References
----------
Buckley and Voorhees, "Retrieval evaluation with incomplete information",
SIGIR 2004 (bpref). Yilmaz and Aslam, "Estimating average precision with
incomplete and imperfect judgments", CIKM 2006 (infAP). Moffat and Zobel,
"Rank-biased precision for measurement of retrieval effectiveness", ACM TOIS
27(1), 2008 (rbp). Järvelin and Kekäläinen, ACM TOIS 20(4), 2002 (nDCG).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeAlias, cast

import polars as pl

from polars_rankmetrics._measure import Measure, Statistic
from polars_rankmetrics._ranking import JudgedRanked, NoRelevant, Ranked
from polars_rankmetrics.average_precision import (
    ap_at_k_statistic,
    average_precision_statistic,
)
from polars_rankmetrics.dcg import ndcg_statistic
from polars_rankmetrics.precision_recall import (
    hit_rate_statistic,
    precision_statistic,
    r_precision_statistic,
    recall_statistic,
)
from polars_rankmetrics.reciprocal_rank import reciprocal_rank_statistic

MIN_GEO_MEAN = 0.00001
"""trec_eval's floor for a per-query value in a geometric mean (gm_map, gm_bpref)."""

INFAP_EPSILON = 0.00001
"""trec_eval's smoothing constant in infAP."""

_WHOLE_RANKING = 2**62

Gains: TypeAlias = tuple[tuple[int, float], ...]
"""Custom ``level=gain`` pairs of the nDCG-like measures; empty for the default."""


# ---------------------------------------------------------------- vocabulary


def _hit(ranked: Ranked) -> pl.Expr:
    """Return True where the row at a position is retrieved and relevant."""
    return ranked.code > ranked.threshold


def _count(mask: pl.Expr) -> pl.Expr:
    return mask.cast(pl.Float64).sum()


def _cumulative(mask: pl.Expr) -> pl.Expr:
    """How many positions up to and including each one satisfy ``mask``."""
    return mask.cast(pl.Float64).cum_sum()


def _safe_ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator``, or 0 where the denominator is 0."""
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(0.0)


def _hits_at(ranked: Ranked, k: int | pl.Expr) -> pl.Expr:
    return ranked.top_hit(k).sum()


def _gain(ranked: Ranked, gains: Gains) -> pl.Expr:
    """Return the gain of each row: its label (default) or its level's custom gain.

    Unjudged rows (null or negative labels) gain 0, as in trec_eval.
    """
    if not gains:
        return ranked.label
    judged = cast(JudgedRanked, ranked)
    # `pl`, `pl.when(...).then(...)` and its chain all offer `.when`.
    chain: Any = pl
    for level, value in gains:
        chain = chain.when(judged.raw == float(level)).then(pl.lit(value))
    level_gain: pl.Expr = chain.otherwise(judged.raw)
    return pl.when(judged.judged).then(level_gain).otherwise(0.0)


def _retrieved_gain(ranked: Ranked, gains: Gains) -> pl.Expr:
    return pl.when(ranked.retrieved).then(_gain(ranked, gains)).otherwise(0.0)


def _ideal_gains(ranked: Ranked, gains: Gains) -> pl.Expr:
    """Return the positive gains of every judged row, largest first, then zeros."""
    return _gain(ranked, gains).sort(descending=True).clip(lower_bound=0.0)


def _discount(ranked: Ranked) -> pl.Expr:
    return ranked.discount


def _position(ranked: Ranked) -> pl.Expr:
    """Return the 0-based position of each row."""
    return ranked.rank - 1.0


# ------------------------------------------------------ counts and set measures


def num_ret_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Return the number of retrieved rows."""
    return _count(ranked.retrieved)


def num_rel_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """R: the number of relevant rows, retrieved or not."""
    return _count(ranked.relevant)


def num_rel_ret_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Return the number of relevant retrieved rows."""
    return _count(_hit(ranked))


def num_nonrel_judged_ret_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Return the number of retrieved rows judged (label >= 0) but not relevant."""
    judged = cast(JudgedRanked, ranked)
    return _count(judged.retrieved & judged.nonrelevant_judged)


def set_p_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Precision of the whole retrieved set."""
    return _safe_ratio(_count(_hit(ranked)), _count(ranked.retrieved))


def set_recall_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Recall of the whole retrieved set."""
    return ranked.if_relevant(_count(_hit(ranked)) / ranked.n_relevant, no_relevant)


def set_relative_p_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Relevant retrieved over min(retrieved, R)."""
    smaller = pl.min_horizontal(_count(ranked.retrieved), ranked.n_relevant.cast(pl.Float64))
    return ranked.if_relevant(_safe_ratio(_count(_hit(ranked)), smaller), no_relevant)


def set_map_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Set precision times set recall."""
    hits = _count(_hit(ranked))
    value = _safe_ratio(hits * hits, _count(ranked.retrieved) * ranked.n_relevant)
    return ranked.if_relevant(value, no_relevant)


def set_f_statistic(beta: float) -> Statistic:
    """F of set precision and set recall; ``beta`` weighs recall (trec_eval's x)."""

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        hits = _count(_hit(ranked))
        precision = hits / _count(ranked.retrieved)
        recall = hits / ranked.n_relevant
        value = (beta + 1.0) * precision * recall / (beta * precision + recall)
        return ranked.if_relevant(pl.when(hits > 0).then(value).otherwise(0.0), no_relevant)

    return statistic


def utility_statistic(coefficients: Sequence[float]) -> Statistic:
    """``a·(rel ret) + b·(nonrel ret) + c·(rel not ret) + d·(nonrel not ret)``.

    The collection size is unknown, so the last cell is ``-(ret + R - rel ret)``,
    as trec_eval computes it without ``-N``.
    """
    a, b, c, d = coefficients

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        hits = _count(_hit(ranked))
        retrieved = _count(ranked.retrieved)
        relevant = ranked.n_relevant.cast(pl.Float64)
        return (
            a * hits
            + b * (retrieved - hits)
            + c * (relevant - hits)
            + d * (hits - retrieved - relevant)
        )

    return statistic


# ----------------------------------------------------------- ranked measures


def relative_precision_statistic(k: int) -> Statistic:
    """Relevant rows in the top k over min(k, R)."""

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        smaller = pl.min_horizontal(pl.lit(float(k)), ranked.n_relevant.cast(pl.Float64))
        return ranked.if_relevant(_hits_at(ranked, k) / smaller, no_relevant)

    return statistic


def unjudged_statistic(k: int) -> Statistic:
    """Return the fraction of the top k that is unjudged (missing places count as judged)."""

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        judged = cast(JudgedRanked, ranked)
        return _count(judged.unjudged_retrieved.head(k)) / k

    return statistic


def r_precision_multiple_statistic(multiple: float) -> Statistic:
    """Precision at rank ``floor(multiple·R + 0.9)`` (0 when that rank is 0)."""

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        cutoff = (multiple * ranked.n_relevant.cast(pl.Float64) + 0.9).floor()
        hits = _hits_at(ranked, cutoff.cast(pl.Int64))
        return ranked.if_relevant(_safe_ratio(hits, cutoff), no_relevant)

    return statistic


def _recall_cutoff(level: float, n_relevant: pl.Expr) -> pl.Expr:
    """Return the number of relevant rows a recall level stands for: ``lround(level·R)``."""
    return (level * n_relevant.cast(pl.Float64) + 0.5).floor()


def interpolated_precision_statistic(level: float) -> Statistic:
    """Interpolated precision at a recall level, as trec_eval 10 computes it.

    The level is first turned into a number of relevant rows,
    ``c = lround(level·R)``; the value is the highest precision at the rank of
    the m-th relevant retrieved row, over every m >= max(c, 1), or 0.
    """

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        hit = _hit(ranked)
        found = _cumulative(hit)
        cutoff = pl.max_horizontal(_recall_cutoff(level, ranked.n_relevant), pl.lit(1.0))
        precision = (found / ranked.rank).filter(hit & (found >= cutoff))
        return ranked.if_relevant(precision.max().fill_null(0.0), no_relevant)

    return statistic


def eleven_point_statistic(levels: Sequence[float]) -> Statistic:
    """Return the mean interpolated precision over recall levels (11pt_avg)."""
    parts = [interpolated_precision_statistic(level) for level in levels]

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        total = pl.sum_horizontal(*(part(ranked, no_relevant) for part in parts))
        return ranked.if_relevant(total / len(levels), no_relevant)

    return statistic


def bpref_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """bpref: how few judged non-relevant rows rank above each relevant one.

    ``bpref = (1/R) · sum over relevant retrieved r of
    (1 - min(n_r, R) / min(N, R))``, where ``n_r`` counts the judged
    non-relevant rows ranked above r and N all judged non-relevant rows.
    Unjudged rows are skipped.
    """
    judged = cast(JudgedRanked, ranked)
    nonrelevant = judged.nonrelevant_judged
    n_relevant = judged.n_relevant.cast(pl.Float64)
    above = _cumulative(nonrelevant & judged.retrieved)
    scale = pl.min_horizontal(_count(nonrelevant), n_relevant)
    term = pl.when(above > 0).then(1.0 - pl.min_horizontal(above, n_relevant) / scale)
    value = term.otherwise(1.0).filter(_hit(judged)).sum() / n_relevant
    return judged.if_relevant(value, no_relevant)


def inferred_ap_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """infAP: AP estimated from a judged sample of the pool (Yilmaz and Aslam).

    At the relevant retrieved row at 0-based position j > 0, the expected
    precision is ``1/(j+1) + (j/(j+1)) · (above/j) · (rel + ε)/(rel + nonrel + 2ε)``,
    where ``above`` counts the rows above that are in the pool (judged, or with a
    negative label), and ``rel``/``nonrel`` the judged ones above. Rows with a
    null label (not in the pool) count as non-relevant. Divided by R.
    """
    judged = cast(JudgedRanked, ranked)
    hit = _hit(judged)
    position = _position(judged)
    relevant_above = _cumulative(hit) - hit.cast(pl.Float64)
    nonrelevant_above = _cumulative(judged.nonrelevant_judged & judged.retrieved)
    pool_unjudged_above = _cumulative(judged.retrieved & (judged.raw < 0.0))
    in_pool_above = relevant_above + nonrelevant_above + pool_unjudged_above
    expected = 1.0 / (position + 1.0) + (position / (position + 1.0)) * (
        in_pool_above / position
    ) * (
        (relevant_above + INFAP_EPSILON)
        / (relevant_above + nonrelevant_above + 2.0 * INFAP_EPSILON)
    )
    term = pl.when(position == 0.0).then(1.0).otherwise(expected)
    value = term.filter(hit).sum() / judged.n_relevant
    return judged.if_relevant(value, no_relevant)


def binary_gain_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """binG: mean over relevant rows of ``1 / log2(2 + non-relevant rows above)``."""
    hit = _hit(ranked)
    nonrelevant_above = ranked.rank - _cumulative(hit)
    value = (1.0 / (2.0 + nonrelevant_above).log(2)).filter(hit).sum() / ranked.n_relevant
    return ranked.if_relevant(value, no_relevant)


def normalized_gain_statistic(gains: Gains) -> Statistic:
    """G: each gain discounted by the gain still missing against the ideal.

    ``G(i) = gain(i) / log2(2 + cost(i) - found(i))``, where ``found(i)`` sums the
    gains retrieved up to rank i and ``cost(i)`` sums ``max(ideal gain, 1)`` up to
    rank i. G is the sum over ranks divided by the total ideal gain.
    """

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        gain = _retrieved_gain(ranked, gains)
        ideal = _ideal_gains(ranked, gains)
        cost = ideal.clip(lower_bound=1.0).cum_sum()
        found = gain.cum_sum()
        term = pl.when(ranked.retrieved & (gain != 0.0)).then(gain / (2.0 + cost - found).log(2))
        total_ideal = ideal.sum()
        return _safe_ratio(term.otherwise(0.0).sum(), total_ideal)

    return statistic


def _dcg_parts(ranked: Ranked, gains: Gains) -> tuple[pl.Expr, pl.Expr]:
    """Return the cumulative DCG of the ranking and of the ideal ranking, per position."""
    discount = _discount(ranked)
    dcg = (_retrieved_gain(ranked, gains) * discount).cum_sum()
    ideal = (_ideal_gains(ranked, gains) * discount).cum_sum()
    return dcg, ideal


def gain_ndcg_statistic(gains: Gains, output: Literal["ndcg", "dcg", "ideal_dcg"]) -> Statistic:
    """NDCG (or DCG, ideal DCG) over the whole ranking, with custom level gains."""

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        dcg, ideal = _dcg_parts(ranked, gains)
        if output == "dcg":
            return dcg.last().fill_null(0.0)
        if output == "ideal_dcg":
            return ideal.last().fill_null(0.0)
        fallback = None if no_relevant == "null" else 0.0
        return pl.when(ideal.last() > 0).then(dcg.last() / ideal.last()).otherwise(fallback)

    return statistic


def ndcg_rel_statistic(gains: Gains) -> Statistic:
    """ndcg_rel: nDCG averaged over the ranks of the rows with a positive gain.

    A positive-gain row that is not retrieved contributes the final nDCG.
    """

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        dcg, ideal = _dcg_parts(ranked, gains)
        positive = _ideal_gains(ranked, gains) > 0.0
        n_positive = _count(positive)
        found = ranked.retrieved & (_retrieved_gain(ranked, gains) > 0.0)
        at_found = (dcg / ideal).filter(found).sum()
        rest = (n_positive - _count(found)) * dcg.last() / ideal.last()
        total = at_found + rest
        value = pl.when((n_positive > 0) & (total > 0)).then(total / n_positive)
        return ranked.if_relevant(value.otherwise(0.0), no_relevant)

    return statistic


def r_ndcg_statistic(gains: Gains) -> Statistic:
    """Rndcg: nDCG averaged at the ranks where the ideal gain drops a level.

    Those ranks are the ends of the runs of equal gain in the ideal ranking
    (the R levels); when the run retrieves at least two rows more than there
    are positive gains, nDCG at the end of the ranking is averaged in as well.
    """

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        dcg, ideal = _dcg_parts(ranked, gains)
        ideal_gain = _ideal_gains(ranked, gains)
        n_positive = _count(ideal_gain > 0.0)
        position = _position(ranked)
        level_ends = (position < n_positive) & (
            (position == n_positive - 1.0) | (ideal_gain.shift(-1) != ideal_gain)
        )
        ratio = dcg / ideal
        extra = _count(ranked.retrieved) >= n_positive + 2.0
        total = ratio.filter(level_ends).sum() + pl.when(extra).then(
            dcg.last() / ideal.last()
        ).otherwise(0.0)
        count = _count(level_ends) + extra.cast(pl.Float64)
        value = _safe_ratio(total, count)
        return ranked.if_relevant(value, no_relevant)

    return statistic


def rank_biased_precision_statistic(persistence: float) -> Statistic:
    """RBP: ``(1 - p) · sum(gain_i · p^(i-1))``, gains scaled into [0, 1].

    The gain of a row is its level; when the largest level of the query is
    above 1, levels are divided by it (trec_eval's normalisation).
    """

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        gain = _retrieved_gain(ranked, ())
        top = ranked.label.max()
        scaled = pl.when(top > 1.0).then(gain / top).otherwise(gain)
        weight = pl.lit(persistence).pow(ranked.rank - 1.0)
        return (1.0 - persistence) * (scaled * weight).sum()

    return statistic


def rbp_residual_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Return the RBP mass of unjudged retrieved rows and of the ranks below the run (p = 0.9)."""
    judged = cast(JudgedRanked, ranked)
    persistence = 0.9
    unjudged = judged.unjudged_retrieved
    weight = pl.lit(persistence).pow(judged.rank - 1.0)
    tail = pl.lit(persistence).pow(_count(judged.retrieved))
    value = tail + (1.0 - persistence) * weight.filter(unjudged).sum()
    return pl.when(unjudged.any()).then(value).otherwise(0.0)


def relevance_string_statistic(length: int) -> Statistic:
    """Return the labels of the top ``length`` rows as text: a digit per judged level.

    ``>`` stands for a level above 9, ``-`` for a row that is not judged (null
    label) and ``.`` for a negative label (in the pool but unjudged).
    """

    def statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
        judged = cast(JudgedRanked, ranked)
        raw = judged.raw
        symbol = (
            pl.when(raw.is_null())
            .then(pl.lit("-"))
            .when(raw < 0.0)
            .then(pl.lit("."))
            .when(raw > 9.0)
            .then(pl.lit(">"))
            .otherwise(raw.floor().cast(pl.Int64).cast(pl.String))
        )
        return symbol.filter(judged.retrieved).head(length).str.join("")

    return statistic


def _lift(function: Callable[[Ranked, int], pl.Expr], k: int) -> Statistic:
    return lambda ranked, no_relevant: function(ranked, k)


def _no_relevant_cut(function: Callable[[Ranked, int, NoRelevant], pl.Expr], k: int) -> Statistic:
    return lambda ranked, no_relevant: function(ranked, k, no_relevant)


# ------------------------------------------------------------ trec_eval names

ParameterKind: TypeAlias = Literal["none", "long_cutoffs", "double_cutoffs", "doubles", "pairs"]


@dataclass(frozen=True)
class Family:
    """A trec_eval measure and how its ``.params`` suffix is read."""

    name: str
    kind: ParameterKind
    default: str
    build: Callable[[Family, str, bool], list[Measure]]


def _long_cutoffs(family: str, text: str) -> list[int]:
    values = []
    for part in text.split(","):
        match = re.match(r"\s*[+-]?\d+", part)
        if match is None:
            msg = f"measure {family!r}: cutoff {part!r} is not an integer"
            raise ValueError(msg)
        values.append(int(match.group()))
    values.sort()
    if values[0] <= 0:
        msg = f"measure {family!r}: cutoffs must be positive, got {text!r}"
        raise ValueError(msg)
    if len(set(values)) != len(values):
        msg = f"measure {family!r}: duplicate cutoffs in {text!r}"
        raise ValueError(msg)
    return values


def _doubles(family: str, text: str) -> list[float]:
    values = []
    for part in text.split(","):
        try:
            values.append(float(part))
        except ValueError:
            msg = f"measure {family!r}: parameter {part!r} is not a number"
            raise ValueError(msg) from None
    return values


def _double_cutoffs(family: str, text: str) -> list[float]:
    values = sorted(_doubles(family, text))
    if len(set(values)) != len(values):
        msg = f"measure {family!r}: duplicate cutoffs in {text!r}"
        raise ValueError(msg)
    return values


def _pairs(family: str, text: str) -> list[tuple[str, float]]:
    pairs = []
    for part in text.split(","):
        name, equals, value = part.partition("=")
        if not equals or not name:
            msg = f"measure {family!r}: parameters must be name=value pairs, got {text!r}"
            raise ValueError(msg)
        pairs.append((name, _doubles(family, value)[0]))
    return pairs


def _level_gains(family: str, pairs: list[tuple[str, float]]) -> Gains:
    gains = []
    for name, value in pairs:
        if re.fullmatch(r"[+-]?\d+", name):
            gains.append((int(name), value))
        elif family != "rbp" or name != "p":
            msg = f"measure {family!r}: {name!r} is not a relevance level"
            raise ValueError(msg)
    return tuple(gains)


def _single(
    statistic: Statistic,
    **options: object,
) -> Callable[[Family, str, bool], list[Measure]]:
    def build(family: Family, params: str, given: bool) -> list[Measure]:
        if given:
            msg = f"measure {family.name!r} takes no parameters, got {params!r}"
            raise ValueError(msg)
        return [Measure(family.name, statistic, family=family.name, **options)]  # type: ignore[arg-type]

    return build


def _per_long_cutoff(
    make: Callable[[int], Statistic],
    *,
    judged: bool = False,
    averages_ties: bool = False,
    staged: bool = False,
) -> Callable[[Family, str, bool], list[Measure]]:
    def build(family: Family, params: str, given: bool) -> list[Measure]:
        return [
            Measure(
                f"{family.name}_{k}",
                make(k),
                judged=judged,
                family=family.name,
                averages_ties=averages_ties,
                staged=staged,
            )
            for k in _long_cutoffs(family.name, params)
        ]

    return build


def _per_double_cutoff(
    make: Callable[[float], Statistic],
) -> Callable[[Family, str, bool], list[Measure]]:
    def build(family: Family, params: str, given: bool) -> list[Measure]:
        return [
            Measure(f"{family.name}_{value:3.2f}", make(value), family=family.name)
            for value in _double_cutoffs(family.name, params)
        ]

    return build


def _named(family: Family, params: str, given: bool) -> str:
    return f"{family.name}_{params}" if given else family.name


def _build_eleven_point(family: Family, params: str, given: bool) -> list[Measure]:
    levels = _doubles(family.name, params)
    return [
        Measure(_named(family, params, given), eleven_point_statistic(levels), family=family.name)
    ]


def _build_set_f(family: Family, params: str, given: bool) -> list[Measure]:
    beta = _doubles(family.name, params)[0]
    return [Measure(_named(family, params, given), set_f_statistic(beta), family=family.name)]


def _build_utility(family: Family, params: str, given: bool) -> list[Measure]:
    coefficients = _doubles(family.name, params)
    if len(coefficients) != 4:
        msg = f"measure 'utility' needs 4 coefficients, got {params!r}"
        raise ValueError(msg)
    return [
        Measure(_named(family, params, given), utility_statistic(coefficients), family=family.name)
    ]


def _build_relstring(family: Family, params: str, given: bool) -> list[Measure]:
    length = max(int(_doubles(family.name, params)[0]), 0)
    return [
        Measure(
            _named(family, params, given),
            relevance_string_statistic(length),
            judged=True,
            dtype=pl.String(),
            summary="none",
            family=family.name,
        )
    ]


def _gain_builder(
    make: Callable[[Gains], Statistic], *, default_is_core: bool = False
) -> Callable[[Family, str, bool], list[Measure]]:
    def build(family: Family, params: str, given: bool) -> list[Measure]:
        gains = _level_gains(family.name, _pairs(family.name, params)) if given else ()
        return [
            Measure(
                _named(family, params, given),
                make(gains),
                judged=bool(gains),
                family=family.name,
                # The default gains are the core nDCG; custom gains are trec_eval's own.
                averages_ties=default_is_core and not gains,
                staged=default_is_core and not gains,
            )
        ]

    return build


def _build_rbp(family: Family, params: str, given: bool) -> list[Measure]:
    pairs = _pairs(family.name, params) if given else []
    if _level_gains(family.name, pairs):
        msg = "measure 'rbp': custom level gains are not supported; only p=<persistence>"
        raise ValueError(msg)
    persistence = dict(pairs).get("p", 0.9)
    if not 0.0 < persistence < 1.0:
        msg = f"measure 'rbp': p must be in (0, 1), got {persistence!r}"
        raise ValueError(msg)
    return [
        Measure(
            _named(family, params, given),
            rank_biased_precision_statistic(persistence),
            family=family.name,
        )
    ]


def _ndcg_default_or_gains(gains: Gains) -> Statistic:
    if not gains:
        return lambda ranked, no_relevant: ndcg_statistic(
            ranked, _WHOLE_RANKING, "linear", no_relevant
        )
    return gain_ndcg_statistic(gains, "ndcg")


def _ap(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    return average_precision_statistic(ranked, no_relevant)


def _bpref_for_mean(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    return bpref_statistic(ranked, no_relevant)


_CUTOFFS = "5,10,15,20,30,100,200,500,1000"
# Counts do not depend on the order within the ranking, so every ties mode is exact.
_COUNT: dict[str, bool] = {"integer": True, "averages_ties": True}
# The core measures: exact under ties='average', and staged (see Measure).
_CORE: dict[str, bool] = {"averages_ties": True, "staged": True}
_LEVELS = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"

FAMILIES: tuple[Family, ...] = (
    Family("runid", "none", "", lambda family, params, given: []),
    Family(
        "num_q",
        "none",
        "",
        _single(
            lambda ranked, no_relevant: pl.lit(1.0),
            summary="sum",
            per_query=False,
            integer=True,
            averages_ties=True,
        ),
    ),
    Family("num_ret", "none", "", _single(num_ret_statistic, summary="sum", **_COUNT)),
    Family("num_rel", "none", "", _single(num_rel_statistic, summary="sum", **_COUNT)),
    Family("num_rel_ret", "none", "", _single(num_rel_ret_statistic, summary="sum", **_COUNT)),
    Family("map", "none", "", _single(_ap, **_CORE)),
    Family(
        "gm_map",
        "none",
        "",
        _single(_ap, summary="geometric", per_query=False, **_CORE),
    ),
    Family("Rprec", "none", "", _single(r_precision_statistic, **_CORE)),
    Family("bpref", "none", "", _single(bpref_statistic, judged=True)),
    Family(
        "recip_rank",
        "none",
        "",
        _single(
            lambda ranked, no_relevant: reciprocal_rank_statistic(ranked, None, no_relevant),
            **_CORE,
        ),
    ),
    Family(
        "iprec_at_recall",
        "double_cutoffs",
        _LEVELS,
        _per_double_cutoff(interpolated_precision_statistic),
    ),
    Family(
        "P",
        "long_cutoffs",
        _CUTOFFS,
        _per_long_cutoff(lambda k: _lift(precision_statistic, k), **_CORE),
    ),
    Family("relstring", "doubles", "10", _build_relstring),
    Family(
        "recall",
        "long_cutoffs",
        _CUTOFFS,
        _per_long_cutoff(lambda k: _no_relevant_cut(recall_statistic, k), **_CORE),
    ),
    Family("infAP", "none", "", _single(inferred_ap_statistic, judged=True)),
    Family(
        "gm_bpref",
        "none",
        "",
        _single(_bpref_for_mean, judged=True, summary="geometric", per_query=False),
    ),
    Family(
        "Rprec_mult",
        "double_cutoffs",
        "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0",
        _per_double_cutoff(r_precision_multiple_statistic),
    ),
    Family("utility", "doubles", "1.0,-1.0,0.0,0.0", _build_utility),
    Family("11pt_avg", "doubles", _LEVELS, _build_eleven_point),
    Family("binG", "none", "", _single(binary_gain_statistic)),
    Family("G", "pairs", "", _gain_builder(normalized_gain_statistic)),
    Family("dcg", "pairs", "", _gain_builder(lambda gains: gain_ndcg_statistic(gains, "dcg"))),
    Family(
        "ideal_dcg",
        "pairs",
        "",
        _gain_builder(lambda gains: gain_ndcg_statistic(gains, "ideal_dcg")),
    ),
    Family("ndcg", "pairs", "", _gain_builder(_ndcg_default_or_gains, default_is_core=True)),
    Family("ndcg_rel", "pairs", "", _gain_builder(ndcg_rel_statistic)),
    Family("Rndcg", "pairs", "", _gain_builder(r_ndcg_statistic)),
    Family(
        "ndcg_cut",
        "long_cutoffs",
        _CUTOFFS,
        _per_long_cutoff(
            lambda k: lambda ranked, no_relevant: ndcg_statistic(ranked, k, "linear", no_relevant),
            **_CORE,
        ),
    ),
    Family(
        "map_cut",
        "long_cutoffs",
        _CUTOFFS,
        _per_long_cutoff(
            lambda k: lambda ranked, no_relevant: ap_at_k_statistic(ranked, k, "r", no_relevant),
            **_CORE,
        ),
    ),
    Family("relative_P", "long_cutoffs", _CUTOFFS, _per_long_cutoff(relative_precision_statistic)),
    Family(
        "success",
        "long_cutoffs",
        "1,5,10",
        _per_long_cutoff(lambda k: _lift(hit_rate_statistic, k), **_CORE),
    ),
    Family("set_P", "none", "", _single(set_p_statistic, averages_ties=True)),
    Family("set_relative_P", "none", "", _single(set_relative_p_statistic, averages_ties=True)),
    Family("set_recall", "none", "", _single(set_recall_statistic, averages_ties=True)),
    Family("set_map", "none", "", _single(set_map_statistic, averages_ties=True)),
    Family("set_F", "doubles", "1.0", _build_set_f),
    Family(
        "num_nonrel_judged_ret",
        "none",
        "",
        _single(num_nonrel_judged_ret_statistic, judged=True, summary="sum", integer=True),
    ),
    Family("rbp", "pairs", "", _build_rbp),
    Family("rbp_resid", "none", "", _single(rbp_residual_statistic, judged=True)),
    Family("unj", "long_cutoffs", "5,10,20", _per_long_cutoff(unjudged_statistic, judged=True)),
)
"""trec_eval's measures, in the order trec_eval computes and prints them."""

FAMILY_ORDER = {family.name: index for index, family in enumerate(FAMILIES)}
_BY_NAME = {family.name: family for family in FAMILIES}

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
        "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
        "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
        "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
        "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F",
    ),
}  # fmt: skip
"""trec_eval's names for sets of measures (``-m all_trec``)."""


def split_trec_name(name: str) -> tuple[str, str | None, bool] | None:
    """Split ``name`` into a trec_eval measure and its parameter text, if it is one.

    Accepts ``family``, ``family.params`` and, for measures with cutoffs,
    ``family_cutoff`` (``P_10``, ``iprec_at_recall_0.10``); the flag says the
    last form was used. Returns None when ``name`` is not a trec_eval measure.
    """
    if name in _BY_NAME:
        return name, None, False
    base, dot, params = name.partition(".")
    if dot and base in _BY_NAME:
        return base, params, False
    base, underscore, params = name.rpartition("_")
    family = _BY_NAME.get(base)
    if (
        underscore
        and family is not None
        and family.kind in ("long_cutoffs", "double_cutoffs")
        and re.fullmatch(r"\d+(\.\d*)?|\.\d+", params)
    ):
        return base, params, True
    return None


def parse_trec_measure(name: str) -> list[Measure] | None:
    """Return the output columns of a trec_eval measure name, or None if it is not one."""
    split = split_trec_name(name)
    if split is None:
        return None
    base, params, single = split
    family = _BY_NAME[base]
    if params == "":
        msg = f"measure {name!r}: empty parameter list after '.'"
        raise ValueError(msg)
    given = params is not None
    measures = family.build(family, params if params is not None else family.default, given)
    if single:
        # `P_10` names one cutoff and keeps its own spelling.
        return [replace(measure, name=name) for measure in measures]
    return measures


def geometric_mean(values: pl.Expr) -> pl.Expr:
    """trec_eval's geometric mean: ``exp(mean(log(max(v, MIN_GEO_MEAN))))``."""
    return values.clip(lower_bound=MIN_GEO_MEAN).log().mean().exp()


__all__ = [
    "FAMILIES",
    "FAMILY_ORDER",
    "MIN_GEO_MEAN",
    "NICKNAMES",
    "geometric_mean",
    "parse_trec_measure",
    "split_trec_name",
]
