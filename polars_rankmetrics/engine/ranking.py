"""Rank a group once: the sort, and the lists that every statistic reads.

Sorting is the expensive step of every ranking metric, and polars does not share
a sort between two expressions inside ``group_by().agg()``. So each group's rows
are sorted once into a single list (:meth:`Ranking.ranked`, encoded as in
:mod:`.ranked`), and every statistic is an expression over that list. Several
statistics over one ranking read the same list, which is how
:func:`polars_rankmetrics.metrics` costs one sort.

Tied scores (the ``ties`` option, :data:`~polars_rankmetrics._validate.Ties`):
``'stable'`` sorts by ``by`` and keeps input order; ``'optimistic'`` and
``'pessimistic'`` add the gain label as a sort key right after the score, so they
cost one extra key and nothing else; ``'average'`` sorts by the score alone into
a ``{code, score}`` struct list, because the expected value needs to see where
each tie group starts and ends (see :mod:`.ties`).

Statistics that read more than the label (the raw label, the score, the
subtopics of a document: the *fields* of :data:`.ranked.FIELDS`) read a list of
``{code, field, ...}`` structs sorted the same way (:meth:`Ranking.listed`),
holding only the fields that they read. Per-row columns beside the label (the
subtopic lists of diversity measures) travel with the ranking as
:attr:`Ranking.carried`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import polars as pl

from polars_rankmetrics._validate import (
    IntoExpr,
    Ties,
    as_expr,
    check_by,
    check_choice,
    check_descending,
    check_number,
)
from polars_rankmetrics.engine.ranked import FIELDS, RAW, SCORE, Ranked, Threshold
from polars_rankmetrics.engine.ties import annotate_tie_groups


def numeric_score(score: pl.Expr) -> pl.Expr:
    """``score`` in its own type, NaN read as null; a score that is not a number fails at collect.

    Integers, floats and decimals are scores. ``floor`` is defined for exactly
    those types, so a bool, string, date, duration, categorical, list or
    all-null (``Null``) column fails at collect with polars' error "`floor`
    operation not supported for dtype `bool` (expected: numeric)", whose
    expression names the column. (A cast would parse the string "10" and sort
    it below "9".) Comparing the floor with NaN finds the NaN scores without
    ``fill_nan``, which refuses decimals; the score keeps its type, so integers
    beyond 2**53 keep their order.

    The column's type picks the form when the plan is built: a float score takes
    ``fill_nan(None)`` and an integer score is itself (it has no NaN), the same
    values at a fifth of the floor's cost (``floor`` and the comparison cost about
    5 ms per million rows, a third of what ``metrics()`` adds to the grouped sort).
    """
    return score.pipe_with_dtype(_score_for)


def _score_for(score: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """:func:`numeric_score` for a column of type ``dtype``."""
    if dtype.is_float():
        return score.fill_nan(None)
    if dtype.is_integer():
        return score
    return pl.when(score.floor() != math.nan).then(score)


NARROW_CODES: tuple[tuple[type[pl.DataType], type[pl.DataType]], ...] = (
    (pl.Int8, pl.Int8),
    (pl.Int16, pl.Int16),
    (pl.Int32, pl.Int32),
    (pl.UInt8, pl.Int16),
    (pl.UInt16, pl.Int32),
    (pl.Boolean, pl.Int8),
)
"""Label types whose code (:attr:`Ranking.code`) sorts as an integer, and its type.

