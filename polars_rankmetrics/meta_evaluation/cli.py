"""The ``rankmetrics agree`` and ``rankmetrics repro`` subcommands.

``agree QRELS_A QRELS_B [RUN ...]`` prints the label agreement of two qrels
(Cohen's kappa, Fleiss' kappa, Krippendorff's alpha) and, given runs, how far
the two qrels order the systems alike (Kendall's tau, tau_AP, ...).
``repro ORIG_RUN REPRO_RUN QRELS`` prints repro_eval's measures of a
reproduction. Files are read as :func:`polars_rankmetrics.evaluate` reads them
(TREC, ``.gz``, parquet). Output is tab-separated, one statistic a line; bad
input exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

import polars as pl

_ERRORS = (ValueError, OSError, pl.exceptions.PolarsError, ImportError)


def _fail(error: BaseException) -> int:
    lines = str(error).strip().splitlines() or [type(error).__name__]
    print(f"rankmetrics: error: {lines[0]}", file=sys.stderr)
    return 2


def _value(value: object) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6f}"
    return "" if value is None else str(value)


def _print_rows(frame: pl.DataFrame, *, header: bool = True) -> None:
    if header:
        print("\t".join(frame.columns))
    for row in frame.iter_rows():
        print("\t".join(_value(value) for value in row))


def run_agree(args: argparse.Namespace) -> int:
    """``rankmetrics agree``: label and system-ranking agreement of two qrels."""
    try:
        from polars_rankmetrics.meta_evaluation.agreement import compare_qrels

        runs = list(args.runs)
        if len(runs) == 1:
            msg = "one run only: give at least two runs to compare system orderings"
            raise ValueError(msg)
        report = compare_qrels(args.qrels_a, args.qrels_b, runs or None, measure=args.measure)
    except _ERRORS as error:
        return _fail(error)
    _print_rows(report.summary, header=False)
    if args.per_query:
        print()
        _print_rows(report.per_query)
    if runs:
        print()
        _print_rows(report.systems)
    return 0


def run_repro(args: argparse.Namespace) -> int:
    """``rankmetrics repro``: repro_eval's measures of a reproduction."""
    try:
        from polars_rankmetrics.meta_evaluation.reproducibility import REPRO_MEASURES, reproduce

        measures = tuple(m.strip() for m in args.measures.split(",")) if args.measures else None
        result = reproduce(
            args.qrels,
            args.original,
            args.reproduced,
            measures=measures or REPRO_MEASURES,
            p=args.p,
            depth=args.depth,
        )
    except _ERRORS as error:
        return _fail(error)
    for row in result.summary.iter_rows(named=True):
        print(f"ktu\t{_value(row['ktu'])}")
        print(f"rbo\t{_value(row['rbo'])}")
    print()
    _print_rows(result.per_measure.drop("run"))
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
    )
    agree.add_argument("qrels_a", metavar="QRELS_A", help="the first qrels (e.g. human labels)")
    agree.add_argument("qrels_b", metavar="QRELS_B", help="the second qrels (e.g. LLM labels)")
    agree.add_argument("runs", metavar="RUN", nargs="*", help="runs to order under each qrels")
    agree.add_argument("--measure", default="nDCG@10", help="the measure ordering the systems")
    agree.add_argument("--per-query", action="store_true", help="also print per-query agreement")
    agree.set_defaults(run=run_agree)

    repro = subcommands.add_parser(
        "repro",
        help="reproducibility of a run: KTU, RBO, RMSE, nRMSE, t-tests (repro_eval)",
        description="repro_eval's RpdEvaluator measures between an original and a reproduced run.",
    )
    repro.add_argument("original", metavar="ORIG_RUN", help="the original run")
    repro.add_argument("reproduced", metavar="REPRO_RUN", help="the reproduced run")
    repro.add_argument("qrels", metavar="QRELS", help="the qrels of both")
    repro.add_argument("--measures", help="comma-separated measures (default: repro_eval's 58)")
    repro.add_argument("--p", type=float, default=0.95, help="RBO's persistence")
    repro.add_argument("--depth", type=int, default=1000, help="RBO's and KTU's depth")
    repro.set_defaults(run=run_repro)
