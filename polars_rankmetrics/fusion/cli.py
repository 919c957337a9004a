"""The ``rankmetrics fuse`` subcommand: fuse run files into one, written whole or not at all.

The runs are TREC run files (plain, ``.gz``, with or without a header line)
or parquet files with the usual column names, read as every subcommand reads
them (:mod:`polars_rankmetrics.commands.reading`). The fused run is written as a
TREC run (``query Q0 doc rank score run_id``, ranks from 1 in score order) or,
for a ``.parquet``/``.pq`` path, as parquet (``query, doc, score``); ``-``
writes the TREC run to standard output. ``--optimize QRELS`` first searches
ranx's grid for the method's weights or parameter (``--metric``), prints the
best values on stderr (unless ``--quiet``), and fuses with them. ``-M/--depth N``
keeps the fused run's top ``N`` documents per query (trec_eval's order), so that
the union of the inputs compares with inputs cut to ``N``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import polars as pl

from polars_rankmetrics._atomic import replacing
from polars_rankmetrics.commands.options import (
    CommandError,
    DefaultsFormatter,
    add_shared_options,
    fail,
    refuse_unused,
    remember_defaults,
)
from polars_rankmetrics.fusion.batched import PARQUET_SUFFIXES, sink_fused, sink_one, trec_lines
from polars_rankmetrics.fusion.fuse import NORMALIZATIONS, TRAINED, fuse
from polars_rankmetrics.fusion.methods import METHODS


def _number(text: str, option: str) -> float:
    try:
        value = float(text)
    except ValueError:
        msg = f"{option} must be numbers, got {text!r}"
        raise CommandError(msg) from None
    return int(value) if value.is_integer() and "." not in text else value


def parse_params(items: list[str] | None) -> dict[str, float]:
    """``--param k=60 --param phi=0.8`` as a mapping."""
    params: dict[str, float] = {}
    for item in items or []:
        name, equals, value = item.partition("=")
        if not name or not equals or not value:
            msg = f"--param must be name=value, got {item!r}"
            raise CommandError(msg)
        params[name.strip()] = _number(value.strip(), "--param")
    return params


def parse_weights(text: str | None) -> list[float] | None:
    """``--weights 0.3,0.7`` as a list, in the order of the runs."""
    if text is None:
        return None
    return [float(_number(part.strip(), "--weights")) for part in text.split(",")]


def write_fused(fused: pl.DataFrame | pl.LazyFrame, output: str, run_id: str) -> None:
    """Write the fused run to ``output`` (TREC, or parquet by extension) through a rename."""
    lazy = fused.lazy()
    if output == "-":
        text = trec_lines(lazy, run_id).collect().write_csv(separator=" ", include_header=False)
        sys.stdout.write(text)
        return
    path = Path(output)
    if not path.parent.is_dir():
        msg = f"cannot write {output}: no such folder {str(path.parent)!r}"
        raise CommandError(msg)
    with replacing(path) as temporary:
        sink_one(lazy, temporary, run_id, parquet=path.suffix.lower() in PARQUET_SUFFIXES)


def run_fuse(args: argparse.Namespace) -> int:
    """``rankmetrics fuse``: fuse the runs and write the result."""
    try:
        parquet = Path(args.output).suffix.lower() in PARQUET_SUFFIXES
        refuse_unused(
            args,
            [
                ("--metric", "metric", args.optimize is None, "no --optimize (it is what "
                 "--optimize maximises)"),
                ("--run-id", "run_id", parquet, "a parquet output (it has no run id column)"),
                ("--queries", "queries", args.optimize is None, "no --optimize (it is the "
                 "query set of --optimize's means)"),
            ],
        )  # fmt: skip
        runs = [str(path) for path in args.runs]
        for path in runs:
            if path != "-" and not Path(path).is_file():
                msg = f"run file not found: {path}"
                raise CommandError(msg)
        weights = parse_weights(args.weights)
        params: dict[str, Any] = parse_params(args.param)
        norm = None if args.norm == "none" else args.norm
        if args.optimize is not None:
            from polars_rankmetrics.fusion.optimize import optimize_fusion

            if weights is not None:
                msg = "--optimize searches the weights: drop --weights"
                raise CommandError(msg)
            best = optimize_fusion(
                args.optimize,
                runs,
                method=args.method,
                norm=norm,
                metric=args.metric,
                queries=args.queries,
            )
            assert isinstance(best, dict)
            shown = ", ".join(f"{name}={value}" for name, value in best.items())
            if not args.quiet:
                print(f"rankmetrics: best {shown} (mean {args.metric})", file=sys.stderr)
            weights = best.pop("weights", None)
            params.update(best)
        if args.train_qrels is not None:
            params["train_qrels"] = args.train_qrels
        run_id = args.run_id or args.method
        if args.batch_rows is not None and args.output != "-":
            if args.depth is not None:
                msg = "--depth cannot be used with --batch-rows: cut the batched run afterwards"
                raise CommandError(msg)
            folder = Path(args.output).parent
            if not folder.is_dir():
                msg = f"cannot write {args.output}: no such folder {str(folder)!r}"
                raise CommandError(msg)
            sink_fused(
                runs, args.output, method=args.method, norm=norm, weights=weights,
                run_id=run_id, batch_rows=args.batch_rows, **params,
            )  # fmt: skip
            return 0
        fused = fuse(
            runs, method=args.method, norm=norm, weights=weights, depth=args.depth, **params
        )
        write_fused(fused, args.output, run_id)
    except (CommandError, ValueError, OSError, pl.exceptions.PolarsError) as error:
        return fail(error if str(error) else type(error).__name__)
    return 0


def add_subcommand(subcommands: Any) -> None:
    """Register ``rankmetrics fuse``."""
    parser = subcommands.add_parser(
        "fuse",
        help="fuse runs into one (RRF, CombSUM, CombMNZ, weighted sums, ...)",
        description=(
            "Fuse run files (TREC or parquet) with one of ranx's methods and "
            "normalisations, and write the fused run (TREC, or parquet by extension)."
        ),
        formatter_class=DefaultsFormatter,
    )
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN", help="run files to fuse")
    parser.add_argument(
        "--method",
        default="rrf",
        choices=[*METHODS, *TRAINED],
        help="fusion method (rm.fuse's default too)",
    )
    parser.add_argument(
        "--norm",
        default="min-max",
        choices=NORMALIZATIONS,
        help="normalisation of each run's scores per query (rank-based methods such as rrf "
        "use ranks, not scores)",
    )
    parser.add_argument(
        "--weights",
        help="one weight per run, comma-separated, e.g. 0.3,0.7 "
        "(default: none; the weighted methods need them)",
    )
    parser.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="a method parameter: k (rrf), phi (rbc), gamma (gmnz), sigma (logn_isr), "
        "n_segments (probfuse), w (slidefuse); repeatable (default: ranx's values, "
        "e.g. k=60)",
    )
    parser.add_argument(
        "--train-qrels",
        help="qrels to train probfuse, segfuse, ... on (default: none; the trained methods "
        "need them)",
    )
    parser.add_argument(
        "--optimize",
        metavar="QRELS",
        help="search ranx's grid of weights or parameter first (default: no search)",
    )
    parser.add_argument(
        "--metric",
        default="ndcg",
        help="the measure whose mean over the qrels' queries --optimize maximises; ndcg is "
        "over the whole fused run (give a cutoff, e.g. ndcg@10, to optimise the top)",
    )
    parser.add_argument("--run-id", help="the run id written in a TREC run (default: method)")
    parser.add_argument(
        "--batch-rows",
        type=int,
        metavar="N",
        help="fuse the queries in batches of about N input rows: bounded memory for big runs "
        "(file outputs; - writes the fusion whole; default: all at once)",
    )
    add_shared_options(
        parser,
        "fuse",
        helps={
            "output": "the fused run: a TREC file, parquet for .parquet/.pq, or - for stdout",
            "depth": "keep the fused run's top N documents per query (trec_eval's order)",
            "quiet": "no message on standard error but errors (the best values of --optimize)",
            "queries": "the queries --optimize's means cover, as rankmetrics compare --queries",
        },
    )
    parser.set_defaults(run=run_fuse)
    remember_defaults(parser)
