"""Shared machinery: rank a group once, then read every metric from that ranking.

Sorting is the expensive step of every ranking metric, and polars does not share
a sort between two expressions inside ``group_by().agg()``. So each group's rows
are sorted once into a single Float64 list (:meth:`Ranking.ranked`), and every
metric is an expression over that list evaluated with ``list.agg``
(:meth:`Ranking.aggregate`). Several metrics over one ranking are one ``list.agg``
over a struct, which is how :func:`polars_rankmetrics.metrics` costs one sort.

The list packs two facts into one number, so that it is a cheap primitive sort:

- a retrieved row holds its gain label, clipped at 0 (``>= 0``);
- a row whose score is null or NaN (judged, not retrieved) holds ``-1 - label``
  (``< 0``) and sorts last.

Unretrieved rows still count in the number of relevant documents and in the
ideal DCG, which is why they stay in the list rather than being filtered out.

The metric functions and ``metrics()`` evaluate through
:mod:`polars_rankmetrics._shared`, which computes the per-position quantities
several statistics read (rank, precision terms, discount, ideal order) once per
list, and ranks only the top k for P@k, hit rate and DCG@k; ``aggregate`` here
is the plain path those fall back to.

A few trec_eval measures (bpref, infAP, unj, relstring, custom nDCG gains, ...)
also need what that number drops: whether a row was judged at all (a null
label), negative labels (trec_eval's "in the pool but unjudged"), and the raw
level. Only for those, :meth:`Ranking.ranked_judged` sorts a list of
``{code, raw}`` structs instead, and :class:`JudgedRanked` reads both fields;
every other statistic works unchanged on it through ``code``.

Tied scores (the ``ties`` option, :data:`Ties`): ``'stable'`` sorts by ``by`` and
keeps input order; ``'optimistic'``/``'pessimistic'`` add the gain label as a sort
key right after the score, so they cost one extra key and nothing else;
``'average'`` sorts by the score alone into a ``{code, score}`` struct list, because
the expected value needs to see where each tie group starts and ends (see
:mod:`polars_rankmetrics._ties`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Literal, TypeAlias, get_args

import polars as pl

from polars_rankmetrics._ties import annotate_tie_groups

IntoExpr: TypeAlias = str | pl.Expr
"""A column name or an expression."""

NoRelevant: TypeAlias = Literal["null", "zero"]
"""What a metric that is undefined without relevant documents returns for such a query."""

Gain: TypeAlias = Literal["linear", "exponential"]
"""How a relevance label becomes a DCG gain: the label itself, or ``2**label - 1``."""

Ties: TypeAlias = Literal["stable", "optimistic", "pessimistic", "average"]
"""How rows with equal primary scores are ordered.

``'stable'``: input order, or the tie-breakers in ``by``. ``'optimistic'``: higher
labels (relevant rows) first. ``'pessimistic'``: lower labels first. ``'average'``:
the exact expected value over every ordering of each tie group.
"""

TOP_DISCOUNT_MAX_K = 1000
"""Up to this cutoff the discounts of the top k come from a table (:func:`discount_table`)."""


@cache
def discount_table(k: int) -> pl.Series:
    """``1 / log2(rank + 1)`` for the ranks 1 to ``k``, as :attr:`Ranked.discount` computes it."""
    return 1.0 / (pl.Series("discount", range(1, k + 1), dtype=pl.Float64) + 1.0).log(2)


def as_expr(value: IntoExpr) -> pl.Expr:
    """Return ``value`` as an expression; a string is a column name."""
    if isinstance(value, pl.Expr):
        return value
    if isinstance(value, str):
        return pl.col(value)
    msg = f"expected a column name or a polars expression, got {type(value).__name__}"
    raise TypeError(msg)


def check_k(k: object, name: str = "k") -> int:
    """Return ``k`` if it is a positive int, else raise ``ValueError``."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        msg = f"`{name}` must be a positive int, got {k!r}"
        raise ValueError(msg)
    return k


def check_choice(value: object, name: str, alias: object) -> None:
    """Raise ``ValueError`` unless ``value`` is one of the ``Literal`` alias's options."""
    allowed = get_args(alias)
    if value not in allowed:
        options = ", ".join(repr(option) for option in allowed)
        msg = f"`{name}` must be one of {options}, got {value!r}"
        raise ValueError(msg)


