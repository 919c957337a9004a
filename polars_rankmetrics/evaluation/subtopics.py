"""Subtopic qrels (TREC diversity): one subtopic list per judged document.

TREC diversity qrels have the four columns of ordinary qrels,
``topic subtopic docno relevance``, the second naming the subtopic (intent) the
judgement is for, so a document appears once per subtopic. The diversity
measures read one row per document with the list of subtopics it is relevant
to (see :mod:`polars_rankmetrics.metrics.diversity`): :func:`subtopic_lists`
turns the one into the other, and :func:`polars_rankmetrics.evaluate` does it
itself when a diversity measure is asked for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from polars_rankmetrics._validate import is_integral
from polars_rankmetrics.engine import Bound, Threshold
from polars_rankmetrics.engine.ranked import DOC, FIELDS, SUBTOPICS
from polars_rankmetrics.engine.staged import probe
from polars_rankmetrics.measures import Column


def subtopic_lists(
    qrels: pl.DataFrame | pl.LazyFrame,
    *,
    relevance_level: int = 1,
    subtopic: str | None = None,
) -> pl.DataFrame:
    """
    One row per judged (query, document), with the subtopics it is relevant to.

    ``qrels`` has the columns ``query``, ``doc``, ``relevance`` and the subtopic:
    the column named ``subtopic``, or the ``iteration`` column of
    :func:`~polars_rankmetrics.read_trec_qrels`, which is where TREC diversity
    qrels keep it. A document is relevant to a subtopic when its judgement for
    that subtopic is at least ``relevance_level`` (ndeval's and ir_measures'
    ``rel``, default 1; ndeval's own reader makes every positive judgement 1).

    Returns the columns ``query``, ``doc``, ``relevance`` (the largest judgement
    of the document, for the measures that read one label) and ``subtopics``
    (the sorted list of its relevant subtopics, empty when there is none). Join
    it to a run on ``query`` and ``doc`` (a full join keeps the judged
    documents that were not retrieved, which count in the ideal ranking); a
    retrieved document without judgements gets a null list, unjudged.

    Examples
    --------
    >>> qrels = pl.DataFrame(
    ...     {
    ...         "query": ["q1", "q1", "q1", "q1"],
    ...         "subtopic": ["1", "2", "2", "1"],
    ...         "doc": ["a", "a", "b", "c"],
    ...         "relevance": [1, 2, 0, 0],
    ...     }
    ... )
    >>> rm.subtopic_lists(qrels).sort("doc")
    shape: (3, 4)
    ┌───────┬─────┬───────────┬────────────┐
    │ query ┆ doc ┆ relevance ┆ subtopics  │
    │ ---   ┆ --- ┆ ---       ┆ ---        │
    │ str   ┆ str ┆ i64       ┆ list[str]  │
    ╞═══════╪═════╪═══════════╪════════════╡
    │ q1    ┆ a   ┆ 2         ┆ ["1", "2"] │
    │ q1    ┆ b   ┆ 0         ┆ []         │
    │ q1    ┆ c   ┆ 0         ┆ []         │
    └───────┴─────┴───────────┴────────────┘
    """
    if not is_integral(relevance_level):
        msg = f"`relevance_level` must be an int, got {relevance_level!r}"
        raise ValueError(msg)
    lazy = qrels.lazy()
    names = lazy.collect_schema().names()
    column = subtopic or ("subtopic" if "subtopic" in names else "iteration")
    missing = [name for name in ("query", "doc", "relevance", column) if name not in names]
    if missing:
        msg = (
            f"subtopic qrels need the columns query, doc, relevance and the subtopic "
            f"({column!r}); missing {missing}, the columns are {names}"
        )
        raise ValueError(msg)
    relevant = pl.col("relevance") >= relevance_level
    return (
        lazy.group_by("query", "doc", maintain_order=True)
        .agg(
            pl.col("relevance").max(),
            pl.col(column).filter(relevant).unique().sort().alias("subtopics"),
        )
        .collect()
    )


def reads_subtopics(statistics: list[Bound]) -> bool:
    """Whether any of ``statistics`` reads subtopic lists (a diversity measure)."""
    usage = probe(statistics, Threshold(), frozenset(FIELDS))
    return SUBTOPICS in usage.read_fields


def judged_subtopics(qrels: pl.DataFrame, relevance_level: int) -> pl.DataFrame:
    """:func:`subtopic_lists` of qrels frames in ``evaluate``'s layout, checked for repeats."""
    triple = pl.struct("query", "subtopic", "doc")
    repeated = qrels.filter(triple.is_duplicated())
    if repeated.height:
        query, doc, subtopic = repeated.select("query", "doc", "subtopic").row(0)
        msg = (
            f"the qrels judge document {doc!r} more than once for query {query!r} and "
            f"subtopic {subtopic!r}; each (query, subtopic, document) must appear once"
        )
        raise ValueError(msg)
    return subtopic_lists(qrels, relevance_level=relevance_level, subtopic="subtopic")


def subtopic_levels(columns: Sequence[Column], default: int) -> dict[str, int]:
    """The diversity columns whose subtopic lists need a level other than ``default``.

    An ir_measures diversity name with ``rel=`` (``ERR_IA(rel=2)@10``) is
    pyndeval's relevance level for that measure alone: a subtopic judgement at
    or above it is relevant. Maps each such column's name to its level.
    """
    levels = {}
    for column in columns:
        threshold = column.threshold
        if threshold is None or not reads_subtopics([column.bind("zero")]):
            continue
        level = (
            math.ceil(threshold.value) if threshold.inclusive else math.floor(threshold.value) + 1
        )
        if level != default:
            levels[column.name] = level
    return levels


def subtopic_fields(qrels: pl.DataFrame) -> dict[str, pl.Expr]:
    """The fields a ranking carries for diversity measures when the qrels have subtopic lists."""
    if "subtopics" not in qrels.columns:
        return {}
    return {SUBTOPICS: pl.col("subtopics"), DOC: pl.col("doc")}
