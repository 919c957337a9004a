"""Evaluate a whole table of rankings with bounded memory: :func:`evaluate_parquet`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal, TypeAlias

import polars as pl

from polars_rankmetrics._progress import progress
from polars_rankmetrics._validate import (
    IntoExpr,
    NoRelevant,
    as_expr,
    check_k,
    check_label_dtype,
)
from polars_rankmetrics.measures import parse_measures
from polars_rankmetrics.measures.resolve import measure_names
from polars_rankmetrics.multi import metrics

ROWS_PER_PASS = 2_500_000
"""The rows one pass holds under ``partitions='auto'``, when the rows are in memory.

On the 10M-row benchmark, passes of this size were both the fastest (0.81 s
in memory against 0.97 s in one pass) and held the peak to about 2.5x the
Arrow size of the input, against 7.7x.
"""

READ_ONCE_MAX_ROWS = 20_000_000
"""Under ``partitions='auto'``, parquet of at most this many rows is read once.

Its passes then filter that frame in memory instead of reading the files again:
on the 10M-row benchmark, 0.87 s against 1.0 s. The columns held cost about
what one pass's working set does (for three 8-byte columns, 20M rows are
460 MiB, and a pass of :data:`ROWS_PER_PASS` rows peaks near 7.7x its 57 MiB),
so reading once at most doubles the peak. Larger datasets are read pass by pass.
"""

SCAN_ROWS_PER_PASS = 12_500_000
"""The rows one pass holds under ``partitions='auto'`` when each pass reads the files.

Every pass reads all the files again (keeping only its queries), so these
passes are larger than :data:`ROWS_PER_PASS`: 100M rows took 19 s in 8 passes
against 33 s in 40. A pass of this size peaks at about 1.5 GiB.
"""

QUERY_SORT = True
"""Whether each pass sorts its rows by the query (one key) before the ``group_by``.

A stable sort: each query's rows keep their order, so the values are the same
bit for bit, at any thread count; polars then takes each query's rows as a
contiguous slice instead of hashing the key and gathering rows from all over
memory. At 3M rows on one thread, 1.39x the grouped sort against 1.65x without
it (queries of 100 rows), 2.07x against 2.97x (queries of 10). The benchmarks
turn it off to measure the difference.
"""

Engine: TypeAlias = Literal["auto", "in-memory", "streaming"]
"""The polars engine each pass is collected with."""

Source: TypeAlias = str | Path | Sequence[str | Path] | pl.LazyFrame | pl.DataFrame
"""Parquet path(s) or glob, or a frame."""


def partition_filter(query: IntoExpr, partitions: int, part: int) -> pl.Expr:
    """Select the rows of queries in partition ``part`` of ``partitions``.

    A query's partition is a hash of its key (seeded, so the same in every pass),
    so every row of one query lands in the same partition whatever the file
    layout. Pushed down into ``scan_parquet``, the filter is applied while each
    row group is read, so a pass holds only its share of the rows.
    """
    key = pl.col(query) if isinstance(query, str) else query
    return key.hash(seed=0x5EED) % partitions == part


def _count_rows(source: Source, frame: pl.LazyFrame) -> int | None:
    """The source's rows, from the parquet metadata; None for a LazyFrame given as such."""
    if isinstance(source, pl.LazyFrame):
        return None
    if isinstance(source, pl.DataFrame):
        return source.height
    # A count over a parquet scan reads only the files' metadata.
    rows = frame.select(pl.len()).collect().item()
    assert isinstance(rows, int)
    return rows


