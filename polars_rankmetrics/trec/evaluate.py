"""Evaluate a run against qrels: :func:`evaluate`, with trec_eval's conventions and numbers.

The run and the qrels are joined per (query, document); each query is ranked
once as trec_eval ranks it (score descending, ties broken by document id
descending), every measure is read from that ranking, and the per-query values
are summarised over queries as each measure's tool does (the mean; the sum for
counts; trec_eval's geometric mean for ``gm_map``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import polars as pl

from polars_rankmetrics._validate import DocOrder, TieBreak, check_choice, check_k, is_integral
from polars_rankmetrics.engine import Ranking, Threshold
from polars_rankmetrics.measures import Column, parse_measures
from polars_rankmetrics.multi import columns_struct
from polars_rankmetrics.trec.inputs import check_not_swapped, read_qrels, read_run
from polars_rankmetrics.trec.subtopics import judged_subtopics, reads_subtopics, subtopic_fields

Source: TypeAlias = str | Path | pl.LazyFrame | pl.DataFrame | Any
"""A run or qrels: a path (TREC file, ``.gz``, ``-``, parquet), a polars, pandas
or pyarrow table, a nested dict, a ranx object, or ir_datasets records; see
:mod:`polars_rankmetrics.trec.inputs`."""

_IN_RUN = "_rankmetrics_in_run"
_IN_QRELS = "_rankmetrics_in_qrels"
_MEASURES = "_rankmetrics_measures"
_HAS_RELEVANT = "_rankmetrics_has_relevant"
_ROW = "_rankmetrics_row"


@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    per_query
        One row per evaluated query, sorted by query id as strings: a
        ``query`` column, then one Float64 column per measure output
        (``relstring`` is a String). Summary-only measures (``gm_map``,
        ``gm_bpref``, ``num_q``) are not in it.
    aggregate
        One row: each measure summarised over the evaluated queries (the mean;
        the sum for counts such as ``num_ret``; trec_eval's geometric mean for
        ``gm_map``/``gm_bpref``; the number of queries for ``num_q``).
    run_id
        The run id of the run's last line ('' for a frame without one).
    measures
        The parsed measure columns, in output order.
    n_queries
        How many queries were evaluated (rows of ``per_query``).
    ignored_queries
        Queries in the run but not in the qrels: ignored, as trec_eval does.
    missing_queries
        Queries in the qrels but not in the run: ignored by default, scored 0
        with ``complete=True``.
    no_relevant_queries
        Evaluated queries without a relevant document (their AP, recall, ...
        are 0).
    """

    per_query: pl.DataFrame
    aggregate: pl.DataFrame
    run_id: str
    measures: tuple[Column, ...]
    n_queries: int
    ignored_queries: int
    missing_queries: int
    no_relevant_queries: int


def _check_unique(frame: pl.DataFrame, kind: str) -> None:
    pair = pl.struct("query", "doc")
    # Counting distinct 64-bit hashes is a few times cheaper than comparing the
    # strings; only when two hashes collide are the pairs compared exactly.
    if frame.select(pair.hash().n_unique()).item() == frame.height:
        return
    duplicated = frame.select("query", "doc").filter(pair.is_duplicated())
    if duplicated.height:
        query, doc = duplicated.row(0)
        msg = (
            f"the {kind} lists document {doc!r} more than once for query {query!r}; "
            "each (query, document) pair must appear once (trec_eval rejects it too)"
        )
        raise ValueError(msg)


def _truncate(run: pl.DataFrame, max_per_query: int) -> pl.DataFrame:
    """Return the top ``max_per_query`` documents of each query, in trec_eval's order."""
    ordered = run.sort(["query", "score", "doc"], descending=[False, True, True], nulls_last=True)
    return ordered.filter(pl.int_range(pl.len()).over("query") < max_per_query)


def _check_options(relevance_level: object, max_per_query: object, tie_break: object) -> None:
    if not is_integral(relevance_level) or relevance_level < 1:  # type: ignore[operator]
        msg = f"`relevance_level` must be an int >= 1, got {relevance_level!r}"
        raise ValueError(msg)
    if max_per_query is not None:
        check_k(max_per_query, "max_per_query")
    check_choice(tie_break, "tie_break", TieBreak)