``-1 - label`` of a label clipped at 0 fits the signed type of the same width,
or the next wider one for unsigned labels.
"""


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
        Which labels are relevant.
    ties
        How rows with equal primary scores (``by[0]``) are ordered; see
        :data:`~polars_rankmetrics._validate.Ties`.
    carried
        Per-row columns sorted along with the label, by field name
        (:data:`.ranked.FIELDS`): the subtopic lists of diversity measures, their
        intent probabilities, document ids.
    order_key
        One integer key that sorts the rows (ascending, nulls last, stably)
        exactly as ``by`` does, unretrieved rows included: the sort
        reads it instead of ``by`` (a sort by one key costs a third of a sort
        by two in the group-by); ``by`` still says which rows are retrieved.
        Only with ``ties='stable'``, and not with :meth:`judged_only`.
    """

    relevance: pl.Expr
    by: tuple[pl.Expr, ...]
    descending: tuple[bool, ...]
    threshold: Threshold
    ties: Ties = "stable"
    carried: tuple[tuple[str, pl.Expr], ...] = ()
    order_key: pl.Expr | None = None

    @classmethod
    def build(
        cls,
        relevance: IntoExpr,
        by: IntoExpr | Sequence[IntoExpr] | None,
        descending: bool | Sequence[bool],
        threshold: float | Threshold,
        ties: Ties = "stable",
        carried: Mapping[str, pl.Expr | None] | None = None,
    ) -> Ranking:
        """Validate the public parameters shared by every metric.

        ``carried`` maps field names to per-row columns; ``None`` values are left out.
        """
        by_exprs = check_by(by)
        directions = check_descending(descending, len(by_exprs))
        if not isinstance(threshold, Threshold):
            threshold = Threshold(check_number(threshold, "threshold", low=0.0))
        check_choice(ties, "ties", Ties)
        if ties != "stable" and not by_exprs:
            msg = (
                f"`ties={ties!r}` needs scores to find the ties: pass `by` "
                "(with `by=None` the rows are already in rank order and cannot tie)"
            )
            raise ValueError(msg)
        extra = tuple((name, expr) for name, expr in (carried or {}).items() if expr is not None)
        unknown = [name for name, _ in extra if name not in FIELDS]
        if unknown:
            msg = f"unknown carried field(s) {unknown}; the fields are {sorted(FIELDS)}"
            raise ValueError(msg)
        return cls(as_expr(relevance), by_exprs, directions, threshold, ties, extra)

    def judged_only(self) -> Ranking:
        """The ranking of the judged rows only: a row without a label >= 0 is not retrieved.

        trec_eval's ``judged_docs_only_flag`` (ir_measures' ``judged_only=True``):
        unjudged rows (null labels) and rows with a negative label leave the
        ranking, so the rows below them move up. Without scores (``by=None``)
        the rows keep their order.
        """
        if self.order_key is not None:
            msg = "a ranking sorted by `order_key` has no judged-only variant"
            raise ValueError(msg)
        judged = self.numeric_relevance.fill_null(-1.0) >= 0.0
        if self.by:
            by = (pl.when(judged).then(self.by[0]), *self.by[1:])
            return replace(self, by=by)
        position = pl.when(judged).then(pl.int_range(pl.len()))
        return replace(self, by=(position,), descending=(False,))

    def labelled(self, fields: Collection[str]) -> pl.Expr:
        """:meth:`listed` of the rows with a label (not null) only, in the same order.

        For statistics that read no other row
        (:attr:`.statistic.Statistic.judged_rows`); not with ``ties='average'``.
        The label, ``by``, the order key and the carried columns among
        ``fields`` are evaluated on every row, as one struct, which is filtered
        once; the code, the fields and the sort are computed on the rows kept
        (a stable sort by the same keys: the same order relative to each other).
        """
        # The label's field keeps the column's name, so that polars' error for a
        # label that is not numeric names the user's column, not this struct's field.
        label = self.relevance.meta.output_name(raise_if_undetermined=False) or "relevance"
        others = {f"by{index}": key for index, key in enumerate(self.by)}
        others |= {name: expr for name, expr in self.carried if name in fields}
        if label in others or label == "order_key":
            label = "_rankmetrics_label"
        inputs = {label: self.relevance} | others
        if self.order_key is not None:
            inputs["order_key"] = self.order_key
        packed = pl.struct([expr.alias(name) for name, expr in inputs.items()])
        kept = packed.filter(self.relevance.is_not_null()).implode()

        def element(name: str) -> pl.Expr:
            return pl.element().struct.field(name)

        inner = replace(
            self,
            relevance=element(label),
            by=tuple(element(f"by{index}") for index in range(len(self.by))),
            carried=tuple((name, element(name)) for name, _ in self.carried if name in fields),
            order_key=None if self.order_key is None else element("order_key"),
        )
        names = sorted(set(fields) - {SCORE})
        if SCORE in fields:
            names.insert(0, SCORE)
        struct = pl.struct(inner.encoded, *(inner._field(name) for name in names))
        name = self.ranked().meta.output_name(raise_if_undetermined=False)
        listed = kept.list.eval(inner.order(struct))
        return listed if name is None else listed.alias(name)

    @property
    def numeric_relevance(self) -> pl.Expr:
        """The relevance as Float64; a column that is not numeric or bool fails at collect.

        The mean of the one label takes numbers, decimals and bools, and refuses
        any other type (strings, dates, durations, categoricals, lists) with an
        error that names the column ("'horizontal_mean' expects numeric
        expressions, found "label" (dtype=cat)"), where a cast would parse "1"
        silently. It costs nothing extra: a Python check would stop polars from
        evaluating the encoding once for the whole column instead of group by group.

        A NaN label is read as null: unjudged, as pandas writes a missing label.
        """
        # `+ 0.0`, not only a cast: polars types the mean of a decimal as Float64
        # but computes a decimal, so a cast alone is dropped as a no-op.
        return (pl.mean_horizontal(self.relevance) + 0.0).cast(pl.Float64).fill_nan(None)

    @property
    def label(self) -> pl.Expr:
        """The gain label of each row: null (unjudged) as 0, negative labels as 0."""
        return self.numeric_relevance.fill_null(0.0).clip(lower_bound=0.0)

    @property
    def score(self) -> pl.Expr | None:
        """The primary score, with NaN read as null (not retrieved); see :func:`numeric_score`."""
        if not self.by:
            return None
        return numeric_score(self.by[0])

    @property
    def retrieved(self) -> pl.Expr:
        """Whether each row takes part in the ranking (its score is not null or NaN)."""
        score = self.score
        return pl.lit(True) if score is None else score.is_not_null()

    @property
    def n_relevant(self) -> pl.Expr:
        """R of the group, from its unsorted rows, as Float64."""
        return self.threshold.admits(self.label).sum().cast(pl.Float64)

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
        if self.order_key is not None:
            return values.sort_by(self.order_key, nulls_last=True, maintain_order=True)
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

    @property
    def code(self) -> pl.Expr:
        """:attr:`encoded` as the sort moves it: in a narrow integer type for integer labels.

        Sorting is the costly step, and it moves the sorted values: an Int8
        label's code sorts as Int8 (as the label itself would), a Float64 code
        cost 0.3-0.45 s more at 10M rows on one thread. Cast to Float64 after
        the sort (:meth:`ranked`), the values are exactly those of
        :attr:`encoded`: the labels of these types are whole numbers that
        Float64 holds exactly, and so is ``-1 - label`` in the wider type.
        Every other type (floats, 64-bit integers, decimals, and what is not a
        number, which fails at collect) takes :attr:`encoded` itself.
        """
        return self.relevance.pipe_with_dtype(self._code_for)

    def _code_for(self, relevance: pl.Expr, dtype: pl.DataType) -> pl.Expr:
        narrow = next((to for source, to in NARROW_CODES if dtype == source), None)
        if narrow is None:
            return self.encoded
        # The label if it is positive, else 0 (null included): the same codes as
        # `fill_null(0).clip(lower_bound=0)`, which costs 3 ms per million rows here.
        typed = relevance.cast(narrow)
        label = pl.when(typed > 0).then(typed).otherwise(0)
        return pl.when(self.retrieved).then(label).otherwise(-1 - label)

    def ranked(self) -> pl.Expr:
        """The group's ranking as one Float64 list (see :mod:`.ranked`)."""
        return self.order(self.code).cast(pl.Float64).implode()

    @property
    def fields(self) -> frozenset[str]:
        """The fields this ranking can give: the raw label, the score with ``by``, the carried."""
        given = {RAW, *(name for name, _ in self.carried)}
        return frozenset(given | ({SCORE} if self.by else set()))

    def _field(self, name: str) -> pl.Expr:
        if name == SCORE:
            score = self.score
            if score is None:
                msg = "a curve needs scores: pass `by`"
                raise ValueError(msg)
            return score.alias(SCORE)
        if name == RAW:
            return self.numeric_relevance.alias(RAW)
        return dict(self.carried)[name].alias(name)

    def listed(self, fields: Collection[str]) -> pl.Expr:
        """The ranking as a list of ``{code, field, ...}`` structs, sorted like :meth:`ranked`.

        The first field is the encoded label and keeps the relevance
        expression's name, so the result is named like every other metric; the
        others are ``fields`` (see :data:`.ranked.FIELDS`), by name. With
        ``ties='average'`` the list always holds the score, and the structs also
        carry the tie group fields of :func:`.annotate_tie_groups`.
        """
        names = sorted(set(fields) - {SCORE})
        if self.ties == "average" or SCORE in fields:
            names.insert(0, SCORE)
        struct = pl.struct(self.encoded, *(self._field(name) for name in names))
        listed = self.order(struct).implode()
        if self.ties == "average":
            # Add the tie group fields once, for every statistic to read.
            code = pl.element().struct[0]
            return listed.list.eval(annotate_tie_groups(Ranked(self.threshold, code), names[1:]))
        return listed

    def ranked_with_scores(self) -> pl.Expr:
        """The ranking as a list of ``{code, score}`` structs, for curves (see :meth:`listed`)."""
        return self.listed([SCORE])

    def ranked_judged(self) -> pl.Expr:
        """Return the ranking as a list of ``{code, raw}`` structs (see :attr:`Ranked.raw`).

        ``raw`` is the relevance label as Float64, null where it is null
        (unjudged). The first field keeps the relevance expression's name.
        """
        return self.listed([RAW])

    def vocabulary(self, threshold: Threshold | None = None) -> Ranked:
        """How a statistic reads :meth:`ranked` (or, for ``ties='average'``, the scored list)."""
        threshold = threshold or self.threshold
        if self.ties == "average":
            return Ranked(threshold, pl.element().struct[0], ties="average", fields=self.fields)
        return Ranked(threshold, fields=self.fields)

    def listed_vocabulary(self) -> Ranked:
        """How a statistic reads :meth:`listed`."""
        return Ranked(self.threshold, pl.element().struct[0], ties=self.ties, fields=self.fields)

    def scored_vocabulary(self) -> Ranked:
        """How a statistic reads :meth:`ranked_with_scores`."""
        return self.listed_vocabulary()