def _auto_plan(source: Source, frame: pl.LazyFrame, columns: list[str]) -> tuple[pl.LazyFrame, int]:
    """The frame to evaluate and the number of passes, under ``partitions='auto'``.

    A frame in memory, or parquet of at most :data:`READ_ONCE_MAX_ROWS` rows
    (read into memory first, only ``columns``), makes passes of about
    :data:`ROWS_PER_PASS` rows; larger parquet, passes of about
    :data:`SCAN_ROWS_PER_PASS` rows that each read the files; a LazyFrame given
    as such, one pass.
    """
    rows = _count_rows(source, frame)
    if rows is None:
        return frame, 1
    if isinstance(source, pl.DataFrame) or rows <= ROWS_PER_PASS:
        return frame, max(1, -(-rows // ROWS_PER_PASS))
    if rows <= READ_ONCE_MAX_ROWS:
        return frame.select(columns).collect().lazy(), -(-rows // ROWS_PER_PASS)
    return frame, -(-rows // SCAN_ROWS_PER_PASS)


def evaluate_parquet(
    source: Source,
    measures: Sequence[str],
    *,
    query: str | Sequence[str] = "query",
    relevance: IntoExpr = "relevance",
    by: IntoExpr | Sequence[IntoExpr] | None = "score",
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    partitions: int | Literal["auto"] = "auto",
    engine: Engine = "auto",
    show_progress: bool | None = None,
) -> pl.DataFrame:
    """
    Per-query measures over a parquet dataset or a frame, in passes to bound memory.

    Each pass reads the rows of one share of the queries (a hash of the query
    key modulo ``partitions``, filtered while the parquet is read) and evaluates
    them with :func:`polars_rankmetrics.metrics`: one sort per query for every
    measure. With one ``query`` column, each pass first sorts its rows by the
    query, stably (:data:`QUERY_SORT`), so that every query's rows are one
    contiguous slice: that is cheaper than hashing the key, and changes no
    value. Peak memory is about that of evaluating ``1 / partitions`` of the
    rows, at the cost of reading the files ``partitions`` times. One pass over
    everything peaks at about 8x the Arrow size of the columns it reads (query,
    relevance, score); passes of a few million rows are also faster, because
    their working set is smaller. See the README's *Performance* section for
    measured figures. One row per query of the source, as in :func:`metrics`
    (build the source with :func:`~polars_rankmetrics.judged_frame` to choose
    the queries; see the guide's *Query sets* page).

    Parameters
    ----------
    source
        A parquet path, glob or list of paths, or a (lazy) frame.
    measures
        Measure names, as for :func:`polars_rankmetrics.metrics`.
    query
        The column(s) that identify a query.
    relevance
        The relevance label column or expression.
    by, descending, threshold
        As for :func:`~polars_rankmetrics.precision_at_k`: the score and tie-breakers,
        their direction and the relevance threshold.
    no_relevant : {'null', 'zero'}
        The value of undefined measures for a query with no relevant row.
    partitions
        The number of passes, a positive int; 1 evaluates everything at once.
        ``'auto'`` makes passes of about :data:`ROWS_PER_PASS` rows, counted
        from the parquet metadata or the DataFrame's height. Parquet of at most
        :data:`READ_ONCE_MAX_ROWS` rows is then read once, and the passes filter
        it in memory; larger parquet is read again in every pass, as it is for
        an int, in passes of about :data:`SCAN_ROWS_PER_PASS` rows (a peak near
        1.5 GiB). A LazyFrame is evaluated in one pass under ``'auto'``, as
        counting its rows would run its plan.
    engine : {'auto', 'in-memory', 'streaming'}
        The polars engine for each pass.
    show_progress
        A bar of the passes done, with the time left, on standard error (never
        standard output), drawn after a second of work. ``None`` (default): only
        when standard error is a terminal; ``True``: always; ``False``: never.

    Returns
    -------
    DataFrame
        The query column(s), then one Float64 column per measure, sorted by query.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {
    ...         "query": ["a", "a", "a", "b", "b"],
    ...         "score": [0.9, 0.8, 0.1, 0.7, 0.6],
    ...         "relevance": [0, 1, 1, 1, 0],
    ...     }
    ... )
    >>> rm.evaluate_parquet(df, ["AP", "P@2"], partitions=2)
    shape: (2, 3)
    ┌───────┬──────────┬─────┐
    │ query ┆ AP       ┆ P@2 │
    │ ---   ┆ ---      ┆ --- │
    │ str   ┆ f64      ┆ f64 │
    ╞═══════╪══════════╪═════╡
    │ a     ┆ 0.583333 ┆ 0.5 │
    │ b     ┆ 1.0      ┆ 0.5 │
    └───────┴──────────┴─────┘
    """
    if partitions != "auto":
        try:
            check_k(partitions, "partitions")
        except ValueError:
            msg = f"`partitions` must be a positive int or 'auto', got {partitions!r}"
            raise ValueError(msg) from None
    if engine not in ("auto", "in-memory", "streaming"):
        msg = f"`engine` must be one of 'auto', 'in-memory', 'streaming', got {engine!r}"
        raise ValueError(msg)
    measures = measure_names(measures)
    if show_progress is not None and not isinstance(show_progress, bool):
        msg = f"`show_progress` must be True, False or None, got {show_progress!r}"
        raise ValueError(msg)
    keys = [query] if isinstance(query, str) else list(query)
    if not keys:
        msg = "`query` must name at least one column"
        raise ValueError(msg)
    outputs = [column.name for name in measures for column in parse_measures(name)]
    clashes = sorted(set(outputs) & set(keys))
    if clashes:
        msg = f"measure names {clashes} clash with the query column names; rename the column(s)"
        raise ValueError(msg)
    if isinstance(source, pl.DataFrame):
        frame = source.lazy()
    elif isinstance(source, pl.LazyFrame):
        frame = source
    else:
        frame = pl.scan_parquet(source)  # type: ignore[arg-type]
    check_label_dtype(frame.select(as_expr(relevance)).collect_schema().dtypes()[0], relevance)
    measured = metrics(
        relevance,
        measures,
        by=by,
        descending=descending,
        threshold=threshold,
        no_relevant=no_relevant,
    ).alias("_rankmetrics_measures")
    if partitions == "auto":
        columns = list(dict.fromkeys([*keys, *measured.meta.root_names()]))
        frame, partitions = _auto_plan(source, frame, columns)
    key = pl.struct(keys) if len(keys) > 1 else pl.col(keys[0])
    passes = []
    with progress("evaluating parquet: passes", partitions, show=show_progress) as bar:
        for part in range(partitions):
            rows = (
                frame if partitions == 1 else frame.filter(partition_filter(key, partitions, part))
            )
            if QUERY_SORT and len(keys) == 1:
                # A stable sort by the query first: polars then takes each query's rows
                # as a contiguous slice (no hashing, sequential gathers); the rows of a
                # query keep their order, so ties and values are unchanged.
                rows = rows.sort(keys, maintain_order=True)
            result = rows.group_by(keys).agg(measured).unnest("_rankmetrics_measures")
            passes.append(result.collect(engine=engine))
            bar.advance()
    return pl.concat(passes).sort(keys)
