"""The vocabulary statistics are written in: expressions over one ranked list.

Each group's rows are sorted once into a list (see :mod:`.ranking`), and a
statistic is an expression over that list, evaluated per list. The list packs
two facts into one number per position, so that the sort is a cheap primitive
sort:

- a retrieved row holds its gain label, clipped at 0 (``>= 0``);
- a row whose score is null or NaN (judged, not retrieved) holds ``-1 - label``
  (``< 0``) and sorts last.

Unretrieved rows still count in the number of relevant documents and in the
ideal DCG, which is why they stay in the list rather than being filtered out.
:class:`Ranked` reads positions, hits, gains and discounts off that number. A
few measures (bpref, infAP, unj, custom gains, ...) also need what it drops:
whether a row was judged at all (a null label), negative labels (trec_eval's
"in the pool but unjudged") and the raw level. Others read the score itself
(AUC, scikit-learn's AP) or a per-row column beside the label (the subtopics a
document is relevant to). Each of these is a named *field*
(:meth:`Ranked.field`, :data:`FIELDS`); for a statistic that reads fields the
engine sorts a list of ``{code, field, ...}`` structs instead, with the fields
that the statistics read and no others.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

import polars as pl

from polars_rankmetrics._validate import Gain, NoRelevant, Ties

SCORE = "_rankmetrics_score"
"""The field of the primary score (null or NaN: not retrieved)."""
RAW = "_rankmetrics_raw"
"""The field of the raw label: null when unjudged, possibly negative (Float64)."""
SUBTOPICS = "_rankmetrics_subtopics"
"""The field of the subtopics (intents) a row's document is relevant to: a list."""
INTENT_WEIGHTS = "_rankmetrics_intent_weights"
"""The field of the intent probabilities of the row's subtopics: a parallel list."""
DOC = "_rankmetrics_doc"
"""The field of the document id (for tie-breaks that name documents, as ndeval's)."""
JUDGEMENT_ORDER = "_rankmetrics_judgement_order"
"""The field of a judged row's position in the qrels (ir_measures' Compat orders ties so)."""

FIELDS: dict[str, str] = {
    SCORE: "scores: pass `by`",
    RAW: "the raw labels",
    SUBTOPICS: "subtopic judgements: pass `subtopics`",
    INTENT_WEIGHTS: "intent probabilities: pass `intent_weights`",
    DOC: "document ids: pass `docs`",
    JUDGEMENT_ORDER: "the qrels order of the judged rows: pass `judgement_order`",
}
"""Every field a statistic may read, and where a ranking gets it (for messages).

The ranking has :data:`SCORE` when it has ``by`` and :data:`RAW` always; the
others only when it carries them (:attr:`.ranking.Ranking.carried`).
"""

TOP_DISCOUNT_MAX_K = 1000
"""Up to this cutoff the top k's discounts are a table of k values (:func:`log2_table`)."""

LOG2_TABLE_SIZE = 1 << 16
"""How many ``log2`` values the tables hold: exact (C's ``log2``) up to this argument."""


@cache
def log2_table(n: int) -> pl.Series:
    """``log2(rank + 1)`` for the ranks 1 to ``n``, each C's (and Python's) ``log2``.

    Polars' ``log(2)`` is ``ln(x) / ln(2)``, which differs from ``log2(x)`` in the
    last bit for about a quarter of the integers; trec_eval divides each gain
    by ``log2``, so the discounts are read off this table. A long table is a
    slice of :func:`log2`'s (the same values), which costs milliseconds to build.
    """
    if n > TOP_DISCOUNT_MAX_K:
        return _whole_log2(max(n, LOG2_TABLE_SIZE) + 1).slice(1, n)
    return pl.Series("log2", [math.log2(rank + 1) for rank in range(1, n + 1)], dtype=pl.Float64)


def in_order(values: pl.Expr) -> pl.Expr:
    """The sum of ``values`` added one by one in list order (0 for an empty list).

    trec_eval adds its terms in rank order, and the last bit of a sum depends
    on the order: ``cum_sum`` adds in order by definition, where polars' ``sum``
    may add pairwise. The fast paths compute this aggregate with ``list.sum``,
    which adds in order too (a test guards it).
    """
    return values.cum_sum().last().fill_null(0.0)


