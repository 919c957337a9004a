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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Literal, TypeAlias, get_args

import polars as pl

IntoExpr: TypeAlias = str | pl.Expr
"""A column name or an expression."""

NoRelevant: TypeAlias = Literal["null", "zero"]
"""What a metric that is undefined without relevant documents returns for such a query."""

Gain: TypeAlias = Literal["linear", "exponential"]
"""How a relevance label becomes a DCG gain: the label itself, or ``2**label - 1``."""


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


def _require_numeric(series: pl.Series, *, role: str) -> pl.Series:
    if series.dtype.is_numeric() or (role == "relevance" and series.dtype == pl.Boolean):
        return series
    kind = "numeric or boolean" if role == "relevance" else "numeric"
    msg = f"the {role} column {series.name!r} must be {kind}, got {series.dtype}"
    raise TypeError(msg)


def checked(expr: pl.Expr, role: str) -> pl.Expr:
    """Make ``expr`` fail at collect, naming the column, unless its values are numeric.

    The check is one Python call per batch (not per group): it is elementwise, so
    polars evaluates it once on the whole column before grouping.
    """
    return expr.map_batches(
        partial(_require_numeric, role=role),
        return_dtype=pl.self_dtype(),
        is_elementwise=True,
    )


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
    """

    relevance: pl.Expr
    by: tuple[pl.Expr, ...]
    descending: tuple[bool, ...]
    threshold: float

    @classmethod
    def build(
        cls,
        relevance: IntoExpr,
        by: IntoExpr | Sequence[IntoExpr] | None,
        descending: bool | Sequence[bool],
        threshold: float,
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
            if len(directions) != len(by_exprs) or not all(
                isinstance(d, bool) for d in directions
            ):
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
        return cls(as_expr(relevance), by_exprs, directions, float(threshold))

    @property
    def label(self) -> pl.Expr:
        """The gain label of each row: null (unjudged) as 0, negative labels as 0."""
        return (
            checked(self.relevance, "relevance")
            .cast(pl.Float64)
            .fill_null(0.0)
            .clip(lower_bound=0.0)
        )

    @property
    def score(self) -> pl.Expr | None:
        """The primary score, with NaN read as null (not retrieved)."""
        if not self.by:
            return None
        return checked(self.by[0], "score").fill_nan(None)

    @property
    def retrieved(self) -> pl.Expr:
        """Whether each row takes part in the ranking (its score is not null or NaN)."""
        score = self.score
        return pl.lit(True) if score is None else score.is_not_null()

    def sort_keys(self) -> list[pl.Expr]:
        """The expressions to sort by: the NaN-free score, then the tie-breakers."""
        score = self.score
        assert score is not None
        return [score, *self.by[1:]]

    def order(self, values: pl.Expr) -> pl.Expr:
        """Sort ``values`` into rank order; unretrieved rows go last, ties keep input order."""
        if not self.by:
            return values
        return values.sort_by(
            self.sort_keys(),
            descending=list(self.descending),
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
        named like every other metric.
        """
        score = self.score
        if score is None:
            msg = "a curve needs scores: pass `by`"
            raise ValueError(msg)
        return self.order(pl.struct(self.encoded, score.alias("_rankmetrics_score"))).implode()

    def aggregate(self, statistic: pl.Expr) -> pl.Expr:
        """Evaluate ``statistic``, written with :class:`Ranked`, on the group's ranking."""
        return self.ranked().list.agg(statistic)

    @property
    def in_list(self) -> Ranked:
        """The vocabulary for writing statistics over :meth:`ranked`."""
        return Ranked(self.threshold)

    @property
    def in_scored_list(self) -> Ranked:
        """The vocabulary for writing statistics over :meth:`ranked_with_scores`."""
        return Ranked(self.threshold, pl.element().struct[0])


@dataclass(frozen=True, eq=False)
class Ranked:
    """Expressions over one ranked list, for use inside ``list.agg``/``list.eval``.

    Positions are in rank order; the unretrieved rows are the list's tail.
    """

    threshold: float
    code: pl.Expr = field(default_factory=pl.element)
    """Where the encoded label of each position is read from."""

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
        return self.label > self.threshold

    @property
    def n_relevant(self) -> pl.Expr:
        """R: the number of relevant rows, retrieved or not."""
        return self.relevant.sum()

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
        return pl.int_range(1, pl.len() + 1).cast(pl.Float64)

    @property
    def precision_terms(self) -> pl.Expr:
        """P@i at each relevant retrieved rank i, 0 elsewhere: AP's summands."""
        hit = self.hit
        return hit * hit.cum_sum() / self.rank

    def gain(self, label: pl.Expr, gain: Gain) -> pl.Expr:
        """The DCG gain of ``label``."""
        return label if gain == "linear" else pl.lit(2.0).pow(label) - 1.0

    @property
    def discount(self) -> pl.Expr:
        """1 / log2(rank + 1) at each position."""
        return 1.0 / (self.rank + 1.0).log(2)

    @property
    def ideal_labels(self) -> pl.Expr:
        """The gain labels of every row, retrieved or not, highest first: the ideal ranking."""
        return self.label.sort(descending=True)

    def if_relevant(self, value: pl.Expr, no_relevant: NoRelevant) -> pl.Expr:
        """``value`` where the group has a relevant row, else null or 0."""
        fallback = None if no_relevant == "null" else 0.0
        return pl.when(self.n_relevant > 0).then(value).otherwise(fallback)
