"""Evaluate a run against qrels: :func:`evaluate`, with trec_eval's conventions and numbers.

The run and the qrels are joined per (query, document); each query is ranked
once as trec_eval ranks it (score descending, ties broken by document id
descending), every measure is read from that ranking, and the per-query values
are summarised over queries as each measure's tool does (the mean; the sum for
counts; trec_eval's geometric mean for ``gm_map``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeAlias

import polars as pl

from polars_rankmetrics._validate import (
    TieBreak,
    check_choice,
    check_k,
    is_bool,
    is_integral,
)
from polars_rankmetrics.evaluation.inputs import (
    check_not_swapped,
    joined_ranx,
    positioned_run,
    read_qrels,
    read_run,
    unique_pairs,
)
from polars_rankmetrics.evaluation.one_pass import (
    OnePass,
    may_repeat_a_pair,
    one_pass,
    one_pass_joined,
)
from polars_rankmetrics.evaluation.query_sets import (
    SCORES_MISSING,
    QuerySet,
    check_query_set,
    missing_message,
    restrict_qrels,
)
from polars_rankmetrics.evaluation.subtopics import (
    judged_subtopics,
    reads_subtopics,
    subtopic_levels,
)
from polars_rankmetrics.evaluation.topics import (
    HAS_RELEVANT,
    IN_QRELS,
    IN_RUN,
    PLACEHOLDER_DOC,
    ROW,
    TREC_POSITION,
    positioned_only,
    topic_values,
    truncate,
)
from polars_rankmetrics.evaluation.topics import judged_only as judged_only_run
from polars_rankmetrics.measures import Column

Source: TypeAlias = str | Path | pl.LazyFrame | pl.DataFrame | Any
"""A run or qrels: a path (TREC file, ``.gz``, ``-``, parquet), a polars, pandas
or pyarrow table, a nested dict, a ranx object, or ir_datasets records; see
:mod:`polars_rankmetrics.evaluation.inputs`."""


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
        Queries in the qrels but not in the run: left out under
        ``queries='run'`` (default), scored as trec_eval's ``-c`` scores them
        under ``'qrels'`` and ``'relevant'``.
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
    query_set: QuerySet = "run"
    """The rule that chose the evaluated queries (:data:`.query_sets.QuerySet`)."""

    def __repr__(self) -> str:
        """The run id, the query counts, the measures and the aggregate values."""
        from polars_rankmetrics.evaluation.display import evaluation_text

        return evaluation_text(self)

    def _repr_html_(self) -> str:
        from polars_rankmetrics.evaluation.display import evaluation_html

        return evaluation_html(self)


def _check_unique(frame: pl.DataFrame, kind: str) -> None:
    # Comparing 64-bit hashes is a few times cheaper than comparing the strings;
    # only when two hashes tie are the pairs compared exactly.
    if not may_repeat_a_pair(frame):
        return
    pair = pl.struct("query", "doc")
    duplicated = frame.select("query", "doc").filter(pair.is_duplicated())
    if duplicated.height:
        query, doc = duplicated.row(0)
        msg = (
            f"the {kind} lists document {doc!r} more than once for query {query!r}; "
            "each (query, document) pair must appear once (trec_eval rejects it too)"
        )
        raise ValueError(msg)


def _check_options(
    relevance_level: object,
    max_per_query: object,
    tie_break: object,
    collection_size: object,
) -> None:
    if not is_integral(relevance_level) or relevance_level < 0:  # type: ignore[operator]
        msg = (
            f"`relevance_level` must be an int >= 0, got {relevance_level!r} (below 0, "
            "trec_eval counts unjudged documents as relevant but not in R)"
        )
        raise ValueError(msg)
    if max_per_query is not None and max_per_query != 0:
        check_k(max_per_query, "max_per_query")
    check_choice(tie_break, "tie_break", TieBreak)
    if not is_integral(collection_size):
        msg = f"`collection_size` must be an int, got {collection_size!r}"
        raise ValueError(msg)


def _query_set(queries: object, complete: object) -> QuerySet:
    """The query-set rule of ``queries`` and trec_eval's ``complete`` flag (``-c``)."""
    rule = check_query_set(queries)
    if not is_bool(complete):
        msg = f"`complete` must be True or False, got {complete!r}"
        raise ValueError(msg)
    if complete and rule not in SCORES_MISSING:
        if rule != "run":
            msg = f"`complete=True` is queries='qrels'; it contradicts queries={rule!r}"
            raise ValueError(msg)
        return "qrels"
    return rule