def _ranking(order: DocOrder, threshold: Threshold, carried: Mapping[str, pl.Expr]) -> Ranking:
    """Each query's ranking: score descending, ties broken in ``order``."""
    if order == "input":
        return Ranking.build(
            "relevance", ["score", _ROW], [True, False], threshold, carried=carried
        )
    return Ranking.build(
        "relevance", ["score", "doc"], [True, order == "doc_descending"], threshold, carried=carried
    )


def _per_group(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    columns: Sequence[Column],
    relevance_level: int,
    tie_break: TieBreak,
) -> pl.DataFrame:
    """One row per query of either side: the measures, and where the query appears."""
    threshold = Threshold(relevance_level, inclusive=True)

    def variant(column: Column) -> tuple[bool, DocOrder]:
        order = tie_break if tie_break != "tool" else column.order or "doc_descending"
        return column.judged_only, order

    carried = subtopic_fields(qrels)

    def ranking(key: Any) -> Ranking:
        judged_only, order = key
        plain = _ranking(order, threshold, carried)
        return plain.judged_only() if judged_only else plain

    statistics = columns_struct(columns, "zero", variant, ranking)
    row = [_ROW] if _ROW in run.columns else []
    judged = ["query", "doc", "relevance", *(["subtopics"] if carried else [])]
    joined = (
        run.lazy()
        .select("query", "doc", "score", *row, pl.lit(True).alias(_IN_RUN))
        .join(
            qrels.lazy().select(*judged, pl.lit(True).alias(_IN_QRELS)),
            on=["query", "doc"],
            how="full",
            coalesce=True,
        )
    )
    relevant = (pl.col("relevance") >= relevance_level).fill_null(False)
    return (
        joined.group_by("query")
        .agg(
            statistics.alias(_MEASURES),
            pl.col(_IN_RUN).any(),
            pl.col(_IN_QRELS).any(),
            relevant.any().alias(_HAS_RELEVANT),
        )
        .collect()
    )


def _counts(per_group: pl.DataFrame, relevance_level: int) -> dict[str, Any]:
    in_run, in_qrels = pl.col(_IN_RUN), pl.col(_IN_QRELS)
    counts = per_group.select(
        ignored=(in_run & ~in_qrels).sum(),
        missing=(in_qrels & ~in_run).sum(),
        any_relevant=(in_qrels & pl.col(_HAS_RELEVANT)).any(),
    ).row(0, named=True)
    if not counts["any_relevant"]:
        msg = (
            f"the qrels have no relevant document (relevance >= {relevance_level}): "
            "every measure would be 0"
        )
        raise ValueError(msg)
    return counts


def _values(per_group: pl.DataFrame, columns: Sequence[Column], complete: bool) -> pl.DataFrame:
    """The evaluated queries' values; a query missing from the run scores 0 (``-c``)."""
    in_run, in_qrels = pl.col(_IN_RUN), pl.col(_IN_QRELS)
    evaluated = per_group.filter(in_qrels & (in_run | complete)).sort("query")
    values = evaluated.select("query", in_run, _HAS_RELEVANT, pl.col(_MEASURES).struct.unnest())
    # A query missing from the run scores 0 on everything but R and num_q.
    zeroed = [
        pl.when(in_run)
        .then(pl.col(c.name))
        .otherwise(pl.lit("" if c.dtype == pl.String else 0.0))
        .cast(c.dtype)
        .alias(c.name)
        for c in columns
        if c.measure.key not in ("NumRel", "NumQ")
    ]
    return values.with_columns(zeroed)


