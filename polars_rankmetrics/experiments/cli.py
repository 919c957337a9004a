"""``rankmetrics compare --html report.html``: the experiment's report from the shell.

``rankmetrics compare`` (registered by :mod:`polars_rankmetrics.comparisons.cli`)
gains ``--html FILE``; ``-o FILE.html`` asks for the same report by its suffix.
Then the command is :func:`polars_rankmetrics.experiment`'s shell face: its
options are the call's, under the same names (``--baseline``, ``--test``,
``--correction``, ``--alpha``, ``--queries``, ``--missing``, ``-M/--depth``,
``--n-resamples``, ``--seed``), the runs are evaluated once, the report is
written atomically, and the table on standard output (or ``-o FILE`` by its
suffix: ``.md``, ``.tex``, ``.csv``, ``.json``, ``.parquet``) is the
experiment's. As the command always has, it compares every run with the first
(or ``--baseline``) unless ``--all-pairs``. A report whose folder does not
exist is refused before any run is read. The table's own styling options
(``--format``, ``--markers``, ``--p-values``, ``--ci``, ``--latex-rules``) are
for the table alone and are refused with a report, as are ``--missing`` off
``--queries run`` and ``--seed``/``--n-resamples`` with a test that does not
resample: no option is silently ignored.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from polars_rankmetrics.commands.options import (
    CommandError,
    fail,
    one_stdin,
    refuse_unused,
    remember_defaults,
)
from polars_rankmetrics.comparisons.cli import RESAMPLING_TESTS, parse_columns
from polars_rankmetrics.comparisons.output import warn_if_few_queries

REPORT_SUFFIXES = (".html", ".htm")
"""The suffixes of ``-o`` that ask for the HTML report."""

_TABLE_ONLY = {
    "format": "--format",
    "markers": "--markers",
    "p_values": "--p-values",
    "ci": "--ci",
    "latex_rules": "--latex-rules",
}
"""The plain table's styling options, refused beside the report."""


def report_path(args: argparse.Namespace) -> str | None:
    """The HTML report asked for: ``--html FILE``, or ``-o FILE.html`` without ``--format``."""
    if args.html is not None:
        return str(args.html)
    output = args.output
    if (
        output is not None
        and args.format is None
        and Path(output).suffix.lower() in REPORT_SUFFIXES
    ):
        return str(output)
    return None


def _refuse_unused(args: argparse.Namespace) -> None:
    """Refuse, naming it, an option that would change nothing beside the report."""
    report = (
        "the HTML report (--html, or -o FILE.html): the report and the table beside it "
        "are the experiment's"
    )
    rules = [(flag, dest, True, report) for dest, flag in _TABLE_ONLY.items()]
    resampled = args.test in RESAMPLING_TESTS
    nothing = f"--test {args.test} (nothing is resampled; the report's intervals are Student's t)"
    rules += [
        ("--missing", "missing", args.queries != "run", f"--queries {args.queries} (it is for "
         "--queries run)"),
        ("--n-resamples", "n_resamples", not resampled, nothing),
        ("--seed", "seed", not resampled, nothing),
    ]  # fmt: skip
    refuse_unused(args, rules)


def experiment_from_args(args: argparse.Namespace) -> Any:
    """:func:`polars_rankmetrics.experiment` with the command's options."""
    from polars_rankmetrics.experiments.experiment import experiment
    from polars_rankmetrics.experiments.sources import named_runs

    one_stdin([args.qrels, *args.runs])
    baseline = args.baseline
    if baseline is None and not args.all_pairs:
        baseline = named_runs(list(args.runs))[0].name  # the first run, as the table's default
    correction = args.correction
    if correction is None:
        correction = "none" if args.test.startswith(("tukey", "randomised")) else "holm"
    return experiment(
        args.qrels,
        list(args.runs),
        args.measures,
        baseline=baseline,
        test=args.test,
        correction=None if correction == "none" else correction,
        alpha=args.alpha,
        queries=args.queries,
        missing=args.missing,
        depth=args.depth,
        n_resamples=args.n_resamples,
        seed=args.seed,
        qrels_columns=parse_columns(args.qrels_columns, "--qrels-columns") or None,
        run_columns=parse_columns(args.run_columns, "--run-columns") or None,
    )


def run_report(args: argparse.Namespace, html: str) -> int:
    """Write the report to ``html`` and the experiment's table to standard output or ``-o``."""
    from polars_rankmetrics.experiments.report import check_path

    try:
        _refuse_unused(args)
        check_path(html)  # a missing folder or a wrong suffix: refused before any work
        table = None if args.output in (None, html) else args.output
        if table is not None:
            check_path(table)
        result = experiment_from_args(args)
        warn_if_few_queries(result.summary)
        result.save(html)
        if table is not None:
            result.save(table)
        elif args.output is None:
            print(result.to_markdown())
    except (CommandError, ValueError, OSError) as error:
        return fail(str(error).replace("`path`: ", "--html/-o: "))
    return 0


def add_subcommand(subcommands: Any) -> None:
    """Add ``--html`` to ``rankmetrics compare``, and the report to what it can write."""
    compare = subcommands.choices["compare"]
    compare.add_argument(
        "--html",
        metavar="FILE",
        help="also write the experiment's self-contained HTML report to FILE (atomically; "
        "-o FILE.html does the same); the table beside it is then the experiment's "
        "(default: no report)",
    )
    remember_defaults(compare)  # --html among them
    table_only = compare.get_default("run")

    def run(args: argparse.Namespace) -> int:
        html = report_path(args)
        if html is None:
            exit_code: int = table_only(args)
            return exit_code
        return run_report(args, html)

    compare.set_defaults(run=run)