def _by_level(columns: Sequence[Column], levels: Mapping[str, int]) -> dict[int, list[Column]]:
    """The columns of :func:`.subtopic_levels`, grouped by their level."""
    grouped: dict[int, list[Column]] = {}
    for column in columns:
        if column.name in levels:
            grouped.setdefault(levels[column.name], []).append(column)
    return grouped


def _placeholders(run: pl.DataFrame, missing: Sequence[str]) -> pl.DataFrame:
    """trec_eval's ``-c``: each missing query ranks one placeholder document, score 1."""
    if not missing:
        return run
    placeholders = pl.DataFrame(
        {"query": list(missing), "doc": [PLACEHOLDER_DOC] * len(missing), "score": 1.0}
    )
    if ROW in run.columns:
        first = run.height
        placeholders = placeholders.with_row_index(ROW, offset=first)
    return pl.concat([run, placeholders.select(run.columns)], how="vertical_relaxed")


def _reset(columns: Sequence[Column]) -> list[pl.Expr]:
    """The values trec_eval resets for a query scored against the placeholder (by name)."""
    resets = []
    for column in columns:
        name = column.name
        if name in ("num_ret", "utility", "rbp_resid") or name.startswith("unj"):
            value: pl.Expr = pl.lit(0.0)
        elif name == "relstring":
            value = pl.lit("")
        else:
            continue
        resets.append(pl.when(pl.col(IN_RUN)).then(pl.col(name)).otherwise(value).alias(name))
    return resets


def _nothing_evaluated(ignored: int) -> ValueError:
    return ValueError(
        "no query is in both the run and the qrels: check that their query ids match "
        f"(the run has {ignored} query ids the qrels lack)"
    )


@functools.lru_cache(maxsize=256)
def _parsed(names: tuple[str, ...], collection_size: int) -> tuple[tuple[Column, ...], bool]:
    """The columns of ``names`` (``utility``'s sized), and whether one reads subtopics (cached)."""
    from polars_rankmetrics.measures.resolve import parse_measures  # see `evaluate`

    parsed = [column for name in names for column in parse_measures(name)]
    columns = tuple(_with_collection_size(parsed, collection_size))
    return columns, reads_subtopics([column.bind("zero") for column in columns])


def _with_collection_size(columns: Sequence[Column], size: int) -> list[Column]:
    """The columns, ``utility``'s with the collection size (trec_eval's ``-N``)."""
    sized = []
    for column in columns:
        if column.measure.key == "utility":
            params = {**dict(column.params), "collection_size": size}
            column = replace(column, params=tuple(params.items()))
        sized.append(column)
    return sized


def _evaluation(
    done: OnePass, run_id: str, measures: tuple[Column, ...], query_set: QuerySet
) -> Evaluation:
    """The :class:`Evaluation` of :func:`.one_pass`'s frames."""
    if done.per_query.height == 0:
        raise _nothing_evaluated(done.ignored_queries)
    return Evaluation(
        per_query=done.per_query,
        aggregate=done.aggregate,
        run_id=run_id,
        measures=measures,
        n_queries=done.per_query.height,
        ignored_queries=done.ignored_queries,
        missing_queries=len(done.missing),
        no_relevant_queries=done.no_relevant_queries,
        query_set=query_set,
    )


@dataclass(frozen=True)
class _Options:
    """The options of :func:`evaluate` that the topic-by-topic path reads."""

    relevance_level: int
    max_per_query: int | None
    judged_only: bool
    tie_break: TieBreak
    with_row: bool
    check_qrels: bool
    check_run: bool


