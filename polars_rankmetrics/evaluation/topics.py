"""Each query's measures, as trec_eval ranks it: shared by :func:`.evaluate` and the CLI.

The run and the qrels are joined per (query, document), so that judged
documents that were not retrieved still count in R and in the ideal DCG; each
query is ranked once per tie order in use (trec_eval's: score descending, ties
broken by document id descending, as byte strings) and every measure is read
from that ranking, in trec_eval's arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

import polars as pl

from polars_rankmetrics._validate import DocOrder, TieBreak
from polars_rankmetrics.engine import Ranking, Threshold, entry
from polars_rankmetrics.engine.ideal import SORTING_NETWORK
from polars_rankmetrics.engine.ranked import JUDGEMENT_ORDER
from polars_rankmetrics.engine.ranking import numeric_score
from polars_rankmetrics.evaluation.ranx_bulk import QUERY_CODE, Joined
from polars_rankmetrics.evaluation.subtopics import subtopic_fields
from polars_rankmetrics.measures import Column
from polars_rankmetrics.multi import columns_struct

IN_RUN = "_rankmetrics_in_run"
IN_QRELS = "_rankmetrics_in_qrels"
HAS_RELEVANT = "_rankmetrics_has_relevant"
QRELS_ROW = "_rankmetrics_qrels_row"
"""The qrels' row index: the order ir_measures' Compat gives tied relevant documents."""
ROW = "_rankmetrics_row"
"""A run's row index, for measures whose tool breaks tied scores in the run's order."""
_MEASURES = "_rankmetrics_measures"
TREC_POSITION = "_rankmetrics_trec_position"
"""A run's place of each row in trec_eval's order, where the reader knows it (ranx objects)."""
_BELOW = "_rankmetrics_below"

PLACEHOLDER_DOC = "ceci_nest_pas_un_docno"
"""The one document trec_eval ranks (score 1) for a query missing from the run, under ``-c``."""

GAIN_KEYS = frozenset(
    {"nDCG", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg", "G", "RBP", "rbp_resid", "relstring"}
)
"""The measures that read gains (levels), not relevance: trec_eval's ``-l`` leaves them alone."""


