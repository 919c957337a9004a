"""The ``rankmetrics`` command line: one subcommand a module."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from polars_rankmetrics._version import __version__

SUBCOMMANDS = (
    "polars_rankmetrics.demo",
    "polars_rankmetrics.trec.cli",
    "polars_rankmetrics.comparisons.cli",
    "polars_rankmetrics.meta_evaluation.cli",
    "polars_rankmetrics.fusion.cli",
    "polars_rankmetrics.experiments.cli",  # after comparisons.cli: adds --html to compare
)
"""The modules that add a subcommand, in the order of ``--help``; imported when the
command line is parsed, so that ``rankmetrics trec-eval`` imports only its own."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``rankmetrics``; returns the process exit code.

    ``rankmetrics trec-eval`` run as the program (``argv`` None): the objects
    made so far (polars' and ours, tens of thousands) are frozen out of the
    garbage collector, and it does not run while the command works. A
    short-lived command that makes few reference cycles needs neither, and the
    collections cost about 4% of its instructions, mostly the one at exit.
    Called with ``argv`` (tests, notebooks), it leaves the collector alone.
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    if argv is None and arguments[:1] == ["trec-eval"]:
        gc.disable()
        gc.freeze()
    try:
        return _dispatch(arguments)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as a tool killed by SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def _dispatch(arguments: list[str]) -> int:
    if arguments[:1] == ["trec-eval"]:
        # trec_eval's own command line (GNU getopt, not argparse): see trec/options.py.
        from polars_rankmetrics.trec import cli as trec_cli

        return trec_cli.run(arguments[1:])
    args = build_parser().parse_args(arguments)
    exit_code: int = args.run(args)
    return exit_code


def build_parser() -> Any:
    """The ``rankmetrics`` parser with every subcommand (``trec-eval``'s own options aside)."""
    import argparse  # here: trec-eval's start-up does without it

    parser = argparse.ArgumentParser(
        prog="rankmetrics", description="Ranking metrics as lazy polars expressions."
    )
    parser.add_argument("-V", "--version", action="version", version=f"rankmetrics {__version__}")
    subcommands = parser.add_subparsers(dest="command", required=True)
    # Each module adds its own subcommand and sets `run` as the parser's default.
    for name in SUBCOMMANDS:
        importlib.import_module(name).add_subcommand(subcommands)
    return parser


if __name__ == "__main__":
    sys.exit(main())