def _topic_by_topic(
    qrels_frame: pl.DataFrame,
    run_frame: pl.DataFrame,
    judgements: pl.DataFrame,
    parsed: tuple[Column, ...],
    *,
    query_set: QuerySet,
    run_id: str,
    options: _Options,
) -> Evaluation:
    """:func:`evaluate` where the one-pass path does not apply: ``-M``, ``-J``, ``-c``, rel= levels.

    ``judgements`` are the qrels as read (one row per subtopic for diversity).
    """
    levels = subtopic_levels(parsed, options.relevance_level)
    # A NaN score is not retrieved, as in the metric functions: null before -M cuts.
    run_frame = run_frame.with_columns(pl.col("score").cast(pl.Float64).fill_nan(None))
    if options.with_row:
        run_frame = run_frame.with_row_index(ROW)
    if options.check_qrels:
        _check_unique(qrels_frame, "qrels")

    run_queries = run_frame.get_column("query").unique()
    judged = qrels_frame.get_column("query").unique()
    ignored = run_queries.is_in(judged.implode()).not_().sum()
    unretrieved = judged.is_in(run_queries.implode()).not_().sum()
    qrels_frame, missing = restrict_qrels(
        qrels_frame, run_queries, query_set, options.relevance_level
    )
    if missing and query_set == "trec_eval":
        raise ValueError(missing_message(missing, "queries='qrels'"))
    scores_missing = query_set in SCORES_MISSING
    topics = qrels_frame.get_column("query").unique()
    ranked = run_frame.drop("run_id", strict=False).filter(pl.col("query").is_in(topics.implode()))
    # Only the judged topics: trec_eval never looks at the others (nor does the CLI).
    if options.check_run:
        _check_unique(ranked, "run")
    if scores_missing:
        ranked = _placeholders(ranked, missing)
    ranked = truncate(ranked, options.max_per_query)
    if options.judged_only:
        ranked = judged_only_run(ranked, qrels_frame)
    # Every name at a level of its own: the default level's frame (the queries) from the first.
    main = [column for column in parsed if column.name not in levels] or list(parsed[:1])
    frame = topic_values(qrels_frame, ranked, main, options.relevance_level, options.tie_break)
    for level, columns in _by_level(parsed, levels).items():
        # ir_measures' rel= of a diversity name: subtopic lists at its own level.
        rows = judgements.filter(pl.col("query").is_in(topics.implode()))
        own = topic_values(
            judged_subtopics(rows, level),
            ranked,
            columns,
            options.relevance_level,
            options.tie_break,
        )
        names = [c.name for c in columns]
        frame = frame.drop(names, strict=False).join(
            own.select("query", *names), on="query", how="left"
        )
    scored = pl.col("query").is_in(pl.Series(missing, dtype=pl.String).implode()).not_()
    evaluated = frame.filter(pl.col(IN_QRELS) & (scored | scores_missing))
    values = evaluated.with_columns(scored.alias(IN_RUN)).with_columns(_reset(parsed))
    if values.height == 0:
        raise _nothing_evaluated(int(ignored))
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
        ignored_queries=int(ignored),
        missing_queries=int(unretrieved),
        no_relevant_queries=int((~values.get_column(HAS_RELEVANT)).sum()),
        query_set=query_set,
    )