def evaluate(
    qrels: Source,
    run: Source,
    measures: str | Sequence[str],
    *,
    complete: bool = False,
    max_per_query: int | None = None,
    relevance_level: int = 1,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    tie_break: TieBreak = "tool",
) -> Evaluation:
    """
    Evaluate a run against qrels, with trec_eval's conventions and numbers.

    The qrels come first, as in trec_eval, pytrec_eval, ir_measures and ranx.
    The run and qrels are joined per (query, document); relevant documents that
    were not retrieved get a null score, so they still count in R and in the
    ideal DCG. Each query's documents are ordered by score, descending, the
    rank column ignored; equal scores are ordered as the tool that owns each
    measure name orders them (``tie_break``): by document id descending (string
    comparison) for trec_eval's names and almost every other, so all of them
    are computed from one sort per query.

    Which queries count (trec_eval's rules):

    - by default, the queries in both the run and the qrels;
    - with ``complete=True`` (trec_eval ``-c``), every qrels query, those
      missing from the run scoring 0;
    - queries in the run but not in the qrels are ignored.

    What is ignored is reported on the result (``ignored_queries``,
    ``missing_queries``), never dropped silently.

    Parameters
    ----------
    qrels
        The judgements, with a query, a document and a relevance label: a TREC
        qrels file (plain, ``.gz``, or ``-`` for stdin), a parquet file, a
        polars (eager or lazy), pandas or pyarrow table, a dict
        ``{query: {doc: label}}`` (pytrec_eval, ranx), a ranx ``Qrels``, or
        ir_datasets qrels (``dataset.qrels_iter()``, or the dataset). Columns
        are found by their usual names (``query``/``query_id``/``qid``,
        ``doc``/``doc_id``/``docno``, ``relevance``/``label``/``rel``).
    run
        The ranking, with a query, a document and a score: the same kinds of
        source (a TREC run file, ``{query: {doc: score}}``, a ranx ``Run``,
        ``dataset.scoreddocs_iter()``, ...), and optionally a ``run_id`` column.
    measures
        Measure names, trec_eval style (``map``, ``P_10``, ``P.5,10``,
        ``ndcg_cut_10``, ``iprec_at_recall_0.10``, ``ndcg.1=3,2=9``, the sets
        ``official`` and ``all_trec``), ir_measures style (``AP``, ``AP@10``,
        ``P@10``, ``P(rel=2)@10``, ``nDCG(dcg='exp-log2')@10``, ``RR``,
        ``Judged@10``, ``RBP(rel=1)``) or ranx style (``ndcg@10``, ``map@100``,
        ``mrr``, ``recall@100``, ``ndcg@10-l2``, ``rbp.95``), or another
        tool's (ndeval's ``alpha-nDCG@20``, cwl_eval's ``INST-T=1.0``,
        scikit-learn's ``roc_auc``). A name means what it means in its tool:
        ``AP@10`` is trec_eval's ``map_cut_10``, with denominator R; see
        ``rm.list_measures()``. Diversity measures (``alpha_nDCG@20``,
        ``ERR-IA@20``, ``strec@10``, ...) read the qrels as TREC diversity
        qrels, ``topic subtopic docno relevance`` (the subtopic: a file's
        second field, a table's ``subtopic`` or ``iteration`` column); every
        other measure then reads a document's largest judgement.
    complete
        Average over every qrels query (trec_eval ``-c``).
    max_per_query
        Keep only the first this many documents of each query (trec_eval ``-M``).
    relevance_level
        A label >= this integer is relevant (trec_eval ``-l``), >= 1, for every
        measure name without its own level (``AP(rel=2)``, ``map-l2``).
    qrels_columns, run_columns
        Your column names, per side, where they are not the usual ones: a
        mapping from ``query``, ``doc``, ``relevance`` (qrels) or ``score``,
        ``run_id`` (run) to them, e.g. ``run_columns={"score": "sim"}``.
    tie_break : {'tool', 'doc_descending', 'doc_ascending', 'input'}
        How equal scores are ordered. ``'tool'``: as the tool that owns each
        name does: by document id descending (trec_eval, pytrec_eval, and
        ir_measures' names computed by pytrec_eval or gdeval), ascending for
        ir_measures' ``RR@k`` and ``Judged@k``, in the run's order for
        ir_measures' ``RBP``; ranx leaves the order unspecified, so its names
        take trec_eval's. Ascending too for the diversity names of ir_measures
        and ndeval (pyndeval's order) and ``Compat``; the run's order for the
        C/W/L names (``INST``, ``INST-T=1.0``, ...). Otherwise that order for
        every measure.

    Returns
    -------
    Evaluation
        ``per_query`` and ``aggregate`` frames, the run id, and query counts.

    Examples
    --------
    >>> qrels = pl.DataFrame(
    ...     {
    ...         "query": ["q1", "q1", "q2", "q2"],
    ...         "doc": ["b", "x", "d", "e"],
    ...         "relevance": [1, 1, 0, 2],
    ...     }
    ... )
    >>> run = pl.DataFrame(
    ...     {
    ...         "query": ["q1", "q1", "q1", "q2", "q2", "q3"],
    ...         "doc": ["a", "b", "c", "d", "e", "f"],
    ...         "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0],
    ...     }
    ... )
    >>> result = rm.evaluate(qrels, run, ["map", "P@2", "ndcg_cut_10"])
    >>> result.per_query
    shape: (2, 4)
    ┌───────┬──────┬─────┬─────────────┐
    │ query ┆ map  ┆ P@2 ┆ ndcg_cut_10 │
    │ ---   ┆ ---  ┆ --- ┆ ---         │
    │ str   ┆ f64  ┆ f64 ┆ f64         │
    ╞═══════╪══════╪═════╪═════════════╡
    │ q1    ┆ 0.25 ┆ 0.5 ┆ 0.386853    │
    │ q2    ┆ 0.5  ┆ 0.5 ┆ 0.63093     │
    └───────┴──────┴─────┴─────────────┘
    >>> result.aggregate
    shape: (1, 3)
    ┌───────┬─────┬─────────────┐
    │ map   ┆ P@2 ┆ ndcg_cut_10 │
    │ ---   ┆ --- ┆ ---         │
    │ f64   ┆ f64 ┆ f64         │
    ╞═══════╪═════╪═════════════╡
    │ 0.375 ┆ 0.5 ┆ 0.508891    │
    └───────┴─────┴─────────────┘
    >>> result.ignored_queries  # q3 has no judgements
    1
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        msg = "`measures` must name at least one measure"
        raise ValueError(msg)
    parsed = tuple(column for name in names for column in parse_measures(name))
    _check_options(relevance_level, max_per_query, tie_break)
    diversity = reads_subtopics([column.bind("zero") for column in parsed])
    qrels_frame = read_qrels(qrels, qrels_columns, subtopics=diversity)
    run_frame = read_run(run, run_columns)
    check_not_swapped(qrels_frame, run_frame)
    if diversity:
        qrels_frame = judged_subtopics(qrels_frame, int(relevance_level))
    run_frame = run_frame.with_columns(pl.col("score").cast(pl.Float64))
    if any((tie_break == "tool" and c.order == "input") for c in parsed) or tie_break == "input":
        run_frame = run_frame.with_row_index(_ROW)
    _check_unique(run_frame, "run")
    _check_unique(qrels_frame, "qrels")
    run_id = ""
    if "run_id" in run_frame.columns:
        last = run_frame.get_column("run_id")[-1]
        run_id = "" if last is None else str(last)
    if max_per_query is not None:
        run_frame = _truncate(run_frame, max_per_query)

    per_group = _per_group(qrels_frame, run_frame, parsed, int(relevance_level), tie_break)
    counts = _counts(per_group, int(relevance_level))
    values = _values(per_group, parsed, complete)
    if values.height == 0:
        msg = (
            "no query is in both the run and the qrels: check that their query ids match "
            f"(run has {counts['ignored']} query ids the qrels lack)"
        )
        raise ValueError(msg)
    aggregate = values.select(
        column.measure.summarize(pl.col(column.name)).alias(column.name)
        for column in parsed
        if column.measure.summary != "none"
    )
    per_query = values.select("query", *(c.name for c in parsed if c.measure.per_query))
    return Evaluation(
        per_query=per_query,
        aggregate=aggregate,
        run_id=run_id,
        measures=parsed,
        n_queries=values.height,
        ignored_queries=int(counts["ignored"]),
        missing_queries=int(counts["missing"]),
        no_relevant_queries=int((~values.get_column(_HAS_RELEVANT)).sum()),
    )