def computed_once(
    values: Mapping[str, pl.Expr], body: Callable[[dict[str, pl.Expr]], pl.Expr]
) -> pl.Expr:
    """``body``, one value per list, over ``values``, each computed once per list.

    Polars shares no subexpression inside a list's context: a running count read
    four times is summed four times. Here ``values`` (one per position, all of the
    list's length) are the fields of one struct list, and ``body`` reads them by
    name as fields of the element, in one ``list.eval``. The values are the same
    expressions, so the result has the same bits.
    """
    packed = pl.struct([value.alias(name) for name, value in values.items()])
    fields = {name: pl.element().struct.field(name) for name in values}
    return packed.implode().list.eval(body(fields)).list.first()


@cache
def _whole_log2(n: int) -> pl.Series:
    """``log2(x)`` for x = 1 to ``n``, C's."""
    return pl.Series("log2", [math.log2(x) for x in range(1, n + 1)], dtype=pl.Float64)


def log2(values: pl.Expr, *, whole: bool = True) -> pl.Expr:
    """C's ``log2`` of ``values``.

    With ``whole`` (the values are whole numbers, as ranks and counts are), read
    off a table up to 65536, and ``ln/ln 2`` beyond it; otherwise Python's
    ``math.log2`` (C's) value by value, a Python call per value.
    """
    if not whole:
        return values.map_elements(math.log2, return_dtype=pl.Float64)
    # `values` is read five times below, and polars shares no subexpression inside a
    # list's context: it is computed once, as one list, and read there as the element.
    return values.implode().list.eval(_table_log2(pl.element())).explode()


def _table_log2(values: pl.Expr) -> pl.Expr:
    """:func:`log2` of whole numbers: off a table up to 65536, ``ln/ln 2`` beyond."""
    size = LOG2_TABLE_SIZE
    in_table = (values >= 1.0) & (values <= size) & (values.floor() == values)
    index = values.clip(1.0, size).floor().cast(pl.Int64) - 1
    # One list value: polars would copy a table Series into every group's context.
    table = _whole_log2(size + 1)  # one table with :func:`log2_table`'s
    looked_up = pl.lit(table).implode().list.gather(index.implode()).explode()
    return pl.when(in_table).then(looked_up).otherwise(values.log(2))


@dataclass(frozen=True)
class Threshold:
    """Which labels are relevant: those above ``value``, or at or above it when ``inclusive``.

    The metric functions' ``threshold=t`` is ``Threshold(t)``; trec_eval's
    ``-l 2`` and ir_measures' ``rel=2`` are ``Threshold(2, inclusive=True)``.
    """

    value: float = 0.0
    inclusive: bool = False

    def admits(self, label: pl.Expr) -> pl.Expr:
        """Whether ``label`` (a label, or a retrieved row's code) is relevant."""
        bound = literal_bound(self.value)
        return label >= bound if self.inclusive else label > bound

    def admits_unretrieved(self, code: pl.Expr) -> pl.Expr:
        """Whether an unretrieved row's code, ``-1 - label``, stands for a relevant label."""
        # -1 - label is below -1 - t exactly when label is above t.
        bound = literal_bound(-1.0 - self.value)
        return code <= bound if self.inclusive else code < bound


def literal_bound(value: float) -> float | int:
    """``value`` as the literal a comparison takes: an integer where it is a small whole number.

    The same comparison for a Float64 column (polars makes the literal a float),
    and an integer comparison for the narrow integer codes of integer labels
    (:meth:`.staged.StagedRanked.computed`), where a float literal would cast
    every value to Float64 first.
    """
    whole = float(value)
    return int(whole) if whole.is_integer() and abs(whole) <= NARROW_LITERAL_MAX else value


NARROW_LITERAL_MAX = 100
"""The largest bound written as an integer literal: it fits every narrow code type (Int8 up)."""


