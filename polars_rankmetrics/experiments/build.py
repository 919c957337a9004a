"""The steps of :func:`polars_rankmetrics.experiment`, each over frames the library computes.

Checks first (:func:`check_options`, :func:`check_measures`, :func:`check_queries`),
so that every mistake is a ``ValueError`` naming its argument before a run is
evaluated; then one :func:`~polars_rankmetrics.evaluate` per run
(:func:`evaluate_runs`), then :func:`~polars_rankmetrics.compare` for the means
and intervals and :func:`~polars_rankmetrics.compare_pairs` for the tests
(:func:`summarise`, :func:`test_pairs`), and the counts the report draws
(:func:`win_tie_loss`, :func:`curves`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from polars_rankmetrics._validate import check_choice, check_k, check_seed
from polars_rankmetrics.comparisons.comparison import Interval, Missing, _check_alpha, align
from polars_rankmetrics.comparisons.corrections import check_method
from polars_rankmetrics.comparisons.pairs import (
    PAIRS_SCHEMA,
    TESTS,
    PairTest,
    check_family_correction,
)
from polars_rankmetrics.comparisons.significance import check_n_resamples
from polars_rankmetrics.evaluation.evaluate import _parsed, evaluate
from polars_rankmetrics.evaluation.inputs import read_qrels, read_run
from polars_rankmetrics.evaluation.query_sets import QuerySet, check_query_set
from polars_rankmetrics.experiments.record import (
    RUNS_SCHEMA,
    SUMMARY_SCHEMA,
    WIN_TIE_LOSS_SCHEMA,
)
from polars_rankmetrics.experiments.sources import NamedRun

CURVE = "iprec_at_recall"
"""trec_eval's 11-point interpolated precision: the report's precision-recall curves."""

CORRECTION_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "sidak": "Šidák",
    "holm-sidak": "Holm-Šidák",
    "fdr_bh": "Benjamini-Hochberg",
    "fdr_by": "Benjamini-Yekutieli",
    None: "no",
}
"""How the report names each ``correction``."""


@dataclass(frozen=True)
class Options:
    """The checked options of one experiment."""

    test: str
    correction: str | None
    alpha: float
    queries: QuerySet
    missing: str
    depth: int | None
    ci: str
    n_resamples: int
    seed: int
    relevance_level: int


def check_options(
    *,
    test: object,
    correction: object,
    alpha: object,
    queries: object,
    missing: object,
    depth: object,
    ci: object,
    n_resamples: object,
    seed: object,
    relevance_level: object,
) -> Options:
    """Every option checked, each error naming its argument."""
    check_choice(test, "test", PairTest)
    if correction == "none":
        correction = None
    check_method(correction)
    check_family_correction(test, correction)
    rule = check_query_set(queries)
    check_choice(missing, "missing", Missing)
    check_choice(ci, "ci", Interval)
    if depth is not None:
        check_k(depth, "depth")
    check_seed(seed)
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, int):
        msg = f"`relevance_level` must be an int >= 0, got {relevance_level!r}"
        raise ValueError(msg)
    if relevance_level < 0:
        msg = f"`relevance_level` must be an int >= 0, got {relevance_level!r}"
        raise ValueError(msg)
    return Options(
        test=str(test),
        correction=None if correction is None else str(correction),
        alpha=_check_alpha(alpha),
        queries=rule,
        missing=str(missing),
        depth=None if depth is None else int(depth),  # type: ignore[call-overload]
        ci=str(ci),
        n_resamples=check_n_resamples(n_resamples),
        seed=seed,
        relevance_level=relevance_level,
    )


def test_name(options: Options) -> str:
    """The test, its correction and the level, as the legend of a table says it."""
    return (
        f"{TESTS[options.test]}, {CORRECTION_NAMES[options.correction]} correction, "
        f"α = {options.alpha:g}"
    )


def check_measures(names: Sequence[str]) -> tuple[list[str], bool]:
    """The measures' columns (each with a value per query), and whether one reads subtopics."""
    columns, diversity = _parsed(tuple(names), 0)
    for column in columns:
        if not column.measure.per_query or column.name == "relstring":
            msg = (
                f"`measures`: {column.name!r} has no numeric value per query (it is a "
                "summary or a string), so runs cannot be compared on it"
            )
            raise ValueError(msg)
    shown = [column.name for column in columns]
    repeated = sorted({name for name in shown if shown.count(name) > 1})
    if repeated:
        msg = f"`measures`: {repeated[0]!r} is asked for twice (the columns are {shown})"
        raise ValueError(msg)
    return shown, diversity


