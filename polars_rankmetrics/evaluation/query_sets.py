"""Which queries a mean averages over: one rule, named the same in every entry point.

``evaluate()``, :func:`judged_frame`, ``rankmetrics trec-eval`` and
``rankmetrics compare`` take the same ``queries`` switch
(:data:`QuerySet`); the guide's *Query sets* page has the table of every
entry point's rule. A rule is a filter of the qrels' queries and whether a
qrels query that the run lacks is scored (as trec_eval's ``-c`` scores it:
0 for almost every measure) or refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import check_choice, is_integral

QuerySet: TypeAlias = Literal["trec_eval", "run", "qrels", "relevant"]
"""Which queries are evaluated, and so averaged.

- ``'trec_eval'``: the queries of the qrels, each of which the run must have
  (a qrels query missing from the run is an error, as in trec_eval 10);
- ``'run'``: the queries of the run that the qrels judge (a qrels query
  missing from the run is left out, as trec_eval 9, pytrec_eval and ranx do);
- ``'qrels'``: every query of the qrels, a query missing from the run scored as
  against an empty ranking (trec_eval's ``-c``; ir_measures' means);
- ``'relevant'``: the queries of the qrels with at least one relevant document,
  a query missing from the run scored as under ``'qrels'``.

Queries of the run that the qrels do not judge are never evaluated.
"""

SCORES_MISSING: frozenset[str] = frozenset({"qrels", "relevant"})
"""The query sets that score a qrels query missing from the run (``-c``)."""


def check_query_set(queries: object) -> QuerySet:
    """Return ``queries`` if it is one of the :data:`QuerySet` rules, else raise ``ValueError``."""
    check_choice(queries, "queries", QuerySet)
    return queries  # type: ignore[return-value]


def restrict_qrels(
    qrels: pl.DataFrame, run_queries: pl.Series, queries: QuerySet, relevance_level: int
) -> tuple[pl.DataFrame, list[str]]:
    """The qrels of the evaluated queries, and those of them that the run lacks (sorted).

    ``run_queries`` are the run's query ids; a document is relevant at a label
    of at least ``relevance_level`` (every judged document at 0). Under
    ``'trec_eval'`` the missing queries are returned for the caller to refuse
    in its own words (the CLI stops with trec_eval's status 4).
    """
    in_run = pl.col("query").is_in(run_queries.implode())
    if queries == "run":
        qrels = qrels.filter(in_run)
    elif queries == "relevant":
        relevant = qrels.filter(pl.col("relevance") >= relevance_level).get_column("query")
        qrels = qrels.filter(pl.col("query").is_in(relevant.unique().implode()))
    topics = qrels.get_column("query").unique()
    missing = topics.filter(~topics.is_in(run_queries.implode())).sort().to_list()
    return qrels, missing


def missing_message(missing: list[str], switch: str) -> str:
    """What the ``'trec_eval'`` rule says about qrels queries the run lacks."""
    return (
        f"query {missing[0]!r} of the qrels is not in the run ({len(missing)} such "
        f"{'query' if len(missing) == 1 else 'queries'}): trec_eval 10 stops there (status 4); "
        f"{switch} scores them 0 (trec_eval -c), or leaves them out"
    )


def judged_frame(
    qrels: Any,
    run: Any,
    *,
    queries: QuerySet = "run",
    relevance_level: int = 1,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """
    The run joined with its qrels for the metric expressions: ``query, doc, score, relevance``.

    A full join per (query, document), so that the judged documents the run
    did not retrieve are rows with a null score: they count in R (recall, AP's
    denominator) and in the ideal DCG, as in trec_eval. The plain join of a
    run with its qrels (``run.join(qrels, ...)``) loses them: nDCG and AP of a
    query come out too high whenever it misses a relevant document. Retrieved
    documents without a judgement get a null label (unjudged, not relevant).

    ``queries`` picks the queries, as it does for :func:`evaluate` (see
    :data:`QuerySet`); a qrels query missing from the run is then one row per
    judged document, none retrieved (nDCG, AP, P@k 0). A query without a
    relevant document is kept: the metric functions return null for it by
    default, so pass ``no_relevant='zero'`` to count it as 0, as trec_eval does.

    Parameters
    ----------
    qrels, run
        Any source :func:`evaluate` reads (frames, files, dicts, ranx objects).
    queries : {'trec_eval', 'run', 'qrels', 'relevant'}
        Which queries to keep.
    relevance_level
        The lowest relevant label, for ``queries='relevant'`` (an int >= 0).
    qrels_columns, run_columns
        Column names where they are not the usual ones, as for :func:`evaluate`.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"a": 2.0, "x": 1.0}}
    >>> judged = rm.judged_frame(qrels, run, queries="qrels")
    >>> judged.sort("query", "doc")
    shape: (4, 4)
    ┌───────┬─────┬───────┬───────────┐
    │ query ┆ doc ┆ score ┆ relevance │
    │ ---   ┆ --- ┆ ---   ┆ ---       │
    │ str   ┆ str ┆ f64   ┆ i64       │
    ╞═══════╪═════╪═══════╪═══════════╡
    │ q1    ┆ a   ┆ 2.0   ┆ 1         │
    │ q1    ┆ b   ┆ null  ┆ 1         │
    │ q1    ┆ x   ┆ 1.0   ┆ null      │
    │ q2    ┆ c   ┆ null  ┆ 1         │
    └───────┴─────┴───────┴───────────┘
    >>> judged.group_by("query").agg(
    ...     rm.ndcg_at_k("relevance", 10, by="score", no_relevant="zero")
    ... ).sort("query")
    shape: (2, 2)
    ┌───────┬───────────┐
    │ query ┆ relevance │
    │ ---   ┆ ---       │
    │ str   ┆ f64       │
    ╞═══════╪═══════════╡
    │ q1    ┆ 0.613147  │
    │ q2    ┆ 0.0       │
    └───────┴───────────┘
    """
    from polars_rankmetrics.evaluation.inputs import check_not_swapped, read_qrels, read_run

    check_query_set(queries)
    if not is_integral(relevance_level) or relevance_level < 0:
        msg = f"`relevance_level` must be an int >= 0, got {relevance_level!r}"
        raise ValueError(msg)
    qrels_frame = read_qrels(qrels, qrels_columns)
    run_frame = read_run(run, run_columns)
    check_not_swapped(qrels_frame, run_frame)
    run_queries = run_frame.get_column("query").unique()
    qrels_frame, missing = restrict_qrels(qrels_frame, run_queries, queries, int(relevance_level))
    if missing and queries == "trec_eval":
        raise ValueError(missing_message(missing, "queries='qrels'"))
    judged_queries = qrels_frame.get_column("query").unique().implode()
    retrieved = run_frame.select("query", "doc", "score").filter(
        pl.col("query").is_in(judged_queries)
    )
    return retrieved.join(
        qrels_frame.select("query", "doc", "relevance"),
        on=["query", "doc"],
        how="full",
        coalesce=True,
        maintain_order="left_right",
    )
