"""The experiment in one call: :func:`experiment` and the :class:`Experiment` it returns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars_rankmetrics.experiments.build as build
from polars_rankmetrics._version import __version__
from polars_rankmetrics.experiments.record import ChartKind, Record, Settings, references
from polars_rankmetrics.experiments.sources import describe, named_runs


class Experiment(Record):
    """
    Runs evaluated on the same queries and compared: the result of :func:`experiment`.

    A thin record over frames the library computes (:func:`~polars_rankmetrics.evaluate`,
    :func:`~polars_rankmetrics.compare`, :func:`~polars_rankmetrics.compare_pairs`).

    Attributes
    ----------
    per_query
        ``system, query``, then one Float64 column per measure.
    summary
        One row per (measure, run): ``metric, system, mean, ci_low, ci_high,
        n_queries, n_filled, n_dropped, best``; the interval is at ``1 - alpha``.
    tests
        One row per (measure, pair), in :func:`~polars_rankmetrics.compare_pairs`'
        columns: every pair, or the baseline (``system_a``) with each run.
    win_tie_loss
        Per measure and run, the queries on which it beats, ties or loses to
        the reference run (the baseline, else the best run of that measure).
    curves
        Each run's mean interpolated precision at recall 0.0, 0.1, ..., 1.0
        (trec_eval's ``iprec_at_recall``) over the compared queries.
    runs
        One row per run: ``system, source, run_id, n_queries, missing_queries,
        ignored_queries, lacking`` (the compared queries it lacks).
    settings
        Every choice that made the numbers (measures, test, correction, alpha,
        query-set rule, depth, the library's version).
    """

    def __repr__(self) -> str:
        """The results table with its significance marks and the query-set line."""
        return self.to_markdown()

    def _repr_html_(self) -> str:
        from polars_rankmetrics.experiments.tables import summary_html

        return summary_html(self)

    def to_markdown(self, *, digits: int = 4) -> str:
        """The results table in Markdown: daggers against a baseline, else ranx's letters."""
        from polars_rankmetrics.experiments.tables import markdown

        return markdown(self, digits=digits)

    def to_latex(self, *, digits: int = 4) -> str:
        """The results table in LaTeX (a plain ``tabular``), with the same marks."""
        from polars_rankmetrics.experiments.tables import latex

        return latex(self, digits=digits)

    def to_html(self) -> str:
        """The whole report as one self-contained HTML page (no script, no network)."""
        from polars_rankmetrics.experiments.report import html_report

        return html_report(self)

    def chart(self, kind: ChartKind = "pr", *, metric: str | None = None) -> Any:
        """
        An Altair chart of the experiment.

        Parameters
        ----------
        kind : {'pr', 'delta', 'means'}
            ``'pr'``: each run's 11-point interpolated precision-recall curve;
            ``'delta'``: the per-query differences of ``metric`` to the
            reference run (the baseline, else the best run); ``'means'``: each
            run's mean of ``metric`` with its interval.
        metric
            The measure of ``'delta'`` and ``'means'`` (default: the first).
        """
        from polars_rankmetrics.experiments.charts import chart

        return chart(self, kind, metric)

    def save(self, path: str | Path) -> None:
        """
        Write the experiment to ``path``, atomically, in the format of its suffix.

        ``.html``: the report (:meth:`to_html`); ``.md``: :meth:`to_markdown`;
        ``.tex``: :meth:`to_latex`; ``.csv``: the summary; ``.json``: every
        frame and the settings; ``.parquet``: the per-query values. A folder
        that does not exist, or another suffix, is a ``ValueError`` before
        anything is written.
        """
        from polars_rankmetrics.experiments.report import save

        save(self, path)


def _correction_of(correction: object) -> object:
    return None if correction == "none" else correction


def experiment(
    qrels: Any,
    runs: Any,
    measures: str | Sequence[str],
    *,
    baseline: str | None = None,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    queries: str = "trec_eval",
    missing: str = "zero",
    depth: int | None = None,
    names: Sequence[str] | None = None,
    relevance_level: int = 1,
    ci: str = "t",
    n_resamples: int = 10_000,
    seed: int = 0,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> Experiment:
    """
    Evaluate runs on the same queries and compare them: means, intervals, tests, a report.

    Each run is evaluated by :func:`~polars_rankmetrics.evaluate` (trec_eval's
    numbers), cut to its top ``depth`` documents per query first if asked
    (trec_eval's ``-M``); the means and their intervals come from
    :func:`~polars_rankmetrics.compare`, the tests from
    :func:`~polars_rankmetrics.compare_pairs`: every pair of runs
    (``baseline=None``, ranx's report) or the baseline with each run, the
    p-values corrected over the pairs of each measure.

    **Query set.** One rule for every run (``queries``, the switch of
    :func:`~polars_rankmetrics.evaluate`): ``'trec_eval'`` (default): every
    query of the qrels, which each run must have (else a ``ValueError`` that
    names the run); ``'qrels'``: every query of the qrels, one a run lacks
    scoring 0 (trec_eval ``-c``); ``'relevant'``: the qrels' queries with a
    relevant document, likewise; ``'run'``: each run's judged queries, a query
    that another run has but this one lacks then scoring 0 (``missing='zero'``)
    or dropped for every run (``missing='drop'``). ``runs.lacking`` lists them.

    **One run** gives a one-run report (its means and intervals, no test).
    Every bad argument (no run, two runs of one name, a baseline that is not a
    run, runs without a query in common, ``depth <= 0``, a measure without a
    value per query, an unknown option) is a ``ValueError`` that names it,
    raised before any run is evaluated.

    Parameters
    ----------
    qrels
        The judgements: any source :func:`~polars_rankmetrics.evaluate` reads.
    runs
        A mapping ``{name: run}``, a sequence of runs, or one long frame with
        a ``system`` column. A run is any source ``evaluate`` reads (a TREC or
        parquet path, ``.gz``, a polars, pandas or pyarrow table, a dict, a
        ranx ``Run``, a frame from :func:`~polars_rankmetrics.fuse`). In a
        sequence, a run is named by its run id (a TREC file's sixth field, a
        table's single ``run_id``, a ranx Run's name), else its file name,
        else ``run_1``, ``run_2``, ...; files sharing a run id by their file names.
    measures
        Measure names in any tool's spelling (``map``, ``ndcg_cut_10``,
        ``nDCG@10``, ranx's ``ndcg@10``); each is a column of the result.
    baseline
        The run every other is tested against; ``None`` tests every pair.
    test : str
        The paired test: ``'t'`` (default), ``'wilcoxon'``, ``'sign'``,
        ``'randomization'``, ``'bootstrap'``, or Tukey's HSD (``'tukey'``,
        ``'tukey-two-way'``, ``'randomised-tukey'``); see
        :func:`~polars_rankmetrics.compare_pairs`.
    correction : {'holm', 'bonferroni', 'sidak', 'holm-sidak', 'fdr_bh', 'fdr_by', None}
        The correction over the pairs of each measure (``None`` for Tukey's tests).
    alpha
        The significance level; the intervals cover ``1 - alpha``.
    queries : {'trec_eval', 'qrels', 'relevant', 'run'}
        Which queries every run is evaluated and compared on (see above).
    missing : {'zero', 'drop'}
        Under ``queries='run'``, what a query a run lacks becomes.
    depth
        Cut every run to its first ``depth`` documents per query (trec_eval
        ``-M``), so that a fused run compares fairly with shallower inputs.
    names
        One name per run, replacing the names they would get.
    relevance_level
        A label >= this is relevant (trec_eval ``-l``).
    ci : {'t', 'bootstrap'}
        Student's t interval of each mean, or a bootstrap percentile interval.
    n_resamples
        Resamples of the randomization and bootstrap tests and intervals.
    seed
        Seed of every random draw.
    qrels_columns, run_columns
        Column names where they are not the usual ones, as for ``evaluate``.

    Returns
    -------
    Experiment
        The frames, the settings, and the tables, charts and report as methods.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 1}}
    >>> runs = {
    ...     "bm25": {"q1": {"a": 1.0, "x": 2.0}, "q2": {"x": 1.0, "c": 0.5}, "q3": {"d": 1.0}},
    ...     "dense": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}, "q3": {"d": 1.0}},
    ... }
    >>> result = rm.experiment(qrels, runs, ["map", "P_1"], baseline="bm25")
    >>> result.summary.select("metric", "system", "mean", "n_queries")
    shape: (4, 4)
    ┌────────┬────────┬──────────┬───────────┐
    │ metric ┆ system ┆ mean     ┆ n_queries │
    │ ---    ┆ ---    ┆ ---      ┆ ---       │
    │ str    ┆ str    ┆ f64      ┆ i64       │
    ╞════════╪════════╪══════════╪═══════════╡
    │ map    ┆ bm25   ┆ 0.583333 ┆ 3         │
    │ map    ┆ dense  ┆ 1.0      ┆ 3         │
    │ P_1    ┆ bm25   ┆ 0.333333 ┆ 3         │
    │ P_1    ┆ dense  ┆ 1.0      ┆ 3         │
    └────────┴────────┴──────────┴───────────┘
    >>> lines = result.to_markdown(digits=3).splitlines()
    >>> print(lines[-2])
    Means over 3 queries.
    >>> print(lines[-1])
    Queries: every query of the qrels, which each run has (queries='trec_eval').
    """
    from polars_rankmetrics.measures.resolve import measure_names

    options = build.check_options(
        test=test,
        correction=_correction_of(correction),
        alpha=alpha,
        queries=queries,
        missing=missing,
        depth=depth,
        ci=ci,
        n_resamples=n_resamples,
        seed=seed,
        relevance_level=relevance_level,
    )
    columns, subtopics = build.check_measures(measure_names(measures))
    named = named_runs(runs, names)
    systems = [run.name for run in named]
    if baseline is not None and str(baseline) not in systems:
        msg = f"`baseline`: {baseline!r} is not a run; the runs are {systems}"
        raise ValueError(msg)
    qrels_frame, frames, run_ids = build.read_inputs(
        qrels, named, subtopics=subtopics, qrels_columns=qrels_columns, run_columns=run_columns
    )
    lacking = build.check_queries(qrels_frame, systems, frames, options)
    stacked, evaluations = build.evaluate_runs(qrels_frame, frames, systems, columns, options)
    del frames
    per_query = stacked.select("system", "query", *columns)
    chosen = None if baseline is None else str(baseline)
    summary = build.summarise(per_query, systems, columns, options)
    settings = Settings(
        measures=tuple(columns),
        baseline=chosen,
        test=options.test,
        test_name=build.test_name(options),
        correction=options.correction,
        correction_name=build.CORRECTION_NAMES[options.correction],
        alpha=options.alpha,
        queries=options.queries,
        missing=options.missing,
        depth=options.depth,
        ci=options.ci,
        n_resamples=options.n_resamples,
        seed=options.seed,
        qrels=describe(qrels),
        version=__version__,
    )
    reference = references(summary, chosen)
    return Experiment(
        per_query=per_query,
        summary=summary,
        tests=build.test_pairs(per_query, systems, columns, chosen, options),
        win_tie_loss=build.win_tie_loss(per_query, systems, columns, reference, options.missing),
        curves=build.curves(stacked, systems, build.curve_columns(), options.missing),
        runs=build.runs_frame(named, run_ids, evaluations, lacking),
        settings=settings,
    )
