"""The ``rankmetrics compare`` and ``rankmetrics plot`` subcommands.

Both take a qrels file and several runs, read by
:mod:`polars_rankmetrics.evaluation.inputs` as :func:`polars_rankmetrics.evaluate`
reads them: TREC files (plain, ``.gz``, or ``-`` for standard input) or parquet
files whose columns have the usual names (``query``/``query_id``/``qid``,
``doc``/``doc_id``/``docno``, ``score``, ``relevance``/``label``, and optionally
``run_id``), or the names given by ``--qrels-columns`` and ``--run-columns``.
Each run is evaluated by :func:`polars_rankmetrics.evaluate`. A system is named
by its run id (the single ``run_id`` of the file), or else by its file name.

Documents are ranked the way trec_eval ranks them: by score descending, ties
broken by document id descending. The query set of a comparison is that of
``rankmetrics trec-eval`` (``--queries``, the same switch): by default every
query of the qrels, which each run must have (trec_eval 10 stops at a missing
one); ``--queries qrels`` scores a missing query 0 (``trec_eval -c``),
``--queries relevant`` keeps the qrels' queries with a relevant document
(missing ones 0), and ``--queries run`` evaluates each run on its own judged
queries, a query one run lacks then scoring 0 (``--missing zero``) or being
dropped for every system (``--missing drop``); the report counts them.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from polars_rankmetrics._progress import progress
from polars_rankmetrics.commands import reading
from polars_rankmetrics.commands.options import (
    CommandError,
    fail,
    one_stdin,
    refuse_unused,
    remember_defaults,
)
from polars_rankmetrics.commands.reading import read_qrels, system_names
from polars_rankmetrics.comparisons.arguments import (
    TEST_NAMES,
    DefaultsFormatter,
    add_common,
    add_compare_options,
    add_plot_options,
)
from polars_rankmetrics.comparisons.output import (
    DEFAULT_MARKERS,
    MARKERS,
    OutputError,
    deliver,
    output_format,
    warn_if_few_queries,
)
from polars_rankmetrics.comparisons.pairs_cli import (
    all_pairs_report,
    check_baseline_correction,
    check_baseline_test,
    with_query_note,
)
from polars_rankmetrics.evaluation import evaluate
from polars_rankmetrics.evaluation.query_sets import QuerySet, missing_message, restrict_qrels

_CHART_FORMATS = (".png", ".svg", ".html", ".json")


def parse_columns(text: str | None, option: str) -> dict[str, str]:
    """``role=column,...`` (``--run-columns score=sim``) as a mapping."""
    if not text:
        return {}
    pairs = [part.partition("=") for part in text.split(",")]
    if any(not role or not equals or not column for role, equals, column in pairs):
        msg = f"{option} must be role=column pairs separated by commas, got {text!r}"
        raise CommandError(msg)
    return {role.strip(): column.strip() for role, _, column in pairs}


def read_run(
    path: Path, columns: dict[str, str] | None = None, depth: int | None = None
) -> tuple[str, pl.DataFrame]:
    """Read a run as its system name and ``query: str, doc: str, score: f64``.

    The name is the run's single run id, or else its file name
    (:func:`polars_rankmetrics.commands.reading.read_run`).
    """
    named = reading.read_run(path, columns, depth=depth)
    return named.name, named.frame


def judged_rankings(
    run: pl.DataFrame, qrels: pl.DataFrame, *, every_qrels_query: bool = False
) -> pl.DataFrame:
    """Join a run with its qrels: ``query, doc, score, relevance``.

    Relevant documents that were not retrieved keep a null score (they count in
    R); retrieved documents without a judgement get a null label (not relevant).
    Queries in the run but not in the qrels are left out. Queries of the qrels
    that the run lacks are left out too, unless ``every_qrels_query`` (then all
    their relevant documents are unretrieved, and they score 0).
    """
    judged_queries = qrels.select("query").unique()
    retrieved = run.join(judged_queries, on="query", how="semi")
    if not every_qrels_query:
        qrels = qrels.join(retrieved.select("query").unique(), on="query", how="semi")
    return retrieved.join(qrels, on=["query", "doc"], how="full", coalesce=True).select(
        "query", "doc", "score", "relevance"
    )


def evaluate_run(
    path: Path,
    qrels: pl.DataFrame,
    measures: Sequence[str],
    columns: dict[str, str] | None = None,
    queries: QuerySet = "trec_eval",
    depth: int | None = None,
) -> tuple[str, pl.DataFrame, int]:
    """Evaluate one run: its system name, one row per query and measure, and the queries it lacks.

    The count is of the evaluated queries that the run lacks (scored as
    trec_eval's ``-c`` scores them, under ``--queries qrels`` or ``relevant``).
    The run is cut to its top ``depth`` documents per query first (``-M``).
    """
    name, run = read_run(path, columns, depth)
    _, missing = restrict_qrels(qrels, run.get_column("query").unique(), queries, 1)
    if missing and queries == "trec_eval":
        raise CommandError(f"{path}: {missing_message(missing, '--queries qrels')}")
    per_query = evaluate(qrels, run, list(measures), queries=queries).per_query
    return name, per_query, len(missing)


def evaluate_runs(
    qrels: pl.DataFrame,
    run_paths: Sequence[Path],
    measures: Sequence[str],
    columns: dict[str, str] | None = None,
    queries: QuerySet = "trec_eval",
    *,
    depth: int | None = None,
    show: bool | None = None,
) -> pl.DataFrame:
    """Evaluate every run: one row per (system, query), one column per measure.

    A bar of the runs read and evaluated is drawn on a terminal (``show``: see
    :func:`polars_rankmetrics._progress.progress`).
    """
    return evaluate_runs_counted(
        qrels, run_paths, measures, columns, queries, depth=depth, show=show
    )[0]


def evaluate_runs_counted(
    qrels: pl.DataFrame,
    run_paths: Sequence[Path],
    measures: Sequence[str],
    columns: dict[str, str] | None = None,
    queries: QuerySet = "trec_eval",
    *,
    depth: int | None = None,
    show: bool | None = None,
) -> tuple[pl.DataFrame, dict[str, int]]:
    """:func:`evaluate_runs`, and the number of evaluated queries each system lacks.

    The count is that of :func:`evaluate_run`: the queries a run misses that
    ``--queries qrels`` or ``relevant`` scores as trec_eval's ``-c`` does.
    """
    evaluated = []
    with progress("Evaluating runs", len(run_paths), show=show) as bar:
        for path in run_paths:
            evaluated.append(evaluate_run(path, qrels, measures, columns, queries, depth))
            bar.advance()
    names = system_names([name for name, _, _ in evaluated], run_paths)
    frame = pl.concat(
        [
            per_query.select(pl.lit(name).alias("system"), pl.all())
            for name, (_, per_query, _) in zip(names, evaluated, strict=True)
        ],
        how="diagonal_relaxed",
    )
    lacking = {name: count for name, (_, _, count) in zip(names, evaluated, strict=True)}
    return frame, lacking


def query_set(qrels: pl.DataFrame, queries: QuerySet = "relevant") -> pl.Series | None:
    """The queries of a comparison under a ``--queries`` rule; None: each run's own (``run``)."""
    if queries == "run":
        return None
    if queries == "relevant":
        qrels = qrels.filter(pl.col("relevance") > 0)
    return qrels["query"].unique(maintain_order=True)


@dataclass(frozen=True)
class Layout:
    """How the table looks: its format, markers, and what each cell shows."""

    output_format: str = "markdown"
    markers: str = DEFAULT_MARKERS
    p_values: bool = False
    intervals: bool = False
    booktabs: bool = False


def compare_report(
    per_query: pl.DataFrame,
    queries: pl.Series | None,
    *,
    baseline: str | None,
    test: str,
    correction: str | None,
    alpha: float,
    n_resamples: int,
    seed: int,
    missing: str,
    layout: Layout,
    rule: QuerySet | None = None,
    lacking: dict[str, int] | None = None,
    show: bool | None = None,
) -> tuple[str, pl.DataFrame]:
    """Compare evaluated systems and render the result; the baseline defaults to the first.

    The measures are compared one at a time (each one's p-values are corrected
    for the systems compared, so the result is that of one call), with a bar of
    the measures tested on a terminal.
    """
    from polars_rankmetrics.comparisons.comparison import compare
    from polars_rankmetrics.comparisons.report import latex_table, markdown_table

    chosen = per_query["system"][0] if baseline is None else baseline
    measures = [name for name in per_query.columns if name not in ("system", "query")]
    compared = []
    with progress(
        f"Testing {per_query['system'].n_unique()} systems", len(measures), show=show
    ) as bar:
        for measure in measures:
            compared.append(
                compare(
                    per_query,
                    baseline=chosen,
                    metrics=[measure],
                    test=test,  # type: ignore[arg-type]
                    correction=correction,  # type: ignore[arg-type]
                    alpha=alpha,
                    n_resamples=n_resamples,
                    seed=seed,
                    queries=queries,
                    missing=missing,  # type: ignore[arg-type]
                )
            )
            bar.advance()
    comparison = pl.concat(compared)
    corrected = {"holm": "Holm", "bonferroni": "Bonferroni", None: "no"}[correction]
    plain = layout.markers == "ascii"
    how = f"{TEST_NAMES[test]}, {corrected} correction, {'alpha' if plain else 'α'} = {alpha:g}"
    markers = MARKERS[layout.markers]
    if layout.output_format == "markdown":
        text = markdown_table(
            comparison,
            marker=markers.gain,
            loss_marker=markers.loss,
            test=how,
            p_values=layout.p_values,
            intervals=layout.intervals,
        )
        if rule is not None:
            text = with_query_note(text, comparison, rule, lacking or {})
        if plain:  # the whole table in ASCII: '-' for a missing mean, 'alpha'
            text = text.replace("–", "-").replace("α", "alpha")
    elif layout.output_format == "latex":
        text = latex_table(
            comparison,
            marker=markers.latex_gain,
            loss_marker=markers.latex_loss,
            test=how,
            booktabs=layout.booktabs,
            p_values=layout.p_values,
            intervals=layout.intervals,
        )
    elif layout.output_format == "csv":
        text = comparison.write_csv().rstrip("\n")
    else:
        text = comparison.write_json()
    return text, comparison


def _paths(args: argparse.Namespace) -> tuple[Path, list[Path]]:
    one_stdin([args.qrels, *args.runs])
    return Path(args.qrels), [Path(run) for run in args.runs]


def _columns(args: argparse.Namespace) -> tuple[dict[str, str], dict[str, str]]:
    qrels = parse_columns(args.qrels_columns, "--qrels-columns")
    return qrels, parse_columns(args.run_columns, "--run-columns")


RESAMPLING_TESTS = ("randomization", "bootstrap", "randomised-tukey")
"""The tests that resample (``--n-resamples``, ``--seed``)."""


def tests_all_pairs(args: argparse.Namespace) -> bool:
    """Whether ``compare`` tests every pair: without ``--baseline``, or with ``--all-pairs``.

    Without ``--baseline`` as ``rm.experiment(baseline=None)``, one run aside
    (its table of means, as the call's one-run report); with ``--all-pairs``,
    ``--baseline`` only picks the pairs shown.
    """
    return bool(args.all_pairs) or (args.baseline is None and len(args.runs) > 1)


def refuse_unused_options(args: argparse.Namespace, output_format: str) -> None:
    """Refuse ``compare``'s and ``plot``'s options where they would change nothing."""
    rule = f"--queries {args.queries}"
    rules = [("--missing", "missing", args.queries != "run", f"{rule} (it is for --queries run)")]
    if args.command == "compare":
        # The intervals are bootstrap ones: shown by --ci, and in every CSV or JSON row.
        intervals = not tests_all_pairs(args) and (args.ci or output_format in ("csv", "json"))
        resampled = args.test in RESAMPLING_TESTS or intervals
        test = f"--test {args.test} and no interval shown (nothing is resampled)"
        table = f"--format {output_format} (the frame holds every value)"
        rules += [
            ("--n-resamples", "n_resamples", not resampled, test),
            ("--seed", "seed", not resampled, test),
            ("--latex-rules", "latex_rules", output_format != "latex", f"--format {output_format}"),
            ("--markers", "markers", output_format in ("csv", "json"), table),
            ("--p-values", "p_values", output_format in ("csv", "json"), table),
            ("--ci", "ci", output_format in ("csv", "json"), table),
        ]
    else:
        chart = "--delta (it draws one measure's per-query differences)"
        rules += [
            ("--kind", "kind", args.delta is not None, chart),
            ("--per-query", "per_query", args.delta is not None, chart),
            ("--baseline", "baseline", args.delta is None, "PR curves (it is for --delta)"),
            (
                "--scale",
                "scale",
                not args.output.lower().endswith(".png"),
                "a chart that is not PNG",
            ),
        ]
    refuse_unused(args, rules)


def run_compare(args: argparse.Namespace) -> int:
    """``rankmetrics compare``: print or write a results table with significance markers."""
    try:
        layout = Layout(
            output_format(args.format, args.output),
            args.markers,
            args.p_values,
            args.ci,
            args.latex_rules == "booktabs",
        )
        refuse_unused_options(args, layout.output_format)
        qrels_path, run_paths = _paths(args)
        qrels_columns, run_columns = _columns(args)
        qrels = read_qrels(qrels_path, qrels_columns)
        show = False if args.quiet else None
        per_query, lacking = evaluate_runs_counted(
            qrels, run_paths, args.measures, run_columns, args.queries, depth=args.depth, show=show
        )
        if tests_all_pairs(args):
            report, comparison = all_pairs_report(
                per_query, query_set(qrels, args.queries), args, layout, lacking
            )
        else:
            report, comparison = compare_report(
                per_query,
                query_set(qrels, args.queries),
                baseline=args.baseline,
                test=check_baseline_test(args.test),
                correction=check_baseline_correction(args.correction, layout.output_format),
                alpha=args.alpha,
                n_resamples=args.n_resamples,
                seed=args.seed,
                missing=args.missing,
                layout=layout,
                rule=args.queries,
                lacking=lacking,
                show=show,
            )
        warn_if_few_queries(comparison)
        deliver(report, args.output)
    except (CommandError, OutputError, ValueError) as error:
        return fail(str(error))
    return 0


def curve_rankings(
    qrels: pl.DataFrame,
    run_paths: Sequence[Path],
    columns: dict[str, str] | None = None,
    *,
    queries: QuerySet = "qrels",
    depth: int | None = None,
    show: bool | None = None,
) -> pl.DataFrame:
    """Every run joined with the qrels, stacked: ``system, query, doc, score, relevance``.

    Each run keeps the queries of the ``--queries`` rule (as :func:`evaluate_run`:
    under ``trec_eval`` a qrels query the run lacks is an error), so a run that
    misses one of them draws a curve of zeros for it, as it scores 0 in a
    comparison.
    """
    read = []
    with progress("Reading runs", len(run_paths), show=show) as bar:
        for path in run_paths:
            read.append(read_run(path, columns, depth))
            bar.advance()
    names = system_names([name for name, _ in read], run_paths)
    stacked = []
    for name, path, (_, run) in zip(names, run_paths, read, strict=True):
        kept, missing = restrict_qrels(qrels, run.get_column("query").unique(), queries, 1)
        if missing and queries == "trec_eval":
            raise CommandError(f"{path}: {missing_message(missing, '--queries qrels')}")
        joined = judged_rankings(run, kept, every_qrels_query=True)
        stacked.append(joined.select(pl.lit(name).alias("system"), pl.all()))
    return pl.concat(stacked)


def build_chart(args: argparse.Namespace, qrels: pl.DataFrame, run_paths: list[Path]) -> Any:
    """Build the chart the ``plot`` arguments ask for."""
    from polars_rankmetrics.comparisons.plot import pr_curve_chart, query_delta_chart

    run_columns = _columns(args)[1]
    if args.delta is not None:
        per_query = evaluate_runs(
            qrels,
            run_paths,
            [args.delta],
            run_columns,
            args.queries,
            show=False if args.quiet else None,
        )
        measure_columns = [name for name in per_query.columns if name not in ("system", "query")]
        return query_delta_chart(
            per_query,
            metric=args.delta if args.delta in measure_columns else measure_columns[0],
            baseline=args.baseline or per_query["system"][0],
            queries=query_set(qrels, args.queries),
            missing=args.missing,
            title=args.title,
        )
    if args.kind == "exact" and args.per_query is None:
        msg = "--kind exact draws one ranking per curve: add --per-query SYSTEM"
        raise CommandError(msg)
    if args.kind == "interpolated" and args.per_query is None:
        from polars_rankmetrics.comparisons.plot import IPREC, iprec_curves

        per_query = evaluate_runs(
            qrels, run_paths, [IPREC], run_columns, args.queries, depth=args.depth,
            show=False if args.quiet else None,
        )  # fmt: skip
        missing = args.missing if args.queries == "run" else "zero"
        return iprec_curves(per_query, missing=missing, title=args.title)
    rankings = curve_rankings(
        qrels,
        run_paths,
        run_columns,
        queries=args.queries,
        depth=args.depth,
        show=False if args.quiet else None,
    )
    if args.per_query is not None:
        rankings = rankings.filter(pl.col("system") == args.per_query)
        if rankings.is_empty():
            msg = f"--per-query: no run is named {args.per_query!r}"
            raise CommandError(msg)
    return pr_curve_chart(
        rankings,
        by=["score", "doc"],
        kind=args.kind,
        per_query=args.per_query is not None,
        title=args.title,
    )


def run_plot(args: argparse.Namespace) -> int:
    """``rankmetrics plot``: write PR curves or a per-query delta chart to a file."""
    output = Path(args.output)
    if output.suffix.lower() not in _CHART_FORMATS:
        return fail(f"-o: the file name must end in one of {', '.join(_CHART_FORMATS)}")
    try:
        refuse_unused_options(args, "chart")
        qrels_path, run_paths = _paths(args)
        qrels = read_qrels(qrels_path, _columns(args)[0])
        chart = build_chart(args, qrels, run_paths)
    except (CommandError, ValueError) as error:
        return fail(str(error))
    from polars_rankmetrics.comparisons.plot import save_chart

    save_options = {"scale_factor": args.scale} if output.suffix.lower() == ".png" else {}
    try:
        save_chart(chart, output, **save_options)
    except OSError as error:
        return fail(f"cannot write {output}: {error.strerror}")
    return 0


def add_subcommand(subcommands: Any) -> None:
    """Register ``rankmetrics compare`` and ``rankmetrics plot``."""
    compare_parser = subcommands.add_parser(
        "compare",
        help="compare runs: means, confidence intervals and significance tests",
        description=(
            "Evaluate runs and print a results table: the mean of each measure per run, "
            "the best in bold. Without --baseline every pair of runs is tested, as "
            "rm.experiment and ranx.compare do (superscript letters name the runs each is "
            "significantly better than); --baseline NAME tests every run against NAME "
            "(a mark after each mean significantly better (†) or worse (‡) than the "
            "baseline's). "
            "Warns on stderr below 10 paired queries."
        ),
        formatter_class=DefaultsFormatter,
    )
    add_common(compare_parser, "compare")
    add_compare_options(compare_parser)
    compare_parser.set_defaults(run=run_compare)
    remember_defaults(compare_parser)

    plot_parser = subcommands.add_parser(
        "plot",
        help="plot precision-recall curves or per-query differences",
        description=(
            "Draw the runs' 11-point interpolated PR curves (mean over queries), one "
            "run's per-query curves, or per-query differences of a measure to the baseline."
        ),
        formatter_class=DefaultsFormatter,
    )
    add_common(plot_parser, "plot")
    add_plot_options(plot_parser)
    plot_parser.set_defaults(run=run_plot)
    remember_defaults(plot_parser)