def read_inputs(
    qrels: object,
    runs: list[NamedRun],
    *,
    subtopics: bool,
    qrels_columns: Mapping[str, str] | None,
    run_columns: Mapping[str, str] | None,
) -> tuple[pl.DataFrame, list[pl.DataFrame], list[str]]:
    """The qrels and every run, read once, each error naming the run; and the runs' ids.

    A run's id is that of its last row, as :func:`evaluate` reports it ('' without
    one); the column itself is dropped (a string a row, held for every run).
    """
    qrels_frame = read_qrels(qrels, qrels_columns, subtopics=subtopics)
    frames, run_ids = [], []
    for run in runs:
        try:
            frame = read_run(run.source, run_columns)
        except (ValueError, FileNotFoundError) as error:
            msg = f"`runs`: run {run.name!r}: {error}"
            raise ValueError(msg) from None
        last = frame.get_column("run_id")[-1] if "run_id" in frame.columns else None
        run_ids.append("" if last is None else str(last))
        frames.append(frame.drop("run_id", strict=False))
    return qrels_frame, frames, run_ids


def _queries_of(frame: pl.DataFrame) -> pl.Series:
    return frame.get_column("query").unique()


def check_queries(
    qrels: pl.DataFrame, names: Sequence[str], runs: Sequence[pl.DataFrame], options: Options
) -> dict[str, list[str]]:
    """Refuse runs without a judged query, or without a query in common; list what each lacks.

    Returns, per run, the queries of the compared set that it lacks (scored 0
    or dropped, as ``queries`` and ``missing`` say). Under ``'trec_eval'`` a
    run that lacks a qrels query is refused, naming ``queries='qrels'``.
    """
    judged = _queries_of(qrels)
    judged_set = set(judged.to_list())
    if options.queries == "relevant":
        relevant = qrels.filter(pl.col("relevance") >= options.relevance_level)
        wanted = set(_queries_of(relevant).to_list())
    else:
        wanted = judged_set
    own = {}
    for name, run in zip(names, runs, strict=True):
        present = set(_queries_of(run).to_list()) & judged_set
        if not present:
            msg = (
                f"`runs`: run {name!r} has no query of the qrels: check that their query ids "
                f"match (the run's first ids: {sorted(_queries_of(run).head(3).to_list())})"
            )
            raise ValueError(msg)
        own[name] = present
    common = set.intersection(*own.values())
    if not common:
        msg = f"`runs`: the runs {list(names)} have no judged query in common: nothing to pair"
        raise ValueError(msg)
    compared = set.union(*own.values()) if options.queries == "run" else wanted
    lacking = {name: sorted(compared - present) for name, present in own.items()}
    if options.queries == "trec_eval":
        for name, absent in lacking.items():
            if absent:
                msg = (
                    f"`runs`: run {name!r} lacks {len(absent)} qrels "
                    f"{'query' if len(absent) == 1 else 'queries'} (e.g. {absent[0]!r}), which "
                    "queries='trec_eval' refuses as trec_eval 10 does; queries='qrels' scores "
                    "them 0 (trec_eval -c), queries='run' compares each run's own queries"
                )
                raise ValueError(msg)
    return lacking


def evaluate_runs(
    qrels: pl.DataFrame,
    runs: Sequence[pl.DataFrame],
    names: Sequence[str],
    measures: Sequence[str],
    options: Options,
) -> tuple[pl.DataFrame, list[Any]]:
    """One :func:`evaluate` per run, the 11 points of the curves in the same pass.

    Returns the stacked per-query frame (``system, query``, one column per
    measure, then the curve's columns) and the evaluations.
    """
    asked = [*measures, *(name for name in curve_columns() if name not in measures)]
    evaluations = [
        evaluate(
            qrels,
            run,
            asked,
            queries=options.queries,
            max_per_query=options.depth,
            relevance_level=options.relevance_level,
        )
        for run in runs
    ]
    frames = [
        evaluation.per_query.select(pl.lit(name, pl.String).alias("system"), pl.all())
        for name, evaluation in zip(names, evaluations, strict=True)
    ]
    return pl.concat(frames, how="vertical_relaxed"), evaluations


def curve_columns() -> list[str]:
    """The curve's 11 columns: ``iprec_at_recall_0.00`` ... ``iprec_at_recall_1.00``."""
    return [f"{CURVE}_{level / 10:.2f}" for level in range(11)]