def trec_order(run: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    """The run sorted as trec_eval ranks it: by query, score descending, doc descending."""
    return run.lazy().sort(
        ["query", "score", "doc"], descending=[False, True, True], nulls_last=True
    )


def trec_ranked(values: pl.Expr, depth: int | None = None) -> pl.Expr:
    """In a group by query: ``values`` of the retrieved rows, as trec_eval ranks them.

    The order of :func:`trec_order` (score descending, then document id
    descending), where a null or NaN score is not retrieved, as every measure
    reads it: its row is left out. Cut to the first ``depth`` rows when given.
    The one order of every comparison of rankings (RBO, KTU).
    """
    score = numeric_score(pl.col("score"))
    kept = score.count() if depth is None else pl.min_horizontal(score.count(), depth)
    ordered = values.sort_by(score, pl.col("doc"), descending=True, nulls_last=True)
    return ordered.slice(0, kept)


def truncate(run: pl.DataFrame, max_per_query: int | None) -> pl.DataFrame:
    """The top ``max_per_query`` documents of each query, in trec_eval's order (``-M``)."""
    if max_per_query is None:
        return run
    ordered = trec_order(run)
    return ordered.filter(pl.int_range(pl.len()).over("query") < max_per_query).collect()


def judged_only(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """The run without the documents that are unjudged (not in the qrels, or negative; ``-J``)."""
    judged = qrels.filter(pl.col("relevance") >= 0).select("query", "doc").unique()
    return run.join(judged, on=["query", "doc"], how="semi", maintain_order="left")


def first_duplicates(frame: pl.DataFrame) -> dict[str, str]:
    """For each query that lists a document twice, the smallest such document (byte order)."""
    pair = pl.struct("query", "doc")
    # Counting each query's distinct documents costs about half of hashing the pairs.
    distinct = frame.group_by("query").agg((pl.col("doc").n_unique() == pl.len()).alias("ok"))
    if distinct.get_column("ok").all():
        return {}
    doubled = frame.filter(pair.is_duplicated()).group_by("query").agg(pl.col("doc").min())
    return dict(doubled.iter_rows())


def _ranking(
    order: DocOrder | Literal["positioned"], threshold: Threshold, carried: Mapping[str, pl.Expr]
) -> Ranking:
    """Each query's ranking: score descending, ties broken in ``order``.

    ``'positioned'``: trec_eval's order, read from :data:`TREC_POSITION` (see
    :func:`topic_plan`): one integer key, a third of the cost of (score, doc)
    in the group-by's sort.
    """
    if order == "positioned":
        plain = Ranking.build("relevance", ["score"], [True], threshold, carried=carried)
        return replace(plain, order_key=pl.col(TREC_POSITION))
    if order == "input":
        return Ranking.build("relevance", ["score", ROW], [True, False], threshold, carried=carried)
    descending = [True, order == "doc_descending"]
    return Ranking.build("relevance", ["score", "doc"], descending, threshold, carried=carried)


def _statistics(
    columns: Sequence[Column],
    threshold: Threshold,
    tie_break: TieBreak,
    carried: Mapping[str, pl.Expr],
    positioned: bool = False,
) -> pl.Expr:
    """The struct of every column's statistic over each query's ranking(s)."""

    def variant(column: Column) -> tuple[bool, DocOrder | Literal["positioned"]]:
        order = _order(column, tie_break)
        if positioned and order == "doc_descending" and not column.judged_only:
            return False, "positioned"
        return column.judged_only, order

    def ranking(key: Any) -> Ranking:
        only_judged, order = key
        plain = _ranking(order, threshold, carried)
        return plain.judged_only() if only_judged else plain

    return columns_struct(columns, "zero", variant, ranking)


_STRUCTS: dict[tuple[Any, ...], tuple[tuple[object, ...], pl.Expr]] = {}
""":func:`_statistics`' expressions already built, by the columns (their measures by identity:
measures are made once, at import), threshold, tie order, carried fields and engine switches.
Building them costs 1-3 ms, most of ``evaluate()``'s planning on a small run."""


def _remembered(
    columns: Sequence[Column],
    threshold: Threshold,
    tie_break: TieBreak,
    carried: Mapping[str, pl.Expr],
    positioned: bool = False,
) -> pl.Expr:
    """:func:`_statistics`, answered from :data:`_STRUCTS` for columns seen before."""
    measures = tuple(column.measure for column in columns)
    try:
        described = tuple(
            (c.name, id(c.measure), c.params, c.threshold, c.judged_only, c.order) for c in columns
        )
        switches = (SORTING_NETWORK.get(), entry.FAST_PATHS)
        key = (described, threshold, tie_break, tuple(carried), switches, positioned)
        hash(key)
    except TypeError:  # a parameter that cannot be hashed: build it afresh
        return _statistics(columns, threshold, tie_break, carried, positioned)
    known = _STRUCTS.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], measures, strict=True)):
        return known[1]
    statistics = _statistics(columns, threshold, tie_break, carried, positioned)
    if len(_STRUCTS) < 1_000:
        _STRUCTS[key] = (measures, statistics)
    return statistics


def _joined(
    qrels: pl.DataFrame, run: pl.DataFrame | pl.LazyFrame, positioned: bool
) -> pl.LazyFrame:
    """The full join of the run and the qrels per (query, document)."""
    row = [ROW] if ROW in run.collect_schema() else []
    judged = ["query", "doc", "relevance", *(["subtopics"] if "subtopics" in qrels.columns else [])]
    below: list[pl.Expr] = []
    if positioned:
        # The judged documents the run lacks rank below all of its rows, by doc descending.
        row.append(TREC_POSITION)
        place = pl.col("doc").rank("ordinal", descending=True).cast(pl.Int64) + (1 << 32)
        below.append(place.alias(_BELOW))
    joined = (
        run.lazy()
        .select("query", "doc", "score", *row, pl.lit(True).alias(IN_RUN))
        .join(
            qrels.lazy()
            .with_row_index(QRELS_ROW)
            .select(*judged, *below, QRELS_ROW, pl.lit(True).alias(IN_QRELS)),
            on=["query", "doc"],
            how="full",
            coalesce=True,
        )
    )
    if positioned:
        joined = joined.with_columns(pl.coalesce(TREC_POSITION, _BELOW).alias(TREC_POSITION))
    return joined


