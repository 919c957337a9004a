""":func:`.evaluate` in one query: the measures and the query counts from one frame.

On small inputs (a TREC run of 10,000 lines) almost all of ``evaluate()``'s
time is fixed cost: polars plans and starts each step (the query sets, a
filter of the run, the duplicate checks, the summaries...), 0.1 to 0.7 ms
apiece. Under the query-set rules ``'run'`` and ``'trec_eval'`` none of them
needs a result before the measures are planned, so they are read from the one
frame of the measures (one row per query), collected once:

- the run's queries that the qrels lack are counted and dropped (two Series
  steps, no query plan); the qrels are joined whole: a query only in the qrels
  is its own group, marked by :data:`.topics.IN_RUN` and
  :data:`.topics.IN_QRELS` (what ``'trec_eval'`` refuses is read from those
  marks);
- the evaluated queries are those in both, exactly the queries the eager path
  keeps (it restricts the qrels to the run's queries, then the run to the
  judged ones: the rows of an evaluated query are the same);
- the duplicate checks compare sorted 64-bit hashes of (query, document) of
  the qrels and of the run's judged rows (:func:`may_repeat_a_pair`); only
  where two hashes tie (a repeated pair, or a collision) are the pairs
  compared exactly, as the eager path does.

The values are the same bits: the same measures over the same rows, summarised
in the same query order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankmetrics._validate import TieBreak
from polars_rankmetrics.evaluation.query_sets import missing_message
from polars_rankmetrics.evaluation.ranx_bulk import Joined
from polars_rankmetrics.evaluation.topics import (
    HAS_RELEVANT,
    IN_QRELS,
    IN_RUN,
    ROW,
    TREC_POSITION,
    topic_plan,
)
from polars_rankmetrics.measures import Column


@dataclass(frozen=True)
class OnePass:
    """What :func:`one_pass` computed: the frames and counts of an :class:`.Evaluation`."""

    per_query: pl.DataFrame
    aggregate: pl.DataFrame
    ignored_queries: int
    missing: list[str]
    no_relevant_queries: int


def may_repeat_a_pair(frame: pl.DataFrame) -> bool:
    """Whether two rows of ``frame`` may hold the same (query, document): their hashes tie.

    False means every pair is distinct. The hashes of the two ids are combined
    (a collision only sends the caller to its exact comparison), sorted on one
    thread and compared with their neighbours: at 170k rows 4 ms of CPU, where
    counting distinct hashes (``n_unique``) took 8 ms.
    """
    if frame.height < 2:
        return False
    # Two seeds: with one hash function, (a, b) and (b, a) would always tie.
    hashes = frame.get_column("query").hash(seed=1) ^ frame.get_column("doc").hash(seed=2)
    ordered = hashes.sort(multithreaded=False)
    return bool((ordered.slice(1) == ordered.slice(0, frame.height - 1)).any())


def one_pass(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    columns: Sequence[Column],
    *,
    relevance_level: int,
    tie_break: TieBreak,
    with_row: bool,
    positioned: bool = False,
    check: Callable[[pl.DataFrame, str], None],
    check_qrels: bool,
    check_run: bool,
    refuse_missing: bool,
) -> OnePass:
    """Evaluate ``columns`` over the queries of both the run and the qrels, in one query.

    ``run`` is :func:`.read_run`'s frame (its ``run_id`` is dropped here; the
    queries the qrels lack are counted, then dropped),
    ``qrels`` the judgements (subtopic lists for diversity). ``with_row``
    numbers the run's rows first (:data:`.topics.ROW`, the run's order of tied
    scores). ``positioned``: the run has :data:`.topics.TREC_POSITION` (each
    row's place in trec_eval's order, read with a ranx ``Run``), which the
    measures in that order sort by (see :func:`.topic_plan`). ``check`` is
    the exact duplicate check (it raises, naming the pair), of the qrels
    when ``check_qrels`` and of the run's judged queries when
    ``check_run``: called only where the hashes count a pair twice.
    ``refuse_missing`` is the ``'trec_eval'`` rule: a qrels query missing from
    the run is a ``ValueError``. The errors come in the eager path's order.
    The ``missing`` queries (of the qrels, not in the run) come sorted.
    """
    # The run's rows of judged queries only, as trec_eval reads them (a run of
    # many more queries than the qrels judge is not ranked whole).
    ids = run.get_column("query")
    judged = ids.is_in(qrels.get_column("query").unique().implode()).fill_null(False)
    ignored = 0
    if not judged.all():
        ignored = ids.filter(~judged).drop_nulls().n_unique()
        run = run.filter(judged)
    score = pl.col("score").cast(pl.Float64).fill_nan(None)
    ranked = run.lazy()
    if with_row:
        ranked = ranked.with_row_index(ROW)
    extra = [ROW] if with_row else [TREC_POSITION] if positioned else []
    ranked = ranked.select("query", "doc", score, *extra)
    rows = run.height + qrels.height
    topics = topic_plan(
        qrels, ranked, columns, relevance_level, tie_break, rows=rows, positioned=positioned
    )
    if check_qrels and may_repeat_a_pair(qrels):
        check(qrels, "qrels")
    run_repeats = check_run and may_repeat_a_pair(run)
    frame = topics.collect()
    return _finish(
        frame,
        columns,
        ignored,
        refuse_missing,
        (lambda: check(run, "run")) if run_repeats else None,
    )


def one_pass_joined(
    joined: Joined,
    columns: Sequence[Column],
    *,
    relevance_level: int,
    tie_break: TieBreak,
    refuse_missing: bool,
) -> OnePass:
    """:func:`one_pass` of ranx's ``Qrels`` and ``Run``, joined in bulk (:func:`.ranx_joined`).

    Every column must rank in trec_eval's order (:func:`.topics.positioned_only`).
    No duplicate check: the keys of ranx's typed dicts of dicts cannot list a
    (query, document) pair twice (:func:`.inputs.unique_pairs`).
    """
    topics = topic_plan(
        None, None, columns, relevance_level, tie_break, rows=joined.frame.height, joined=joined
    )
    return _finish(topics.collect(), columns, joined.ignored, refuse_missing, None)


def _finish(
    frame: pl.DataFrame,
    columns: Sequence[Column],
    ignored: int,
    refuse_missing: bool,
    check_run: Callable[[], None] | None,
) -> OnePass:
    """The :class:`OnePass` of the per-query frame (``check_run`` after the missing queries)."""
    in_run, in_qrels = frame.get_column(IN_RUN), frame.get_column(IN_QRELS)
    missing = frame.get_column("query").filter(in_qrels & ~in_run).to_list()
    if missing and refuse_missing:
        raise ValueError(missing_message(missing, "queries='qrels'"))
    if check_run is not None:
        check_run()
    # The small frame of the queries (one row each) is summarised eagerly.
    values = frame.filter(pl.col(IN_QRELS) & pl.col(IN_RUN))
    no_relevant = (~values.get_column(HAS_RELEVANT)).sum()
    return OnePass(
        per_query=values.select("query", *(c.name for c in columns if c.measure.per_query)),
        aggregate=values.select(
            column.measure.summarize(pl.col(column.name)).alias(column.name)
            for column in columns
            if column.measure.summary != "none"
        ),
        ignored_queries=int(ignored),
        missing=missing,
        no_relevant_queries=int(no_relevant),
    )
