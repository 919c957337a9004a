"""Expected metric values over every ordering of tied scores (``ties='average'``).

With ``ties='average'`` each group's rows are sorted by the primary score into a
list of ``{code, score}`` structs (:meth:`.Ranking.ranked_with_scores`). A *tie group* is a
run of equal scores in that list; the unretrieved tail (null scores) is one more
run, which holds no hit and no gain. Every ordering of the rows inside each tie
group is equally likely, independently across groups, and each statistic is the
exact expectation of the metric under that distribution (McSherry and Najork,
ECIR 2008). No ordering is enumerated: every formula below is a handful of
cumulative sums and forward/backward fills over the list, so O(n) after the sort.

Notation, for the tie group that holds a position (positions are 0-based, ranks
1-based, so the position p has rank p + 1):

- ``a``: the number of positions before the group (its first position);
- ``n``: the group's size; ``j``: the position's offset in the group (0..n-1);
- ``r``: the number of hits (relevant retrieved rows) in the group;
- ``H``: the number of hits before the group, the same in every ordering.

In a uniformly random ordering of the group, a position holds a hit with
probability ``r/n``, and two distinct positions both hold hits with probability
``r(r-1) / (n(n-1))``. Metrics linear in the hit indicators (P@k, R@k, F@k with
fixed k and R, R-precision, DCG) therefore need only the first; AP needs the
second, because its summand multiplies a hit by the hit count above it.

References
----------
F. McSherry and M. Najork, "Computing Information Retrieval Performance
Measures Efficiently in the Presence of Tied Scores", ECIR 2008, LNCS 4956,
pp. 414-421.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankmetrics.engine.ranked import Ranked


def annotate_tie_groups(scored: Ranked, extra: Sequence[str] = ()) -> pl.Expr:
    """Describe each position's tie group, for ``list.eval`` over a ``{code, score}`` list.

    Returns a struct per position with the encoded label and the score (the
    first two fields, as in the input), the ``extra`` fields of the input, and
    the tie group facts that :class:`TieGroups` reads back. Polars does not
    share common subexpressions inside ``list.agg``, and every statistic uses
    these facts several times, so computing them once into fields (one
    ``list.eval``) and reading the fields is several times faster than
    recomputing them.
    """
    score, hit = scored.score, scored.hit
    index = pl.int_range(pl.len())
    position = index.cast(pl.Float64)
    is_first = (index == 0) | score.ne_missing(score.shift(1))
    is_last = (index == pl.len() - 1) | score.ne_missing(score.shift(-1))
    start = pl.when(is_first).then(position).forward_fill()
    end = pl.when(is_last).then(position).backward_fill()
    hits_before = pl.when(is_first).then(hit.cum_sum() - hit).forward_fill()
    hits_through = pl.when(is_last).then(hit.cum_sum()).backward_fill()
    return pl.struct(
        scored.code,
        score,
        *(scored.field(name) for name in extra),
        is_first.alias("is_first"),
        is_last.alias("is_last"),
        start.alias("start"),
        (end - start + 1.0).alias("size"),
        (position - start).alias("offset"),
        (hits_through - hits_before).alias("hits"),
        hits_before.alias("hits_before"),
    )


@dataclass(frozen=True, eq=False)
class TieGroups:
    """Per-position facts about the tie group of each position of a ranked list.

    Read inside ``list.agg`` from the fields of :func:`annotate_tie_groups`;
    every value is Float64, so that the ratios below are true divisions.
    """

    ranked: Ranked

    @staticmethod
    def _field(name: str) -> pl.Expr:
        return pl.element().struct.field(name)

    @property
    def position(self) -> pl.Expr:
        """``p``: the 0-based position."""
        return pl.int_range(pl.len()).cast(pl.Float64)

    @property
    def is_first(self) -> pl.Expr:
        """Whether a position starts its tie group."""
        return self._field("is_first")

    @property
    def is_last(self) -> pl.Expr:
        """Whether a position ends its tie group."""
        return self._field("is_last")

    def before(self, values: pl.Expr) -> pl.Expr:
        """Sum ``values`` over the positions before the group."""
        return pl.when(self.is_first).then(values.cum_sum() - values).forward_fill()

    def total(self, values: pl.Expr) -> pl.Expr:
        """Sum ``values`` over the group.

        A difference of two prefix sums: exact for hit counts (small integers in
        Float64), and within the rounding of the prefix sums for gains.
        """
        return pl.when(self.is_last).then(values.cum_sum()).backward_fill() - self.before(values)

    @property
    def start(self) -> pl.Expr:
        """``a``: the group's first position."""
        return self._field("start")

    @property
    def size(self) -> pl.Expr:
        """``n``: the number of positions in the group."""
        return self._field("size")

    @property
    def offset(self) -> pl.Expr:
        """``j``: the position's offset in its group, ``p - a``."""
        return self._field("offset")

    @property
    def hits(self) -> pl.Expr:
        """``r``: the number of hits in the group."""
        return self._field("hits")

    @property
    def hits_before(self) -> pl.Expr:
        """``H``: the number of hits before the group."""
        return self._field("hits_before")

    @property
    def no_hit_factor(self) -> pl.Expr:
        """P(this position holds no hit | no earlier position of the group does).

        Given that the ``j`` positions before it in the group hold none of the
        ``r`` hits, the ``r`` hits are spread uniformly over the other ``n - j``
        positions, so this position misses them with probability
        ``(n - r - j) / (n - j)`` (0 once ``j`` reaches ``n - r``). Its product
        over the first ``m`` positions of a group is ``C(n-r, m) / C(n, m)``, the
        hypergeometric probability that ``m`` draws miss every hit.
        """
        n, j = self.size, self.offset
        return ((n - self.hits - j) / (n - j)).clip(lower_bound=0.0)


