"""trec_eval's command line: its options, read as ``getopt_long`` reads them, and ``-m``.

:func:`parse_command_line` reads the options in order, with their immediate
effects: ``-v`` exits at once and an unknown measure name exits 1 where it
stands (:func:`mark_measure`, which also accepts the other tools' names as this
library's extension). What the options ask for is a :class:`Settings`; where
trec_eval would stop, :class:`Finished` carries its message and exit status.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from polars_rankmetrics._version import __version__
from polars_rankmetrics.measures.trec_names import (
    BY_NAME,
    LONG_MAX,
    NICKNAMES,
    PREFERENCE_MEASURES,
    PREFERENCE_NICKNAMES,
    c_atol,
)
from polars_rankmetrics.trec.getopt import GetoptError, LongOption, Parsed, getopt_long

SHORT_OPTIONS = "hvqm:cl:nD:JN:M:R:T:oZ:"
"""trec_eval's option letters (``getopt_long``'s string)."""

LONG_OPTIONS = (
    LongOption("help", False, "h"),
    LongOption("version", False, "v"),
    LongOption("query_eval_wanted", False, "q"),
    LongOption("measure", True, "m"),
    LongOption("complete_rel_info_wanted", False, "c"),
    LongOption("level_for_rel", True, "l"),
    LongOption("nosummary", False, "n"),
    LongOption("Debug_level", True, "D"),
    LongOption("Judged_docs_only", False, "J"),
    LongOption("Number_docs_in_coll", True, "N"),
    LongOption("Max_retrieved_per_topic", True, "M"),
    LongOption("Rel_info_format", True, "R"),
    LongOption("Results_format", True, "T"),
    LongOption("Output_old_results_format", True, "o"),
    LongOption("Zscore", True, "Z"),
    # This library's own: a table instead of trec_eval's text.
    LongOption("output", True, "O"),
    LongOption("format", True, "F"),
)

USAGE = """\
Usage: rankmetrics trec-eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file
   -h: full help, with the other options and every measure
   -q: also print each query's values, not only the summary
   -m: compute and print this measure (repeatable; '-m official' is the default,
       '-m all_trec' is every measure of a qrels file)
