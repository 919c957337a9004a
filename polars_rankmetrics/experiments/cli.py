"""``rankmetrics compare --html report.html``: the experiment's report from the shell.

``rankmetrics compare`` (registered by :mod:`polars_rankmetrics.comparisons.cli`)
gains ``--html FILE``; ``-o FILE.html`` asks for the same report by its suffix.
Then the command is :func:`polars_rankmetrics.experiment`'s shell face: its
options are the call's, under the same names (``--baseline``, ``--test``,
``--correction``, ``--alpha``, ``--queries``, ``--missing``, ``-M/--depth``,
``--n-resamples``, ``--seed``), the runs are evaluated once, the report is
written atomically, and the table on standard output (or ``-o FILE`` by its
suffix: ``.md``, ``.tex``, ``.csv``, ``.json``, ``.parquet``) is the
experiment's. As the call, it tests every pair of runs without ``--baseline``
and every run against ``--baseline NAME`` with it. A report whose folder does not
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

EXPERIMENT_PARAMETERS = {
    "measures": ("-m MEASURE", "measures"),
    "baseline": ("--baseline NAME", "baseline"),
    "test": ("--test", "test"),
    "correction": ("--correction", "correction"),
    "alpha": ("--alpha", "alpha"),
    "queries": ("--queries", "queries"),
    "missing": ("--missing", "missing"),
    "depth": ("-M/--depth N", "depth"),
    "n_resamples": ("--n-resamples", "n_resamples"),
    "seed": ("--seed", "seed"),
    "qrels_columns": ("--qrels-columns", "qrels_columns"),
    "run_columns": ("--run-columns", "run_columns"),
}
"""``compare``'s options that are :func:`polars_rankmetrics.experiment`'s parameters:
destination → (spelling, parameter). Each default is the parameter's (a test checks it
against the signature); ``docs/guide/cli.md`` prints :func:`experiment_table`."""

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


def resolved_correction(test: str, correction: str | None) -> str | None:
    """``--correction`` as ``rm.experiment`` takes it: unset, its default (holm).

    Unset with a Tukey test (which holds the family-wise error rate itself), none.
    """
    if correction is None:
        correction = "none" if test.startswith(("tukey", "randomised")) else "holm"
    return None if correction == "none" else correction


def experiment_table() -> str:
    """``compare``'s options beside ``rm.experiment``'s parameters, with the one default."""
    import inspect

    from polars_rankmetrics.experiments.experiment import experiment

    parameters = inspect.signature(experiment).parameters
    rows = ["| option | `rm.experiment` parameter | default |", "| --- | --- | --- |"]
    for spelling, name in EXPERIMENT_PARAMETERS.values():
        default = parameters[name].default
        shown = "required" if default is inspect.Parameter.empty else f"`{default!r}`"
        if name == "baseline":
            shown += " (every pair is tested)"
        elif name == "correction":
            shown += " (`None` for the Tukey tests: the command chooses it, the call needs it)"
        rows.append(f"| `{spelling}` | `{name}` | {shown} |")
    return "\n".join(rows)


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

    one_stdin([args.qrels, *args.runs])
    return experiment(
        args.qrels,
        list(args.runs),
        args.measures,
        baseline=args.baseline,
        test=args.test,
        correction=resolved_correction(args.test, args.correction),
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