@dataclass(frozen=True)
class Ranking:
    """How one group's rows are ranked, and which of them are relevant.

    Parameters
    ----------
    relevance
        The relevance label of each row. Null means unjudged (not relevant).
    by
        The score, then tie-breakers. Empty means the rows are in rank order.
    descending
        Sort direction of each expression in ``by``.
    threshold
        A label above this counts as relevant.
    ties
        How rows with equal primary scores (``by[0]``) are ordered; see :data:`Ties`.
    """

    relevance: pl.Expr
    by: tuple[pl.Expr, ...]
    descending: tuple[bool, ...]
    threshold: float
    ties: Ties = "stable"

    @classmethod
    def build(
        cls,
        relevance: IntoExpr,
        by: IntoExpr | Sequence[IntoExpr] | None,
        descending: bool | Sequence[bool],
        threshold: float,
        ties: Ties = "stable",
    ) -> Ranking:
        """Validate the public parameters shared by every metric."""
        if by is None:
            by_exprs: tuple[pl.Expr, ...] = ()
        elif isinstance(by, str | pl.Expr):
            by_exprs = (as_expr(by),)
        else:
            by_exprs = tuple(as_expr(item) for item in by)
            if not by_exprs:
                msg = "`by` must name at least one column, or be None for rows in rank order"
                raise ValueError(msg)
        if isinstance(descending, bool):
            directions = (descending,) * len(by_exprs)
        else:
            directions = tuple(descending)
            if len(directions) != len(by_exprs) or not all(isinstance(d, bool) for d in directions):
                msg = (
                    "`descending` must be a bool or one bool per `by` expression, "
                    f"got {descending!r} for {len(by_exprs)} expression(s)"
                )
                raise ValueError(msg)
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, int | float)
            or not threshold >= 0
        ):
            msg = f"`threshold` must be a number >= 0, got {threshold!r}"
            raise ValueError(msg)
        check_choice(ties, "ties", Ties)
        if ties != "stable" and not by_exprs:
            msg = (
                f"`ties={ties!r}` needs scores to find the ties: pass `by` "
                "(with `by=None` the rows are already in rank order and cannot tie)"
            )
            raise ValueError(msg)
        return cls(as_expr(relevance), by_exprs, directions, float(threshold), ties)

    @property
    def numeric_relevance(self) -> pl.Expr:
        """The relevance as Float64; a column that is not numeric or bool fails at collect.

        Arithmetic, unlike a cast, refuses strings and dates, with an error that
        names the column ("arithmetic on dtypes str and dyn float is not allowed
        (lhs: column 'label' ...)"), where a cast would parse "1" silently. It
        costs nothing extra: a Python check would stop polars from evaluating
        the encoding once for the whole column instead of group by group.
        """
        return (self.relevance + 0.0).cast(pl.Float64)

    @property
    def label(self) -> pl.Expr:
        """The gain label of each row: null (unjudged) as 0, negative labels as 0."""
        return self.numeric_relevance.fill_null(0.0).clip(lower_bound=0.0)

    @property
    def score(self) -> pl.Expr | None:
        """The primary score, with NaN read as null (not retrieved)."""
        if not self.by:
            return None
        # fill_nan also refuses a score that is not numeric (a string, bool or
        # date), failing at collect with the column in the error's expression.
        return self.by[0].fill_nan(None)

    @property
    def retrieved(self) -> pl.Expr:
        """Whether each row takes part in the ranking (its score is not null or NaN)."""
        score = self.score
        return pl.lit(True) if score is None else score.is_not_null()

    def sort_keys(self) -> list[pl.Expr]:
        """List the expressions to sort by: the NaN-free score, then the tie-breakers.

        In ``'optimistic'``/``'pessimistic'`` mode the label comes right after the
        score, so within a tie group it decides first and the later ``by`` entries
        only order rows of equal label (which no metric can tell apart). In
        ``'average'`` mode the later entries are dropped: an expectation over
        every ordering of a tie group does not depend on any one of them.
        """
        score = self.score
        assert score is not None
        if self.ties == "average":
            return [score]
        if self.ties in ("optimistic", "pessimistic"):
            return [score, self.label, *self.by[1:]]
        return [score, *self.by[1:]]

    def sort_descending(self) -> list[bool]:
        """Give the direction of each of :meth:`sort_keys`."""
        if self.ties == "average":
            return [self.descending[0]]
        if self.ties in ("optimistic", "pessimistic"):
            label_first = self.ties == "optimistic"
            return [self.descending[0], label_first, *self.descending[1:]]
        return list(self.descending)

    def order(self, values: pl.Expr) -> pl.Expr:
        """Sort ``values`` into rank order; unretrieved rows go last, ties keep input order."""
        if not self.by:
            return values
        return values.sort_by(
            self.sort_keys(),
            descending=self.sort_descending(),
            nulls_last=True,
            maintain_order=True,
        )

    @property
    def encoded(self) -> pl.Expr:
        """Each row's label, negated to ``-1 - label`` when it is not retrieved."""
        label = self.label
        return pl.when(self.retrieved).then(label).otherwise(-1.0 - label)

    def ranked(self) -> pl.Expr:
        """The group's ranking as one Float64 list (see the module docstring)."""
        return self.order(self.encoded).implode()

    def ranked_with_scores(self) -> pl.Expr:
        """The ranking as a list of ``{code, score}`` structs, for curves.

        The first field keeps the relevance expression's name, so the result is
        named like every other metric. With ``ties='average'`` the structs also
        carry the tie group fields of
        :func:`polars_rankmetrics._ties.annotate_tie_groups`.
        """
        score = self.score
        if score is None:
            msg = "a curve needs scores: pass `by`"
            raise ValueError(msg)
        scored = self.order(pl.struct(self.encoded, score.alias("_rankmetrics_score"))).implode()
        if self.ties == "average":
            # Add the tie group fields once, for every statistic to read.
            return scored.list.eval(
                annotate_tie_groups(Ranked(self.threshold, pl.element().struct[0]))
            )
        return scored

    def ranked_judged(self) -> pl.Expr:
        """Return the ranking as a list of ``{code, raw}`` structs (see the module docstring).

        ``raw`` is the relevance label as Float64, null where it is null
        (unjudged). The first field keeps the relevance expression's name.
        """
        raw = self.numeric_relevance
        return self.order(pl.struct(self.encoded, raw.alias("_rankmetrics_raw"))).implode()

    def aggregate(self, statistic: pl.Expr) -> pl.Expr:
        """Evaluate ``statistic``, written with :attr:`in_list`, on the group's ranking.

        With ``ties='average'`` it is :meth:`ranked_with_scores`, whose tie
        group fields the statistic reads.
        """
        if self.ties == "average":
            return self.ranked_with_scores().list.agg(statistic)
        return self.ranked().list.agg(statistic)

    def aggregate_judged(self, statistic: pl.Expr) -> pl.Expr:
        """Evaluate ``statistic``, written with :class:`JudgedRanked`, on :meth:`ranked_judged`."""
        return self.ranked_judged().list.agg(statistic)

    @property
    def in_list(self) -> Ranked:
        """The vocabulary for writing statistics over the list :meth:`aggregate` reads."""
        if self.ties == "average":
            return self.in_scored_list
        return Ranked(self.threshold)

    @property
    def in_judged_list(self) -> JudgedRanked:
        """The vocabulary for writing statistics over :meth:`ranked_judged`."""
        return JudgedRanked(self.threshold, pl.element().struct[0])

    @property
    def in_scored_list(self) -> Ranked:
        """The vocabulary for writing statistics over :meth:`ranked_with_scores`."""
        return Ranked(self.threshold, pl.element().struct[0], ties=self.ties)