def prejoined(joined: Joined) -> pl.LazyFrame:
    """:func:`_joined`'s columns from a join read in bulk (:func:`.ranx_bulk.ranx_joined`).

    Its query is the query's code (see :func:`_named`); its rows come in
    trec_eval's order, so their row number is the order key.
    """
    judged = pl.col("in_qrels")
    return joined.frame.lazy().select(
        pl.col(QUERY_CODE).alias("query"),
        pl.col("score").fill_nan(None),
        pl.int_range(pl.len(), dtype=pl.Int64).alias(TREC_POSITION),
        pl.col("in_run").alias(IN_RUN),
        pl.when(judged).then(pl.col("relevance")).alias("relevance"),
        pl.when(judged).then(pl.col("qrels_row").cast(pl.get_index_type())).alias(QRELS_ROW),
        judged.alias(IN_QRELS),
    )


def _ranked_values(
    qrels: pl.DataFrame,
    joined: pl.LazyFrame,
    columns: Sequence[Column],
    threshold: Threshold,
    tie_break: TieBreak,
    positioned: bool = False,
) -> pl.LazyFrame:
    # The qrels order of each judged row, for ir_measures' Compat (its ideal
    # orders tied documents so); sorted into the lists only when read.
    carried = {**subtopic_fields(qrels), JUDGEMENT_ORDER: pl.col(QRELS_ROW)}
    statistics = _remembered(columns, threshold, tie_break, carried, positioned)
    relevant = (pl.col("relevance") >= threshold.value).fill_null(False)
    grouped = joined.group_by("query").agg(
        statistics.alias(_MEASURES),
        pl.col(IN_RUN).any(),
        pl.col(IN_QRELS).any(),
        relevant.any().alias(HAS_RELEVANT),
    )
    return grouped.select(
        "query", IN_RUN, IN_QRELS, HAS_RELEVANT, pl.col(_MEASURES).struct.unnest()
    )


NETWORK_MIN_ROWS = 500_000
"""From how many rows (run and qrels) nDCG@k's ideal takes the sorting network.

Below it, planning the network (10-15 ms) costs more than the sort per query it saves
(:data:`polars_rankmetrics.engine.ideal.SORTING_NETWORK`); the values are the same bits."""


def topic_plan(
    qrels: pl.DataFrame | None,
    run: pl.DataFrame | pl.LazyFrame | None,
    columns: Sequence[Column],
    relevance_level: int,
    tie_break: TieBreak = "tool",
    *,
    rows: int,
    positioned: bool = False,
    joined: Joined | None = None,
) -> pl.LazyFrame:
    """:func:`topic_values`' query, not collected; ``rows`` counts the run's and qrels' rows.

    The sorting network of nDCG@k's ideal is planned only from
    :data:`NETWORK_MIN_ROWS` rows (the same values either way).

    ``positioned``: the run has :data:`TREC_POSITION`, each row's place in
    trec_eval's order (distinct integers below 2**32, increasing within each
    query by score descending then doc descending; no null or NaN score).
    The judged documents the run lacks are placed after them by doc
    descending, and the measures in trec_eval's order sort each query by that
    one integer key: the same order as by (score, doc), at a third of the
    group-by's sort.

    ``joined``: the join read in bulk from ranx objects (:func:`prejoined`;
    ``qrels`` and ``run`` are then not read, and every column must be
    :func:`positioned_only`).
    """
    network = SORTING_NETWORK.get() and rows >= NETWORK_MIN_ROWS
    token = SORTING_NETWORK.set(network)
    try:
        if joined is not None:
            bulk = prejoined(joined)

            def relabelled(_: pl.DataFrame, relabel: pl.Expr | None) -> pl.LazyFrame:
                return bulk if relabel is None else bulk.with_columns(relabel)

            frame = _plan(_NO_QRELS, relabelled, columns, relevance_level, tie_break, True)
            return frame.with_columns(_named(joined.queries)).sort("query")
        assert qrels is not None and run is not None
        the_run = run

        def of_run(judgements: pl.DataFrame, _: pl.Expr | None) -> pl.LazyFrame:
            return _joined(judgements, the_run, positioned)

        frame = _plan(qrels, of_run, columns, relevance_level, tie_break, positioned)
        return frame.sort("query")
    finally:
        SORTING_NETWORK.reset(token)