def tie_mean(ranked: Ranked, values: pl.Expr) -> pl.Expr:
    """Return the expected value of a per-position quantity, or ``values`` itself.

    In a uniformly random ordering of a tie group, every position of the group
    holds each of its rows with probability ``1/n``, so the expected value of
    any per-row quantity (a hit, a gain) at a position is the group's mean. Any
    metric that is a fixed linear combination of per-position values (P@k, R@k,
    F@k, R-precision, DCG@k, nDCG@k) is then the same combination of the means.
    Without ``ties='average'`` this returns ``values`` unchanged.
    """
    if ranked.ties != "average":
        return values
    groups = TieGroups(ranked)
    return groups.total(values) / groups.size


def expected_hit(ranked: Ranked, k: int | pl.Expr | None = None) -> pl.Expr:
    """Return :func:`tie_mean` of :attr:`Ranked.hit` at the first ``k`` positions.

    That is ``r / n``, read from the fields; without ``ties='average'`` it is
    :meth:`Ranked.top_hit`, a Boolean. ``None`` reads every position. Either
    sums to the (expected) hits.
    """
    if ranked.ties != "average":
        return ranked.top_hit(k)
    groups = TieGroups(ranked)
    rate = groups.hits / groups.size
    return rate if k is None else rate.head(k)


def expected_precision_terms(ranked: Ranked) -> pl.Expr:
    """Return the expected AP summand ``hit(p) · P@(p+1)`` at each position.

    The summand is ``hit(p) · C(p) / (p + 1)`` with ``C(p)`` the hits at
    positions ``<= p``, which is ``H`` plus the hits at offsets ``0..j`` of
    the group. So ``E[hit(p)·C(p)] = E[hit(p)]·(H + 1) + sum over the j earlier
    offsets i of E[hit(p)·hit(i)] = (r/n)(H + 1) + j·r(r-1)/(n(n-1))`` (McSherry
    and Najork's expected precision at a tied position). It is linear in the
    summands, so AP and AP@k with a fixed denominator (R or min(k, R)) are
    their sums. Without ``ties='average'`` this is :attr:`Ranked.precision_terms`.
    """
    if ranked.ties != "average":
        return ranked.precision_terms
    groups = TieGroups(ranked)
    r, n = groups.hits, groups.size
    both_hits = pl.when(n > 1.0).then(r * (r - 1.0) / (n * (n - 1.0))).otherwise(0.0)
    return (r / n * (groups.hits_before + 1.0) + groups.offset * both_hits) / ranked.rank


def expected_hit_rate(ranked: Ranked, k: int) -> pl.Expr:
    """P(the top ``k`` holds a hit) over tie orderings.

    The groups are independent, so the probability that the top ``k`` holds no
    hit is the product over its positions of :attr:`TieGroups.no_hit_factor`:
    one factor ``1 - hit`` per untied position, and ``C(n-r, m) / C(n, m)`` for
    the ``m`` positions of a group cut by ``k``.
    """
    return 1.0 - TieGroups(ranked).no_hit_factor.head(k).product()