@dataclass(frozen=True, eq=False)
class Ranked:
    """Expressions over one ranked list, for use inside ``list.agg``/``list.eval``.

    Positions are in rank order; the unretrieved rows are the list's tail.
    """

    threshold: float
    code: pl.Expr = field(default_factory=pl.element)
    """Where the encoded label of each position is read from."""
    ties: Ties = "stable"
    """``'average'`` when statistics must be expectations over tie groups."""

    @property
    def score(self) -> pl.Expr:
        """The score at each position (only in a list from ``ranked_with_scores``)."""
        return pl.element().struct[1]

    @property
    def retrieved(self) -> pl.Expr:
        """Whether the row at each position was retrieved."""
        return self.code >= 0.0

    @property
    def label(self) -> pl.Expr:
        """The gain label (>= 0) at each position, retrieved or not."""
        return pl.when(self.code >= 0.0).then(self.code).otherwise(-1.0 - self.code)

    @property
    def relevant(self) -> pl.Expr:
        """Whether the row at each position is relevant, retrieved or not."""
        # label > t, read off the code without decoding it: an unretrieved row
        # holds -1 - label, which is below -1 - t exactly when label > t.
        return (self.code > self.threshold) | (self.code < -1.0 - self.threshold)

    def aggregate(self, value: pl.Expr) -> pl.Expr:
        """Mark ``value`` as one number per list: a sum, a count, a position.

        The core statistics read the ranking only through aggregates and combine
        those with arithmetic, so that the staged path of
        :mod:`polars_rankmetrics._shared` can compute each distinct aggregate once
        per list, however many measures read it, and the arithmetic after it
        (see :class:`polars_rankmetrics._shared.StagedRanked`). Here it is
        ``value`` itself.
        """
        return value

    @property
    def n_relevant(self) -> pl.Expr:
        """R: the number of relevant rows, retrieved or not."""
        return self.aggregate(self.relevant.sum())

    @property
    def n_retrieved(self) -> pl.Expr:
        """The number of retrieved rows."""
        return self.retrieved.sum()

    @property
    def hit(self) -> pl.Expr:
        """1.0 where the row at a position is retrieved and relevant, else 0.0."""
        return (self.code > self.threshold).cast(pl.Float64)

    @property
    def rank(self) -> pl.Expr:
        """The 1-based rank of each position, as Float64."""
        # cum_count (the list holds no nulls) costs a fraction of int_range in list.agg.
        return self.code.cum_count().cast(pl.Float64)

    def top_hit(self, k: int | pl.Expr | None) -> pl.Expr:
        """Whether each of the first ``k`` positions (all when ``None``) holds a hit.

        A Boolean: its sum counts the hits as an exact UInt32, and summing
        Booleans (or ``any``, ``arg_max``) over each list costs a fraction of
        the same over the Float64 :attr:`hit`.
        """
        # Cut the list before comparing: polars does not push the head down.
        return (self.code if k is None else self.code.head(k)) > self.threshold

    def top_retrieved_gain(self, k: int, gain: Gain) -> pl.Expr:
        """The gain of the first ``k`` positions, 0 where the row is not retrieved."""
        # An unretrieved row's code is negative and a retrieved one's is its
        # label, so clipping at 0 gives the label or 0; either gain of 0 is 0.
        return self.gain(self.code.head(k).clip(lower_bound=0.0), gain)

    @property
    def precision_terms(self) -> pl.Expr:
        """P@i at each relevant retrieved rank i, 0 elsewhere: AP's summands."""
        # The running count of hits, in UInt32: exact, and cheaper than a Float64 cum_sum.
        found = (self.code > self.threshold).cast(pl.UInt32).cum_sum()
        return self.hit * found / self.rank

    def gain(self, label: pl.Expr, gain: Gain) -> pl.Expr:
        """The DCG gain of ``label``."""
        return label if gain == "linear" else pl.lit(2.0).pow(label) - 1.0

    @property
    def discount(self) -> pl.Expr:
        """1 / log2(rank + 1) at each position."""
        return 1.0 / (self.rank + 1.0).log(2)

    def top_discount(self, k: int) -> pl.Expr:
        """:attr:`discount` at the first ``k`` positions only, for a sum to rank ``k``."""
        if k > TOP_DISCOUNT_MAX_K:
            return 1.0 / (self.rank.head(k) + 1.0).log(2)
        # The same values read off a table: unlike the rank (a cum_count), this
        # is not a call per list when polars evaluates a list of lists at once
        # (at a million lists of 10, DCG@10 takes 0.03 s instead of 0.29 s).
        return pl.lit(discount_table(k)).head(self.code.head(k).len())

    @property
    def ideal_labels(self) -> pl.Expr:
        """The gain labels of every row, retrieved or not, highest first: the ideal ranking."""
        # A full sort of the list: inside list.agg it is cheaper than a partial top_k.
        return self.label.sort(descending=True)

    def if_relevant(self, value: pl.Expr, no_relevant: NoRelevant) -> pl.Expr:
        """``value`` where the group has a relevant row, else null or 0."""
        fallback = None if no_relevant == "null" else 0.0
        return pl.when(self.n_relevant > 0).then(value).otherwise(fallback)


@dataclass(frozen=True, eq=False)
class JudgedRanked(Ranked):
    """:class:`Ranked`, plus the raw label of each position (see ``ranked_judged``)."""

    @property
    def raw(self) -> pl.Expr:
        """The label as given: null when unjudged, possibly negative."""
        return pl.element().struct[1]

    @property
    def judged(self) -> pl.Expr:
        """Whether the row has a label >= 0 (trec_eval's judged documents)."""
        return self.raw.fill_null(-1.0) >= 0.0

    @property
    def unjudged_retrieved(self) -> pl.Expr:
        """Retrieved rows with a null label (not in the pool) or a negative one."""
        return self.retrieved & ~self.judged

    @property
    def nonrelevant_judged(self) -> pl.Expr:
        """Rows judged (label >= 0) but not relevant, retrieved or not."""
        return self.judged & ~self.relevant
