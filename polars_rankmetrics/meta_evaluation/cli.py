"""The ``rankmetrics agree`` and ``rankmetrics repro`` subcommands.

``agree QRELS_A QRELS_B [RUN ...]`` prints the label agreement of two qrels
(Cohen's kappa, Fleiss' kappa, Krippendorff's alpha) and, given runs, how far
the two qrels order the systems alike (Kendall's tau, tau_AP, ...), the systems
ordered by ``--measure`` (nDCG@10 by default, stated in the output) and named
by their run ids. ``repro QRELS ORIG_RUN REPRO_RUN`` prints repro_eval's
measures of a reproduction (the qrels first, as in every subcommand). Files
are read as every subcommand reads them (:mod:`polars_rankmetrics.commands.reading`).
Output is tab-separated, one statistic a line, counts as integers; ``-o FILE``
writes it atomically. Bad input exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import polars as pl

from polars_rankmetrics.commands.options import (
    CommandError,
    DefaultsFormatter,
    add_shared_options,
    fail,
    format_by_suffix,
    queries_phrase,
)
from polars_rankmetrics.comparisons.output import OutputError, deliver

_ERRORS = (ValueError, OSError, pl.exceptions.PolarsError, ImportError, CommandError, OutputError)

TEXT_SUFFIXES = {".tsv": "text", ".txt": "text"}
"""What ``-o`` writes for ``agree`` and ``repro``: the tab-separated text."""

COUNTS = ("common_pairs", "only_in_a", "only_in_b", "n_systems")
"""The statistics that are counts: printed as integers."""


def _value(value: object) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6f}"
    return "" if value is None else str(value)


def _rows(frame: pl.DataFrame, *, header: bool = True) -> list[str]:
    lines = ["\t".join(frame.columns)] if header else []
    lines += ["\t".join(_value(value) for value in row) for row in frame.iter_rows()]
    return lines


def _summary_lines(summary: pl.DataFrame) -> list[str]:
    lines = []
    for statistic, value in summary.iter_rows():
        is_count = statistic in COUNTS or statistic.endswith("n_systems")
        shown = str(int(value)) if is_count and not math.isnan(value) else _value(value)
        lines.append(f"{statistic}\t{shown}")
    return lines


def _system_rows(
    args: argparse.Namespace, runs: list[Any], qrels_a: Any, qrels_b: Any
) -> tuple[pl.DataFrame, list[tuple[str, float]]]:
    """Each run's mean ``--measure`` under each qrels, and the orderings' correlations.

    The means cover the ``--queries`` set; the correlations are those
    :func:`.compare_qrels` computes.
    """
    from polars_rankmetrics.evaluation.evaluate import evaluate
    from polars_rankmetrics.meta_evaluation.systems import ranking_agreement

    rows = []
    for run in runs:
        first = evaluate(qrels_a, run.frame, [args.measure], queries=args.queries)
        second = evaluate(qrels_b, run.frame, [args.measure], queries=args.queries)
        rows.append(
            (
                run.name,
                float(first.aggregate.item(0, 0)),
                float(second.aggregate.item(0, 0)),
                first.n_queries,
                second.n_queries,
            )
        )
    schema = {
        "system": pl.String,
        "score_a": pl.Float64,
        "score_b": pl.Float64,
        "n_queries_a": pl.Int64,
        "n_queries_b": pl.Int64,
    }
    systems = pl.DataFrame(rows, schema=schema, orient="row")
    # tau_AP is undefined where two systems tie under either qrels: the other
    # correlations are still printed, and the rows say which systems tied.
    tied = any(systems[column].n_unique() < systems.height for column in ("score_a", "score_b"))
    ranking = ranking_agreement(systems["score_a"], systems["score_b"], tau_ap=not tied)
    return systems, [(f"systems_{name}", value) for name, value in ranking.items()]


def _tie_note(systems: pl.DataFrame) -> list[str]:
    """A line per qrels under which two systems tie: tau_AP is not printed then."""
    notes = []
    for column, label in (("score_a", "A"), ("score_b", "B")):
        tied = systems.filter(pl.col(column).is_duplicated())["system"].to_list()
        if tied:
            notes.append(f"# tau_ap undefined: systems tie under qrels {label}: {', '.join(tied)}")
    return notes


def run_agree(args: argparse.Namespace) -> int:
    """``rankmetrics agree``: label and system-ranking agreement of two qrels."""
    from polars_rankmetrics.commands.reading import read_qrels, read_runs

    try:
        format_by_suffix(args.output, TEXT_SUFFIXES, "text")
        from polars_rankmetrics.meta_evaluation.agreement import compare_qrels

        if len(args.runs) == 1:
            msg = "one run only: give at least two runs to compare system orderings"
            raise ValueError(msg)
        first, second = read_qrels(args.qrels_a), read_qrels(args.qrels_b)
        report = compare_qrels(first, second)
        runs = read_runs(args.runs, depth=args.depth, show=False if args.quiet else None)
        summary = report.summary
        if runs:
            systems, ranking = _system_rows(args, runs, first, second)
            summary = pl.concat(
                [summary, pl.DataFrame(ranking, schema=summary.schema, orient="row")]
            )
        lines = [*_summary_lines(summary), f"queries\t{report.per_query.height}"]
        if args.per_query:
            lines += ["", *_rows(report.per_query)]
        if runs:
            note = (
                f"# systems ordered by the mean {args.measure} under each qrels, over "
                f"--queries {args.queries} (n_queries_a, n_queries_b)"
            )
            lines += ["", note, *_rows(systems), *_tie_note(systems)]
        deliver("\n".join(lines), args.output)
    except _ERRORS as error:
        return fail(error)
    return 0


def _qrels_first(path: str) -> pl.DataFrame:
    """Read ``repro``'s first operand as qrels; a run there is the old order: say so."""
    from polars_rankmetrics.commands.reading import read_qrels

    try:
        return read_qrels(path)
    except ValueError as error:
        if "did you swap" not in str(error):
            raise
        msg = (
            f"repro takes the qrels first: rankmetrics repro QRELS ORIG_RUN REPRO_RUN "
            f"({path} is a run: the qrels no longer come last)"
        )
        raise CommandError(msg) from None


