"""The shared options, added to a subcommand's parser from the one defaults table.

:func:`add_shared_options` adds ``--queries``, ``-M/--depth``, ``-o/--output``
and ``-q/--quiet`` with the defaults of :data:`.defaults.DEFAULTS`; an option
the subcommand refuses is still accepted by the parser, and then stops it with
an error naming both (``--queries cannot be used with fuse: ...``), so that no
option is silently ignored. :class:`DefaultsFormatter` shows every option's
default in ``--help``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from polars_rankmetrics.commands.defaults import (
    QUERY_RULES,
    SHARED_OPTIONS,
    Default,
    Refused,
    entry,
    refusal,
)


class CommandError(Exception):
    """A problem with a command's inputs or options, reported as one line on stderr."""


def fail(message: object) -> int:
    """Print ``rankmetrics: error: <first line of message>`` on stderr; the exit status 2."""
    lines = str(message).strip().splitlines() or [type(message).__name__]
    print(f"rankmetrics: error: {lines[0]}", file=sys.stderr)
    return 2


class DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Show each option's default: its value, ``off`` for a flag, or the help's own words.

    An option without a default value (None) says in its help what happens
    without it (``(default: the first run)``); a test checks every subcommand's.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "default" in text or action.default is None or action.help == argparse.SUPPRESS:
            return action.help
        if action.default is False:
            return f"{text} (default: off)"
        return super()._get_help_string(action)


def positive_int(text: str) -> int:
    """An argparse type: an integer above 0."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        msg = f"must be a positive integer, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


QUERIES_HELP = (
    "the queries averaged, as rankmetrics trec-eval --queries: trec_eval (the qrels' "
    "queries; a run missing one is an error, as in trec_eval 10), qrels (a missing "
    "query scores 0, trec_eval -c), relevant (the qrels' queries with a relevant "
    "document, missing ones 0), run (each run's judged queries)"
)


class _Refuse(argparse.Action):
    """A shared option this subcommand cannot use: an error naming both, never ignored."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        subcommand = parser.prog.split()[-1]
        parser.error(refusal(subcommand, self.dest))


def _flags(option: str) -> list[str]:
    return {
        "queries": ["--queries"],
        "depth": ["-M", "--depth"],
        "output": ["-o", "--output"],
        "quiet": ["-q", "--quiet"],
    }[option]


def add_shared_options(
    parser: argparse.ArgumentParser,
    subcommand: str,
    *,
    helps: Mapping[str, str] | None = None,
) -> None:
    """Add the shared options to ``subcommand``'s parser, with the table's defaults.

    ``helps`` words an option's help for this subcommand (what ``-o`` writes,
    what the depth cuts); the default comes from the table either way.
    """
    helps = helps or {}
    for option in SHARED_OPTIONS:
        found = entry(subcommand, option)
        flags = _flags(option)
        if isinstance(found, Refused):
            nargs = 0 if option == "quiet" else None
            parser.add_argument(
                *flags,
                dest=option,
                action=_Refuse,
                nargs=nargs,
                default=None,
                help=f"refused here: {found.reason}",
            )
            continue
        _add_taken(parser, option, flags, found, helps.get(option))


def _add_taken(
    parser: argparse.ArgumentParser,
    option: str,
    flags: list[str],
    found: Default,
    text: str | None,
) -> None:
    shown = "" if option == "quiet" else f" (default: {found.shown})"
    if option == "queries":
        parser.add_argument(
            *flags,
            choices=list(QUERY_RULES),
            default=found.value,
            help=(text or QUERIES_HELP) + shown,
        )
    elif option == "depth":
        parser.add_argument(
            *flags,
            dest="depth",
            type=positive_int,
            metavar="N",
            default=found.value,
            help=(text or "keep each run's top N documents per query (trec_eval's -M)") + shown,
        )
    elif option == "output":
        required = found.shown.startswith("required")
        parser.add_argument(
            *flags,
            dest="output",
            metavar="FILE",
            required=required,
            default=found.value,
            help=(text or "write to FILE, the format by its suffix") + shown,
        )
    else:
        parser.add_argument(
            *flags,
            dest="quiet",
            action="store_true",
            help=(
                text
                or "no progress bar (it is drawn on standard error only when that is a terminal)"
            )
            + shown,
        )


def remember_defaults(parser: argparse.ArgumentParser) -> None:
    """Keep the parser's option defaults in its namespace, for :func:`refuse_unused`."""
    defaults = {a.dest: a.default for a in parser._actions if a.option_strings}
    parser.set_defaults(option_defaults=defaults)


def given(args: argparse.Namespace, dest: str) -> bool:
    """Whether the option ``dest`` was given a value other than its default."""
    defaults: dict[str, object] = getattr(args, "option_defaults", {})
    return dest in defaults and getattr(args, dest) != defaults[dest]


def refuse_unused(args: argparse.Namespace, rules: Sequence[tuple[str, str, bool, str]]) -> None:
    """Refuse an option given where it would change nothing: ``FLAG cannot be used with ...``.

    Each rule is ``(flag, dest, unused, what)``: when ``unused`` and the option
    was given (:func:`given`), the error names the option and ``what`` makes it
    unused, so that no option is silently ignored.
    """
    for flag, dest, unused, what in rules:
        if unused and given(args, dest):
            msg = f"{flag} cannot be used with {what}"
            raise CommandError(msg)


def format_by_suffix(output: str | None, formats: Mapping[str, str], default: str) -> str:
    """The format ``-o FILE``'s suffix stands for (``default`` without ``-o`` or for ``-``)."""
    if output is None or output == "-":
        return default
    suffix = Path(output).suffix.lower()
    if suffix not in formats:
        msg = (
            f"-o {output}: cannot tell the format from the suffix {suffix or '(none)'!r}; "
            f"use one of {', '.join(formats)}"
        )
        raise CommandError(msg)
    return formats[suffix]


def count(value: object) -> str:
    """A count as an integer (``45945``, never ``45945.000000``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def queries_phrase(n_queries: int) -> str:
    """``1 query``, ``44 queries``."""
    return f"{n_queries} {'query' if n_queries == 1 else 'queries'}"


def one_stdin(paths: Sequence[str]) -> None:
    """Refuse two inputs read from standard input."""
    if list(paths).count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CommandError(msg)