@dataclass(frozen=True, eq=False)
class Ranked:
    """Expressions over one ranked list, for use inside ``list.agg``/``list.eval``.

    Positions are in rank order; the unretrieved rows are the list's tail.
    """

    threshold: Threshold
    code: pl.Expr = field(default_factory=pl.element)
    """Where the encoded label of each position is read from."""
    ties: Ties = "stable"
    """``'average'`` when statistics must be expectations over tie groups."""
    fields: frozenset[str] = frozenset()
    """The fields the ranking can give (:data:`FIELDS`), for statistics that read one
    only where it is given (ndeval's tie-break by document id)."""

    def field(self, name: str) -> pl.Expr:
        """The field ``name`` at each position (see :data:`FIELDS`).

        Reading a field makes the engine sort a struct list that holds it.
        """
        return pl.element().struct.field(name)

    @property
    def score(self) -> pl.Expr:
        """The primary score at each position (null where not retrieved)."""
        return self.field(SCORE)

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
        # Read off the code without decoding it.
        return self.threshold.admits(self.code) | self.threshold.admits_unretrieved(self.code)

    def aggregate(self, value: pl.Expr) -> pl.Expr:
        """Mark ``value`` as one number per list: a sum, a count, a position.

        Statistics that read the ranking only through aggregates and combine
        those with arithmetic are *staged*: the engine computes each distinct
        aggregate once per list, however many statistics read it, and the
        arithmetic after it (see :mod:`.staged`). Here it is ``value`` itself.
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
        return self.top_hit(None).cast(pl.Float64)

    @property
    def rank(self) -> pl.Expr:
        """The 1-based rank of each position, as Float64."""
        # cum_count (the list holds no nulls) costs a fraction of int_range in list.agg.
        return self.code.cum_count().cast(pl.Float64)

    def top_hit(self, k: int | pl.Expr | None) -> pl.Expr:
        """Whether each of the first ``k`` positions (all when ``None``) holds a hit.

        A Boolean: its sum counts the hits as an exact UInt32, and summing
        Booleans (or ``any``, ``arg_max``) over each list costs a fraction of
        the same over the Float64 :attr:`hit`. Unretrieved rows hold negative
        codes, which no threshold admits.
        """
        # Cut the list before comparing: polars does not push the head down.
        return self.threshold.admits(self.code if k is None else self.code.head(k))

    def top_retrieved_gain(self, k: int, gain: Gain) -> pl.Expr:
        """The gain of the first ``k`` positions, 0 where the row is not retrieved."""
        # An unretrieved row's code is negative and a retrieved one's is its
        # label, so clipping at 0 gives the label or 0; either gain of 0 is 0.
        return self.gain(self.code.head(k).clip(lower_bound=0.0), gain)

    @property
    def precision_terms(self) -> pl.Expr:
        """P@i at each relevant retrieved rank i, 0 elsewhere: AP's summands."""
        # The running count of hits, in UInt32: exact, and cheaper than a Float64 cum_sum.
        found = self.top_hit(None).cast(pl.UInt32).cum_sum()
        return self.hit * found / self.rank

    def best_precision_from_hits(self) -> pl.Expr:
        """Per list, the highest precision at each hit and below it: a list, one per hit.

        The running maximum from the end of ``found / rank`` at the hits: its (c-1)-th
        value is the highest precision at the c-th and later relevant retrieved rows
        (trec_eval's interpolated precision). One aggregate.
        """
        hit = self.top_hit(None)
        found = hit.cast(pl.Float64).cum_sum()
        at_hits = (found / self.rank).filter(hit)
        return self.aggregate(at_hits.reverse().cum_max().reverse().implode())

    def gain(self, label: pl.Expr, gain: Gain) -> pl.Expr:
        """The DCG gain of ``label``."""
        return label if gain == "linear" else pl.lit(2.0).pow(label) - 1.0

    @property
    def log2_rank(self) -> pl.Expr:
        """``log2(rank + 1)`` at each position: DCG divides each gain by it (C's ``log2``).

        Read off :func:`log2_table` up to rank :data:`LOG2_TABLE_SIZE`, and
        computed as ``ln/ln 2`` beyond it (there it may differ from C's in the
        last bit).
        """
        # The table as one list value (a Series would be copied into each list's context).
        table = pl.lit(log2_table(LOG2_TABLE_SIZE)).implode().list.head(self.code.len()).explode()
        beyond = self.code.slice(LOG2_TABLE_SIZE).cum_count().cast(pl.Float64)
        return table.append((beyond + (LOG2_TABLE_SIZE + 1.0)).log(2))

    def top_log2_rank(self, k: int) -> pl.Expr:
        """:attr:`log2_rank` at the first ``k`` positions only, for a sum to rank ``k``."""
        if k > TOP_DISCOUNT_MAX_K:
            return self.log2_rank.head(k)
        # A table of k values: unlike the rank (a cum_count), this is not a
        # call per list when polars evaluates a list of lists at once (at a
        # million lists of 10, DCG@10 takes 0.03 s instead of 0.29 s).
        return pl.lit(log2_table(k)).implode().list.head(self.code.head(k).len()).explode()

    def top_dcg(self, k: int, gain_of: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """DCG@k: ``gain_of`` the first ``k`` codes over their discounts, added in rank order.

        ``gain_of`` maps codes to gains elementwise. An aggregate: the fast paths
        compute it without a call per list (:meth:`.staged.StagedRanked.top_dcg`).
        """
        return self.aggregate(in_order(gain_of(self.code.head(k)) / self.top_log2_rank(k)))

    @property
    def ideal_labels(self) -> pl.Expr:
        """The gain labels of every row, retrieved or not, highest first: the ideal ranking."""
        # A full sort of the list: inside list.agg it is cheaper than a partial top_k.
        return self.label.sort(descending=True)

    @property
    def running_dcg(self) -> pl.Expr:
        """DCG to each rank: the retrieved labels over ``log2(rank + 1)``, added in rank order."""
        return (pl.when(self.retrieved).then(self.label).otherwise(0.0) / self.log2_rank).cum_sum()

    @property
    def running_ideal_dcg(self) -> pl.Expr:
        """The ideal ranking's DCG to each rank (its labels, at least 0), added in rank order."""
        return (self.ideal_labels.clip(lower_bound=0.0) / self.log2_rank).cum_sum()

    def ideal_dcg(self, k: int, gains: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """The DCG@k of the ideal ranking: ``gains`` of its labels over the discounts, in order.

        ``gains`` maps labels to gains elementwise and keeps their order (a
        higher label never gains less). An aggregate: the fast paths compute it
        without sorting each list (:meth:`.staged.StagedRanked.ideal_dcg`).
        """
        ideal = gains(self.ideal_labels).head(k)
        return self.aggregate(in_order(ideal / self.top_log2_rank(k)))

    def divide(self, numerator: pl.Expr, denominator: float) -> pl.Expr:
        """``numerator / denominator`` for a per-list ``numerator``: a true division (trec_eval).

        Polars divides a column by a literal as a multiplication by its
        reciprocal (``9 * (1/1000)`` is 0.009000000000000001, ``9 / 1000`` is
        0.009), and it may evaluate one value per list as a column of all the
        lists' values; so the divisor is one value per list too. (The fast
        paths hold it as a field: ``StagedRanked.divide``.) The list's first value
        enters only through ``is_null``, so an infinite label (``inf * 0.0`` is NaN)
        leaves the divisor finite.
        """
        first = self.code.head(1).is_null().cast(pl.Float64)
        divisor = (first * 0.0 + denominator).max().fill_null(denominator)
        return numerator / divisor

    def at_each(self, numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
        """``numerator / denominator`` at each position, for a per-list ``denominator``.

        A true division at each position: polars would multiply a column by the
        reciprocal of a single number, a different last bit from trec_eval's
        division. ``numerator`` has a value at every position.
        """
        return numerator / pl.repeat(denominator, self.code.len())

    def if_relevant(self, value: pl.Expr, no_relevant: NoRelevant) -> pl.Expr:
        """``value`` where the group has a relevant row, else null or 0."""
        fallback = None if no_relevant == "null" else 0.0
        return pl.when(self.n_relevant > 0).then(value).otherwise(fallback)

    # What only a list of fields holds: the engine gives a statistic that reads
    # `raw` a list of {code, raw, ...} structs, sorted like the plain one.

    @property
    def raw(self) -> pl.Expr:
        """The label as given: null when unjudged, possibly negative (Float64)."""
        return self.field(RAW)

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
