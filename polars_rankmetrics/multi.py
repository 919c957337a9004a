"""Many metrics from one ranking: :func:`metrics`."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import polars as pl

from polars_rankmetrics._validate import (
    IntoExpr,
    NoRelevant,
    Ties,
    as_expr,
    check_choice,
)
from polars_rankmetrics.engine import Ranking, evaluate
from polars_rankmetrics.engine.ranked import DOC, INTENT_WEIGHTS, SUBTOPICS
from polars_rankmetrics.measures import Column
from polars_rankmetrics.metrics.diversity_input import subtopic_columns


def columns_struct(
    columns: Sequence[Column],
    no_relevant: NoRelevant,
    variant: Callable[[Column], Hashable],
    ranking: Callable[[Hashable], Ranking],
) -> pl.Expr:
    """Every column's statistic, as one struct with a field per column, in their order.

    Columns of one ``variant`` (judged rows only, a tie order) share one
    ``ranking(variant)``: one sort per group for each variant in use, so a
    plain list of measures costs one sort.
    """
    names = [column.name for column in columns]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        msg = f"`measures` give the same output column more than once: {repeated}"
        raise ValueError(msg)
    groups: dict[Hashable, list[Column]] = {}
    for column in columns:
        groups.setdefault(variant(column), []).append(column)
    structs = {
        key: evaluate(ranking(key), [column.bind(no_relevant) for column in members])
        for key, members in groups.items()
    }
    if len(structs) == 1:
        return next(iter(structs.values()))
    fields = [structs[variant(column)].struct.field(column.name) for column in columns]
    return pl.struct(fields)


def metrics(
    relevance: IntoExpr,
    measures: Sequence[str],
    *,
    by: IntoExpr | Sequence[IntoExpr] | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 0,
    no_relevant: NoRelevant = "null",
    ties: Ties = "stable",
    subtopics: IntoExpr | None = None,
    intent_weights: IntoExpr | None = None,
    docs: IntoExpr | None = None,
) -> pl.Expr:
    """
    Several measures from a single sort per group, as a struct with one field each.

    Each group is ranked once and every measure is read from that ranking, so
    ten measures cost little more than one. Names follow trec_eval (``map``,
    ``P_10``, ``ndcg_cut_10``, ...), ir_measures (``AP``, ``P@10``,
    ``nDCG@10``, ``AP(rel=2)``, ...) or ranx (``ndcg@10``, ``map@100``,
    ``mrr``, ...); see :mod:`polars_rankmetrics.measures` for the table and
    where the names differ from the functions' defaults (``AP@10`` divides by R).
    The queries are the groups of the frame it runs in: join a run to its qrels
    with :func:`~polars_rankmetrics.judged_frame` (which keeps the unretrieved
    judged documents and picks the queries by ``evaluate()``'s rule) and pass
    ``no_relevant='zero'`` for trec_eval's 0 where a query has no relevant row
    (see the guide's *Query sets* page).
    Ties are broken by ``by`` for every name: ir_measures' tie order for
    ``RR@10`` (document id ascending) applies in ``evaluate()``, which knows the
    document ids. Measures with ``judged_only=True`` rank the judged rows
    (labels >= 0) in a second sort.

    Parameters
    ----------
    relevance
        Relevance labels; see :func:`polars_rankmetrics.precision_at_k`.
    measures
        Measure names; each becomes a Float64 field of that name. A trec_eval
        name with several parameters gives several fields (``P.5,10`` gives
        ``P_5`` and ``P_10``); ``relstring`` gives a String field. Measures that
        tell unjudged (null) labels from judged ones (``bpref``, ``infAP``,
        ``unj_10``, custom gains, ...) sort a ``{label, raw label}`` list per
        group, about twice the cost of the plain ranking. One name is one
        measure; ir_measures measure objects stand for their names, and a set
        is read as pytrec_eval reads it (as in :func:`~polars_rankmetrics.evaluate`).
    by, descending, threshold, ties
        As for :func:`~polars_rankmetrics.precision_at_k`: the score and tie-breakers,
        their direction, the relevance threshold and the tie policy.
    no_relevant : {'null', 'zero'}
        The value of undefined measures for a query with no relevant row.
    subtopics, intent_weights, docs
        For the diversity measures (``alpha_nDCG@20``, ``ERR-IA@20``, ...): a
        list column of the subtopics each row is relevant to, optionally their
        intent probabilities, and document ids for ndeval's tie-breaks; see
        :func:`~polars_rankmetrics.alpha_ndcg_at_k`. They are sorted along with
        the labels, so the diversity measures share the one sort.

    Examples
    --------
    >>> df = pl.DataFrame(
    ...     {
    ...         "query": ["a", "a", "a", "b", "b"],
    ...         "score": [0.9, 0.8, 0.1, 0.7, 0.6],
    ...         "relevance": [0, 1, 1, 1, 0],
    ...     }
    ... )
    >>> df.group_by("query", maintain_order=True).agg(
    ...     rm.metrics("relevance", ["AP", "P@2", "RR"], by="score").alias("m")
    ... ).unnest("m")
    shape: (2, 4)
    ┌───────┬──────────┬─────┬─────┐
    │ query ┆ AP       ┆ P@2 ┆ RR  │
    │ ---   ┆ ---      ┆ --- ┆ --- │
    │ str   ┆ f64      ┆ f64 ┆ f64 │
    ╞═══════╪══════════╪═════╪═════╡
    │ a     ┆ 0.583333 ┆ 0.5 ┆ 0.5 │
    │ b     ┆ 1.0      ┆ 0.5 ┆ 1.0 │
    └───────┴──────────┴─────┴─────┘
    """
    # The name grammars load here, not at import (rankmetrics trec-eval reads none).
    from polars_rankmetrics.measures.resolve import measure_names, parse_measures

    measures = measure_names(measures)
    if len(set(measures)) != len(measures):
        msg = f"`measures` has duplicate names: {list(measures)!r}"
        raise ValueError(msg)
    check_choice(no_relevant, "no_relevant", NoRelevant)
    columns = [column for name in measures for column in parse_measures(name)]
    weights = None if intent_weights is None else as_expr(intent_weights, "intent_weights")
    lists = None
    if subtopics is not None:
        lists, weights = subtopic_columns(as_expr(subtopics, "subtopics"), weights)
    carried = {
        SUBTOPICS: lists,
        INTENT_WEIGHTS: weights,
        DOC: None if docs is None else as_expr(docs, "docs"),
    }
    ranking = Ranking.build(relevance, by, descending, threshold, ties=ties, carried=carried)
    return columns_struct(
        columns,
        no_relevant,
        lambda column: column.judged_only,
        lambda judged_only: ranking.judged_only() if judged_only else ranking,
    )
