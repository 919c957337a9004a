"""``rankmetrics trec-eval``: trec_eval's command line, output and numbers.

The same command lines as trec_eval 10 (``-q``, ``-c``, ``-M N``, ``-l N``,
``-m measure[.params]`` repeated, ``-m all_trec``, then the qrels and run
files) print the same bytes. ``--format json|csv|parquet`` writes a table
instead: one row per query (with ``-q``) and a row ``all``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import polars as pl

from polars_rankmetrics.measures import Column
from polars_rankmetrics.measures.trec_names import FAMILY_ORDER, NICKNAMES, split_trec_name
from polars_rankmetrics.trec.evaluate import Evaluation, evaluate


def requested_measures(options: list[str] | None) -> tuple[list[str], bool]:
    """Return the measure names to compute, in trec_eval's order, and whether runid is wanted.

    trec_eval computes its measures in a fixed order whatever the order on the
    command line, and the first parameters given for a measure win. Names that
    are not trec_eval's (``nDCG@10``) follow, in the order given.
    """
    parameters: dict[str, str | None] = {}
    others: list[str] = []
    for option in options or ["official"]:
        if option in NICKNAMES:
            for member in NICKNAMES[option]:
                parameters.setdefault(member, None)
            continue
        split = split_trec_name(option)
        if split is None:
            if option not in others:
                others.append(option)
            continue
        family, params, single = split
        if single:
            if option not in others:
                others.append(option)
            continue
        if parameters.get(family) is None:
            parameters[family] = params
    families = sorted(parameters, key=FAMILY_ORDER.__getitem__)
    names = [
        family if parameters[family] is None else f"{family}.{parameters[family]}"
        for family in families
        if family != "runid"
    ]
    return names + others, "runid" in parameters


def _value(column: Column, value: Any) -> str:
    if column.dtype == pl.String:
        return f"'{value}'"
    if column.measure.integer:
        return f"{int(value)}"
    return f"{value:6.4f}"


def _line(name: str, query: str, text: str) -> str:
    return f"{name:<22}\t{query}\t{text}\n"


def trec_eval_text(
    result: Evaluation, *, per_query: bool, runid: bool, summary: bool = True
) -> str:
    """Format ``result`` exactly as trec_eval prints it."""
    lines: list[str] = []
    shown = [m for m in result.measures if m.measure.per_query]
    if per_query:
        for row in result.per_query.iter_rows(named=True):
            query = row["query"]
            lines.extend(_line(m.name, query, _value(m, row[m.name])) for m in shown)
    if summary:
        if runid:
            lines.append(_line("runid", "all", result.run_id))
        totals = result.aggregate.row(0, named=True)
        lines.extend(
            _line(m.name, "all", _value(m, totals[m.name]))
            for m in result.measures
            if m.measure.summary != "none"
        )
    return "".join(lines)


def trec_eval_table(result: Evaluation, *, per_query: bool, runid: bool) -> pl.DataFrame:
    """Return ``result`` as one table: a row per query (if wanted), then a row ``all``."""
    overall = result.aggregate.with_columns(pl.lit("all").alias("query"))
    parts = [result.per_query, overall] if per_query else [overall]
    table = pl.concat(parts, how="diagonal_relaxed")
    columns = ["query", *dict.fromkeys(m.name for m in result.measures if m.name in table.columns)]
    table = table.select(columns)
    if runid:
        table = table.with_columns(pl.lit(result.run_id).alias("runid"))
    return table


def _write(table: pl.DataFrame, fmt: str, output: Path | None) -> None:
    if fmt == "parquet":
        if output is None:
            table.write_parquet(sys.stdout.buffer)
        else:
            table.write_parquet(output)
        return
    text = table.write_json() if fmt == "json" else table.write_csv()
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        output.write_text(text)


def run(args: argparse.Namespace) -> int:
    """Evaluate and print, as trec_eval does; returns the exit code."""
    names, runid = requested_measures(args.measure)
    try:
        result = evaluate(
            args.qrels_file,
            args.run_file,
            names,
            complete=args.complete,
            max_per_query=args.max_per_query,
            relevance_level=args.level,
        )
    except (ValueError, FileNotFoundError) as error:
        print(f"rankmetrics trec-eval: {error}", file=sys.stderr)
        return 2
    if args.format == "trec":
        text = trec_eval_text(result, per_query=args.query, runid=runid, summary=not args.nosummary)
        if args.output is None:
            sys.stdout.write(text)
        else:
            args.output.write_text(text)
    else:
        _write(trec_eval_table(result, per_query=args.query, runid=runid), args.format, args.output)
    return 0


def add_subcommand(subcommands: Any) -> None:
    """Register ``rankmetrics trec-eval``."""
    parser = subcommands.add_parser(
        "trec-eval",
        help="evaluate a TREC run against qrels, as trec_eval does",
        description="Evaluate a TREC run against qrels, with trec_eval 10's flags and output.",
    )
    parser.add_argument("-q", dest="query", action="store_true", help="also print each query")
    parser.add_argument(
        "-c",
        dest="complete",
        action="store_true",
        help="average over every qrels query; queries missing from the run score 0",
    )
    parser.add_argument(
        "-M",
        dest="max_per_query",
        type=int,
        default=None,
        metavar="N",
        help="evaluate only the first N documents of each query",
    )
    parser.add_argument(
        "-l",
        dest="level",
        type=int,
        default=1,
        metavar="N",
        help="the lowest relevance level that counts as relevant (default 1)",
    )
    parser.add_argument(
        "-m",
        dest="measure",
        action="append",
        metavar="MEASURE[.PARAMS]",
        help="a trec_eval or ir_measures measure, or a set: official (default), all_trec, set",
    )
    parser.add_argument("-n", dest="nosummary", action="store_true", help="no summary lines")
    parser.add_argument(
        "--format",
        choices=["trec", "json", "csv", "parquet"],
        default="trec",
        help="trec_eval's text (default), or a table",
    )
    parser.add_argument("-o", "--output", type=Path, default=None, help="write here, not stdout")
    parser.add_argument("qrels_file", metavar="qrels", help="the qrels file")
    parser.add_argument("run_file", metavar="run", help="the run file")
    parser.set_defaults(run=run)