def expected_reciprocal_rank(ranked: Ranked, k: int | None) -> pl.Expr:
    """Return the expected ``1 / rank`` of the first hit (0 without one in the top ``k``).

    The first hit is at position ``p`` when no earlier position holds a hit
    (probability ``S(p)``, the product of :attr:`TieGroups.no_hit_factor` over
    the positions before ``p``) and ``p`` does, given that the ``j`` positions
    before it in its group do not: ``r / (n - j)``. So
    ``E[RR@k] = sum over p < k of S(p) · r/(n - j) / (p + 1)``; within the first
    group that holds a hit these are the terms of the hypergeometric
    distribution of the first hit's offset, ``P(J = j) = C(n-j-1, r-1) / C(n, r)``.
    """
    groups = TieGroups(ranked)
    no_hit_before = groups.no_hit_factor.cum_prod().shift(1, fill_value=1.0)
    first_hit = no_hit_before * groups.hits / (groups.size - groups.offset)
    terms = first_hit / ranked.rank
    return (terms if k is None else terms.head(k)).sum()


def expected_ap_over_hits(ranked: Ranked, k: int) -> pl.Expr:
    """Return the expected AP@k over the hits in the top ``k`` (0 without one).

    ``E[X / Y]`` with ``X`` the sum of the summands in the top k and ``Y`` the
    hits there is not ``E[X] / E[Y]``. ``Y`` is random only through the group
    cut by ``k`` (start ``a``, size ``n``, ``r`` hits, ``H`` hits before it,
    ``m = k - a`` of its positions inside the top k): ``Y = H + Z`` with ``Z``
    hypergeometric, ``P(Z = z) = C(r, z)·C(n-r, m-z) / C(n, m)``. Given
    ``Z = z`` the ``z`` hits lie uniformly on those ``m`` positions, so as in
    :func:`expected_precision_terms`, ``E[X | z] = X_before + (H + 1)·(z/m)·A1 +
    z(z-1)/(m(m-1))·A2``, where ``X_before`` is the expected sum over the
    groups before (independent of ``z``), ``A1 = sum 1/(p+1)`` and ``A2 = sum
    j/(p+1)`` over the cut group's positions ``p < k``. Then
    ``E = sum over z of P(Z = z)·E[X | z] / (H + z)``: at most ``min(m, r) + 1``
    terms. The weights come from the ratio ``P(z)/P(z-1) = (r-z+1)(m-z+1) /
    (z(n-r-m+z))`` in log space, normalised, so large groups cannot overflow.
    """
    groups = TieGroups(ranked)
    position = groups.position
    cut = pl.min_horizontal(pl.len(), pl.lit(k)).cast(pl.Int64)

    def at_cut(values: pl.Expr) -> pl.Expr:
        return values.get(cut - 1, null_on_oob=True)

    a, n = at_cut(groups.start), at_cut(groups.size)
    r, h = at_cut(groups.hits), at_cut(groups.hits_before)
    m = cut.cast(pl.Float64) - a
    in_cut_group = (position >= a) & (position < cut.cast(pl.Float64))
    before_sum = expected_precision_terms(ranked).filter(position < a).sum()
    inverse_rank = 1.0 / ranked.rank
    a1 = inverse_rank.filter(in_cut_group).sum()
    a2 = ((position - a) * inverse_rank).filter(in_cut_group).sum()

    z_low = pl.max_horizontal(pl.lit(0.0), m - (n - r))
    z_high = pl.min_horizontal(m, r)
    z = pl.int_range(
        z_low.fill_null(0.0).cast(pl.Int64), z_high.fill_null(0.0).cast(pl.Int64) + 1
    ).cast(pl.Float64)
    step = ((r - z + 1.0) * (m - z + 1.0) / (z * (n - r - m + z))).log()
    log_weight = pl.when(z > z_low).then(step).otherwise(0.0).cum_sum()
    weight = (log_weight - log_weight.max()).exp()

    both_hits = pl.when(m > 1.0).then(z * (z - 1.0) / (m * (m - 1.0))).otherwise(0.0)
    expected_sum = before_sum + (h + 1.0) * (z / m) * a1 + both_hits * a2
    ratio = pl.when(h + z > 0.0).then(expected_sum / (h + z)).otherwise(0.0)
    return (weight * ratio).sum() / weight.sum()