def topic_values(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    columns: Sequence[Column],
    relevance_level: int,
    tie_break: TieBreak = "tool",
) -> pl.DataFrame:
    """One row per query of either side: the measures, and where the query appears.

    ``run`` has ``query, doc, score`` (and :data:`ROW` for measures whose tool
    keeps the run's order of tied scores), ``qrels`` has ``query, doc,
    relevance`` (and ``subtopics`` for diversity measures); a document is
    relevant at ``relevance >= relevance_level`` (>= 0). Measures undefined
    without relevant documents are 0, as in trec_eval. Sorted by query.

    At level 0 every judged document (level >= 0) is relevant: the measures of
    relevance read qrels whose judged levels are all 1, at level 1, and the gain
    measures (which trec_eval computes without ``-l``) read the levels themselves.
    """
    rows = run.height + qrels.height
    return topic_plan(qrels, run, columns, relevance_level, tie_break, rows=rows).collect()


def _plan(
    qrels: pl.DataFrame,
    joined: Callable[[pl.DataFrame, pl.Expr | None], pl.LazyFrame],
    columns: Sequence[Column],
    relevance_level: int,
    tie_break: TieBreak,
    positioned: bool = False,
) -> pl.LazyFrame:
    """:func:`topic_values`' query, not collected, not sorted.

    ``joined(judgements, relabel)`` is the run joined with ``judgements`` (the
    qrels as a group of measures reads their labels); a join already made
    applies ``relabel``, the expression that relabelled ``judgements``, instead.
    """
    if relevance_level > 0:
        threshold = Threshold(relevance_level, inclusive=True)
        return _ranked_values(qrels, joined(qrels, None), columns, threshold, tie_break, positioned)
    gains = [column for column in columns if column.measure.key in GAIN_KEYS]
    others = [column for column in columns if column.measure.key not in GAIN_KEYS]
    judged = pl.col("relevance") >= 0
    binary_label = pl.when(judged).then(1).otherwise(pl.col("relevance")).alias("relevance")
    binary = qrels.with_columns(binary_label)
    frames = []
    if others or not gains:
        threshold = Threshold(1, inclusive=True)
        ranked = joined(binary, binary_label)
        frames.append(_ranked_values(binary, ranked, others, threshold, tie_break, positioned))
    if gains:
        threshold = Threshold(0, inclusive=True)
        ranked = joined(qrels, None)
        frames.append(_ranked_values(qrels, ranked, gains, threshold, tie_break, positioned))
    frame = frames[0]
    if len(frames) == 2:
        frame = frame.join(frames[1].drop(IN_RUN, IN_QRELS, HAS_RELEVANT), on="query")
    names = [column.name for column in columns]
    return frame.select("query", IN_RUN, IN_QRELS, HAS_RELEVANT, *names)


_NO_QRELS = pl.DataFrame(schema={"query": pl.String, "doc": pl.String, "relevance": pl.Int64})
"""The qrels :func:`_plan` is given with a frame already joined (it reads only their columns)."""


def _named(queries: pl.Series) -> pl.Expr:
    """The query ids of :func:`prejoined`'s codes."""
    return pl.lit(queries).gather(pl.col("query")).alias("query")


def positioned_only(columns: Sequence[Column], tie_break: TieBreak) -> bool:
    """Whether every column ranks in trec_eval's order (the place key's), none judged-only."""
    return all(
        not column.judged_only and _order(column, tie_break) == "doc_descending"
        for column in columns
    )


def _order(column: Column, tie_break: TieBreak) -> DocOrder:
    """The order a column breaks tied scores in: ``tie_break``, or its tool's for ``'tool'``."""
    return tie_break if tie_break != "tool" else column.order or "doc_descending"