def run_repro(args: argparse.Namespace) -> int:
    """``rankmetrics repro``: repro_eval's measures of a reproduction."""
    try:
        format_by_suffix(args.output, TEXT_SUFFIXES, "text")
        from polars_rankmetrics.meta_evaluation.reproducibility import REPRO_MEASURES, reproduce

        qrels = _qrels_first(args.qrels)
        measures = tuple(m.strip() for m in args.measures.split(",")) if args.measures else None
        result = reproduce(
            qrels,
            args.original,
            args.reproduced,
            measures=measures or REPRO_MEASURES,
            p=args.p,
            depth=args.depth,
            trim=args.depth,
        )
        n_queries = result.per_topic.get_column("query").n_unique()
        lines = []
        for row in result.summary.iter_rows(named=True):
            lines += [f"ktu\t{_value(row['ktu'])}", f"rbo\t{_value(row['rbo'])}"]
        lines += [f"queries\t{n_queries}", "", *_rows(result.per_measure.drop("run"))]
        lines.append(f"# means and t-tests over {queries_phrase(n_queries)}, depth {args.depth}")
        deliver("\n".join(lines), args.output)
    except _ERRORS as error:
        return fail(error)
    return 0


def add_subcommand(subcommands: Any) -> None:
    """Register ``rankmetrics agree`` and ``rankmetrics repro``."""
    agree = subcommands.add_parser(
        "agree",
        help="agreement of two qrels: kappas, alpha, and system-ranking tau with runs",
        description=(
            "Compare two sets of relevance labels on their common (query, doc) pairs "
            "(Cohen's kappa unweighted/linear/quadratic, Fleiss' kappa, Krippendorff's "
            "alpha); with two or more runs, also the correlation of the system orderings."
        ),
        formatter_class=DefaultsFormatter,
    )
    agree.add_argument("qrels_a", metavar="QRELS_A", help="the first qrels (e.g. human labels)")
    agree.add_argument("qrels_b", metavar="QRELS_B", help="the second qrels (e.g. LLM labels)")
    agree.add_argument("runs", metavar="RUN", nargs="*", help="runs to order under each qrels")
    agree.add_argument(
        "--measure", default="nDCG@10", help="the measure whose means order the systems"
    )
    agree.add_argument("--per-query", action="store_true", help="also print per-query agreement")
    add_shared_options(
        agree,
        "agree",
        helps={
            "output": "write the report to FILE (.tsv or .txt), atomically",
            "depth": "keep each run's top N documents per query before evaluating it",
            "queries": "the queries of each run's means under each qrels, as rankmetrics "
            "compare --queries (run: the queries of the run each qrels judges, as "
            "rm.compare_qrels)",
        },
    )
    agree.set_defaults(run=run_agree)

    repro = subcommands.add_parser(
        "repro",
        help="reproducibility of a run: KTU, RBO, RMSE, nRMSE, t-tests (repro_eval)",
        description=(
            "repro_eval's RpdEvaluator measures between an original and a reproduced run; "
            "the qrels come first, as in every subcommand."
        ),
        formatter_class=DefaultsFormatter,
    )
    repro.add_argument("qrels", metavar="QRELS", help="the qrels of both")
    repro.add_argument("original", metavar="ORIG_RUN", help="the original run")
    repro.add_argument("reproduced", metavar="REPRO_RUN", help="the reproduced run")
    repro.add_argument("--measures", help="comma-separated measures (default: repro_eval's 58)")
    repro.add_argument("--p", type=float, default=0.95, help="RBO's persistence")
    add_shared_options(
        repro,
        "repro",
        helps={
            "output": "write the report to FILE (.tsv or .txt), atomically",
            "depth": "keep each run's top N documents per query; RBO's and KTU's depth",
        },
    )
    repro.set_defaults(run=run_repro)