"""


class Finished(Exception):
    """The command ends here: a message for standard error, an exit status, the output so far."""

    def __init__(self, status: int, message: str = "", lines: list[str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.lines = lines or []


@dataclass
class Settings:
    """What the command line asks for."""

    query: bool = False
    complete: bool = False
    level: int = 1
    summary: bool = True
    debug_query: str | None = None
    judged_only: bool = False
    collection_size: int = 0
    max_per_query: int = LONG_MAX
    rel_format: str = "qrels"
    results_format: str = "trec_results"
    zscores: str | None = None
    help: bool = False
    output: str | None = None
    format: str | None = None
    queries: str | None = None
    marked: set[str] = field(default_factory=set)
    arguments: list[tuple[str, str]] = field(default_factory=list)
    extensions: list[str] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)


def _is_extension(name: str) -> bool:
    """Whether ``name`` is another tool's spelling (``nDCG@10``), this library's extension."""
    # The other tools' grammars load only for a name trec_eval does not know.
    from polars_rankmetrics.measures.resolve import resolve

    try:
        parsed = resolve(name, ("ir_measures", "ranx", "peers"))
    except ValueError:
        return False
    return parsed is not None


def mark_measure(settings: Settings, text: str) -> None:
    """``-m text``: mark a measure or a nickname, keeping its parameters (trec_eval's rules).

    The name ends at the first ``.``; what follows is its parameter list,
    the first given for a measure being the one used. Raises
    :class:`Finished` (status 1) for a name trec_eval does not know.
    """
    name, dot, params = text.partition(".")
    known = name in NICKNAMES or name in PREFERENCE_NICKNAMES or name in PREFERENCE_MEASURES
    if not known and name not in BY_NAME and _is_extension(text):
        if text not in settings.extensions:
            settings.extensions.append(text)
        return
    if dot:
        if params == "":
            msg = f"improper measure in parameter '{name}'\nillegal measure '{name}'"
            raise Finished(1, msg)
        settings.arguments.append((name, params))
    nickname = NICKNAMES.get(name) or PREFERENCE_NICKNAMES.get(name)
    if nickname is not None:
        settings.marked.update(nickname)
    elif name in PREFERENCE_MEASURES or name in BY_NAME:
        settings.marked.add(name)
    else:
        raise Finished(1, f"illegal measure '{name}'")


def _version() -> str:
    return f"rankmetrics trec-eval {__version__} (trec_eval 10.0's command line and numbers)"


QUERIES = "--queries"
"""This library's option (not trec_eval's): the query-set rule. Only the whole word
is taken (``--queries RULE``, ``--queries=RULE``), so that trec_eval's abbreviations
(``--q``, ``--que`` for ``--query_eval_wanted``) keep their meaning."""


DEPTH = "--depth"
"""This library's spelling of ``-M`` shared by every subcommand (``--depth N``,
``--depth=N``): read as ``-M N`` where it stands. Only the whole word is taken, as
for :data:`QUERIES`."""


def _whole_word(argv: Sequence[str], option: str) -> tuple[list[str], list[tuple[int, str]]]:
    """``argv`` without ``option VALUE`` / ``option=VALUE`` (before a ``--``), and the values.

    Each value comes with the index in the returned list where it stood.
    """
    arguments = list(argv)
    end = arguments.index("--") if "--" in arguments else len(arguments)
    kept: list[str] = []
    values: list[tuple[int, str]] = []
    index = 0
    while index < end:
        word = arguments[index]
        if word == option:
            if index + 1 >= end:
                raise Finished(1, f"option '{option}' requires an argument\n{USAGE}")
            values.append((len(kept), arguments[index + 1]))
            index += 2
            continue
        if word.startswith(option + "="):
            values.append((len(kept), word[len(option) + 1 :]))
        else:
            kept.append(word)
        index += 1
    return kept + arguments[end:], values


def without_queries(argv: Sequence[str]) -> tuple[list[str], str | None]:
    """``argv`` without ``--queries RULE`` (before a ``--``), and the last rule given."""
    kept, values = _whole_word(argv, QUERIES)
    return kept, values[-1][1] if values else None


def with_depth_as_m(argv: Sequence[str]) -> list[str]:
    """``argv`` with each ``--depth N`` read as trec_eval's ``-M N``, where it stood."""
    kept, values = _whole_word(argv, DEPTH)
    for index, value in reversed(values):
        kept[index:index] = ["-M", value]
    return kept


def parse_command_line(argv: Sequence[str]) -> Settings:
    """Read the options in order, with their immediate effects (``-v``, bad measure names)."""
    settings = Settings()
    parsed = Parsed([])
    argv, settings.queries = without_queries(with_depth_as_m(argv))
    try:
        for letter, value in getopt_long(argv, SHORT_OPTIONS, LONG_OPTIONS, parsed):
            _apply(settings, letter, value or "")
    except GetoptError as error:
        raise Finished(1, f"{error}\n{USAGE}") from None
    settings.operands = parsed.operands
    return settings


def _apply(settings: Settings, letter: str, value: str) -> None:
    if letter == "v":
        raise Finished(0, _version())
    if letter == "m":
        mark_measure(settings, value)
        return
    flags = {"h": "help", "q": "query", "c": "complete", "J": "judged_only"}
    if letter in flags:
        setattr(settings, flags[letter], True)
    elif letter == "n":
        settings.summary = False
    elif letter == "l":
        settings.level = c_atol(value)
    elif letter == "D":
        _, dot, query = value.partition(".")
        settings.debug_query = query if dot else None
    elif letter == "N":
        settings.collection_size = c_atol(value)
    elif letter == "M":
        settings.max_per_query = c_atol(value)
    elif letter == "R":
        settings.rel_format = value
    elif letter == "T":
        settings.results_format = value
    elif letter == "Z":
        settings.zscores = value
    elif letter == "O":
        settings.output = value
    elif letter == "F":
        settings.format = value