def evaluate(
    qrels: Source,
    run: Source,
    measures: str | Sequence[str],
    *,
    queries: QuerySet = "run",
    complete: bool = False,
    max_per_query: int | None = None,
    relevance_level: int = 1,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    tie_break: TieBreak = "tool",
    judged_only: bool = False,
    collection_size: int = 0,
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

    Which queries count (``queries``, the same switch as the command line's
    ``--queries``; the guide's *Query sets* page compares every entry point):

    - ``'run'`` (default): the queries of the run that the qrels judge; a
      qrels query missing from the run is left out (trec_eval 9, pytrec_eval);
    - ``'trec_eval'``: the same queries, but a qrels query missing from the
      run is a ``ValueError``, as trec_eval 10 (and ``rankmetrics trec-eval``)
      stops at it;
    - ``'qrels'`` (or ``complete=True``, trec_eval ``-c``): every qrels query;
      one missing from the run is scored as trec_eval scores it, against a
      ranking of one unjudged placeholder document (so 0 almost everywhere;
      ``num_ret``, ``utility``, ``relstring``, ``unj`` and ``rbp_resid`` are
      then reset to 0 or empty, as trec_eval resets them);
    - ``'relevant'``: the qrels queries with a document relevant at
      ``relevance_level``, a missing one scored as under ``'qrels'``;
    - queries in the run but not in the qrels are never evaluated.

    A query without a relevant document is evaluated (AP, nDCG, ... 0) under
    every rule but ``'relevant'``. What is left out is reported on the result
    (``n_queries``, ``ignored_queries``, ``missing_queries``,
    ``query_set``), never dropped silently. The numbers are trec_eval's doubles,
    bit for bit (each query's terms added in rank order; the summary adds the
    queries in query order, then divides).

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
        other measure then reads a document's largest judgement. One name or
        a list of names; an ir_measures measure object
        (``ir_measures.nDCG@10``) stands for its name; a set is read as
        pytrec_eval reads its measure set (``{"ndcg_cut", "ndcg_cut.1,4"}``
        is ``ndcg_cut_1`` and ``ndcg_cut_4`` only).
    queries : {'run', 'trec_eval', 'qrels', 'relevant'}
        Which queries are evaluated and averaged (see above).
    complete
        trec_eval's ``-c``: the same as ``queries='qrels'``.
    max_per_query
        Keep only the first this many documents of each query (trec_eval ``-M``;
        0 keeps none).
    relevance_level
        A label >= this integer is relevant (trec_eval ``-l``), >= 0, for every
        measure name without its own level (``AP(rel=2)``, ``map-l2``); at 0
        every judged document (label >= 0) is. The gain measures (``ndcg``,
        ``G``, ``rbp``, ...) read the labels whatever the level, as in trec_eval.
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
        take trec_eval's (given a ranx ``Run``, ``'input'`` is the order ranx
        itself ranks it in: the Run's own). Ascending too for the diversity
        names of ir_measures and ndeval (pyndeval's order) and ``Compat``; the
        run's order for the C/W/L names (``INST``, ``INST-T=1.0``, ...).
        Otherwise that order for every measure.
    judged_only
        Drop the unjudged documents (not in the qrels, or with a negative label)
        of each query after ``max_per_query`` (trec_eval ``-J``).
    collection_size
        The number of documents in the collection, for ``utility`` (trec_eval
        ``-N``, default 0).

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
    # The name grammars load here, not at import (rankmetrics trec-eval reads none).
    from polars_rankmetrics.measures.resolve import measure_names

    names = measure_names(measures)
    _check_options(relevance_level, max_per_query, tie_break, collection_size)
    query_set = _query_set(queries, complete)
    parsed, diversity = _parsed(tuple(names), int(collection_size))
    with_row = tie_break == "input" or (
        tie_break == "tool" and any(c.order == "input" for c in parsed)
    )
    levels = subtopic_levels(parsed, int(relevance_level))
    cuts = max_per_query is not None or judged_only or levels
    one_query = query_set in ("run", "trec_eval") and not cuts
    # A ranx Run comes with its rows' places in trec_eval's order (see .one_pass).
    trec_order = tie_break in ("tool", "doc_descending") and not (diversity or with_row)
    placed = one_query and run_columns is None and trec_order
    joined = None
    if placed and qrels_columns is None and positioned_only(parsed, tie_break):
        joined = joined_ranx(qrels, run)  # ranx Qrels and Run: joined in one compiled pass
    if joined is not None:
        done = one_pass_joined(
            joined,
            parsed,
            relevance_level=int(relevance_level),
            tie_break=tie_break,
            refuse_missing=query_set == "trec_eval",
        )
        return _evaluation(done, "", parsed, query_set)
    qrels_frame = read_qrels(qrels, qrels_columns, subtopics=diversity)
    run_frame = positioned_run(run, TREC_POSITION) if placed else None
    positioned = run_frame is not None
    if run_frame is None:
        run_frame = read_run(run, run_columns)
    check_not_swapped(qrels_frame, run_frame)
    judgements = qrels_frame  # one row per (query, subtopic, document) for diversity
    if diversity:
        qrels_frame = judged_subtopics(qrels_frame, int(relevance_level))
    check_qrels = diversity or not unique_pairs(qrels)  # ranx's dicts cannot repeat a pair
    run_id = ""
    if "run_id" in run_frame.columns:
        last = run_frame.get_column("run_id")[-1]
        run_id = "" if last is None else str(last)
    if one_query:
        # The common case: everything in one query (see .one_pass).
        done = one_pass(
            qrels_frame,
            run_frame,
            parsed,
            relevance_level=int(relevance_level),
            tie_break=tie_break,
            with_row=with_row,
            positioned=positioned,
            check=_check_unique,
            check_qrels=check_qrels,
            check_run=not unique_pairs(run),
            refuse_missing=query_set == "trec_eval",
        )
        return _evaluation(done, run_id, parsed, query_set)
    return _topic_by_topic(
        qrels_frame,
        run_frame,
        judgements,
        parsed,
        query_set=query_set,
        run_id=run_id,
        options=_Options(
            int(relevance_level), max_per_query, judged_only, tie_break, with_row,
            check_qrels, not unique_pairs(run),
        ),
    )  # fmt: skip