def summarise(
    per_query: pl.DataFrame,
    names: Sequence[str],
    measures: Sequence[str],
    options: Options,
) -> pl.DataFrame:
    """Each run's mean of each measure, its interval, its query counts, and the best."""
    from polars_rankmetrics.comparisons.comparison import compare

    compared = compare(
        per_query.select("system", "query", *measures),
        baseline=names[0],
        metrics=list(measures),
        test="t",
        correction=None,
        alpha=options.alpha,
        n_resamples=options.n_resamples,
        seed=options.seed,
        missing=options.missing,  # type: ignore[arg-type]
        ci=options.ci,  # type: ignore[arg-type]
    )
    order = {name: index for index, name in enumerate(names)}
    return (
        compared.with_columns(best=pl.col("mean") == pl.col("mean").max().over("metric"))
        .with_columns(pl.col("best").fill_null(False))
        .sort(
            pl.col("metric").replace_strict({m: i for i, m in enumerate(measures)}),
            pl.col("system").replace_strict(order),
        )
        .select(list(SUMMARY_SCHEMA))
        .cast(SUMMARY_SCHEMA)  # type: ignore[arg-type]
    )


def test_pairs(
    per_query: pl.DataFrame,
    names: Sequence[str],
    measures: Sequence[str],
    baseline: str | None,
    options: Options,
) -> pl.DataFrame:
    """:func:`~polars_rankmetrics.compare_pairs`: all pairs, or the baseline with each run."""
    if len(names) < 2:
        return pl.DataFrame(schema=PAIRS_SCHEMA)
    from polars_rankmetrics.comparisons.pairs import compare_pairs

    return compare_pairs(
        per_query.select("system", "query", *measures),
        test=options.test,  # type: ignore[arg-type]
        correction=options.correction,  # type: ignore[arg-type]
        alpha=options.alpha,
        baselines=None if baseline is None else [baseline],
        systems=list(names),
        metrics=list(measures),
        n_resamples=options.n_resamples,
        seed=options.seed,
        missing=options.missing,  # type: ignore[arg-type]
    )


def _aligned(per_query: pl.DataFrame, metric: str, names: Sequence[str], missing: str) -> Any:
    queries = per_query.get_column("query").unique(maintain_order=True)
    return align(
        per_query,
        metric,
        list(names),
        queries,
        system="system",
        query="query",
        missing=missing,  # type: ignore[arg-type]
    )


def deltas(
    per_query: pl.DataFrame, names: Sequence[str], metric: str, reference: str, missing: str
) -> dict[str, Any]:
    """Each run's per-query differences of ``metric`` to ``reference`` (on the compared queries)."""
    aligned = _aligned(per_query, metric, names, missing)
    base = aligned.values[list(names).index(reference)]
    return {
        name: values - base
        for name, values in zip(names, aligned.values, strict=True)
        if name != reference
    }


def win_tie_loss(
    per_query: pl.DataFrame,
    names: Sequence[str],
    measures: Sequence[str],
    reference: Mapping[str, str],
    missing: str,
) -> pl.DataFrame:
    """Per measure and run, the queries on which it beats, ties or loses to the reference run."""
    rows = []
    for metric in measures:
        aligned = _aligned(per_query, metric, names, missing)
        base = aligned.values[list(names).index(reference[metric])]
        for name, values in zip(names, aligned.values, strict=True):
            if name == reference[metric]:
                continue
            difference = values - base
            rows.append(
                {
                    "metric": metric,
                    "system": name,
                    "reference": reference[metric],
                    "wins": int((difference > 0).sum()),
                    "ties": int((difference == 0).sum()),
                    "losses": int((difference < 0).sum()),
                }
            )
    return pl.DataFrame(rows, schema=WIN_TIE_LOSS_SCHEMA)


def curves(
    per_query: pl.DataFrame, names: Sequence[str], columns: Sequence[str], missing: str
) -> pl.DataFrame:
    """Each run's mean interpolated precision at the 11 recall levels, over the compared queries."""
    rows = []
    for column in columns:
        aligned = _aligned(per_query, column, names, missing)
        recall = float(column.rsplit("_", 1)[1])
        for name, values in zip(names, aligned.values, strict=True):
            mean = float(np.mean(values)) if values.size else None
            rows.append(
                {"system": name, "recall": recall, "precision": mean, "n_queries": values.size}
            )
    schema = {
        "system": pl.String,
        "recall": pl.Float64,
        "precision": pl.Float64,
        "n_queries": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema).sort("system", "recall", maintain_order=True)


def runs_frame(
    runs: Sequence[NamedRun],
    run_ids: Sequence[str],
    evaluations: Sequence[Any],
    lacking: Mapping[str, list[str]],
) -> pl.DataFrame:
    """One row per run: its name, source, run id and query counts, and the queries it lacks."""
    rows = [
        {
            "system": run.name,
            "source": run.described,
            "run_id": run_id,
            "n_queries": evaluation.n_queries,
            "missing_queries": evaluation.missing_queries,
            "ignored_queries": evaluation.ignored_queries,
            "lacking": lacking[run.name],
        }
        for run, run_id, evaluation in zip(runs, run_ids, evaluations, strict=True)
    ]
    return pl.DataFrame(rows, schema=RUNS_SCHEMA)
