"""The ``rankmetrics`` command line: one subcommand a module."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from polars_rankmetrics import demo
from polars_rankmetrics._version import __version__
from polars_rankmetrics.comparisons import cli as compare_cli
from polars_rankmetrics.fusion import cli as fusion_cli
from polars_rankmetrics.meta_evaluation import cli as meta_cli
from polars_rankmetrics.trec import cli as trec_cli


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``rankmetrics``; returns the process exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
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
        return trec_cli.run(arguments[1:])
    parser = argparse.ArgumentParser(
        prog="rankmetrics", description="Ranking metrics as lazy polars expressions."
    )
    parser.add_argument("-V", "--version", action="version", version=f"rankmetrics {__version__}")
    subcommands = parser.add_subparsers(dest="command", required=True)
    # Each module adds its own subcommand and sets `run` as the parser's default.
    for module in (demo, trec_cli, compare_cli, meta_cli, fusion_cli):
        module.add_subcommand(subcommands)
    args = parser.parse_args(arguments)
    exit_code: int = args.run(args)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
