"""trec_eval 10, emulated: the command line, the order of checks, the topic loop, the output.

:func:`run` takes trec_eval's arguments and returns what trec_eval would
print on standard output, its message on standard error, and its exit status.
The measures are the library's (bit for bit trec_eval's doubles); this module
reproduces everything around them:

- options are read as glibc's ``getopt_long`` reads them, in order: ``-v``
  exits at once, an unknown measure name exits 1 where it stands, ``-h``
  after every option (see :mod:`.getopt`);
- then the qrels, the run (``-T`` is checked between them) and the ``-Z``
  file are read (:mod:`.files`), then each measure is initialised (its
  parameters read, in trec_eval's measure order);
- the qrels topics are evaluated in byte order: a topic missing from the run
  stops everything with status 4 (without ``-c``), as does a document listed
  twice in an evaluated topic (after ``-M``); with ``-q`` the topics before it
  are printed. ``-c`` evaluates a missing topic against one placeholder
  document, then resets a few values as trec_eval does;
- the summary adds the topics' values in order and divides (or sums, or takes
  the geometric mean), with trec_eval's special cases for ``num_q`` and, under
  ``-c``, ``num_rel``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_rankmetrics.evaluation.subtopics import judged_subtopics, reads_subtopics
from polars_rankmetrics.evaluation.topics import (
    PLACEHOLDER_DOC,
    first_duplicates,
    judged_only,
    topic_values,
    truncate,
)
from polars_rankmetrics.measures import Column, parse_measures
from polars_rankmetrics.measures.ir_names import parse_ir_measures_name, parse_ranx_name
from polars_rankmetrics.measures.peer_names import parse_peer_name
from polars_rankmetrics.measures.trec_names import (
    BY_NAME,
    FAMILY_ORDER,
    JUDGEMENT_GROUP_FAMILIES,
    LONG_MAX,
    NICKNAMES,
    PREFERENCE_MEASURES,
    PREFERENCE_NICKNAMES,
    c_atol,
    family_columns,
)
from polars_rankmetrics.trec import files
from polars_rankmetrics.trec.files import TrecEvalError
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

MISSING_ZSCORE = -1000000.0
"""trec_eval's z-score for a topic or measure missing from the ``-Z`` file."""

_NO_LIST = frozenset({"runid", "num_q"})
"""The measures that trec_eval computes without ranking the topic's documents."""


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
    marked: set[str] = field(default_factory=set)
    arguments: list[tuple[str, str]] = field(default_factory=list)
    extensions: list[str] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)


def _is_extension(name: str) -> bool:
    """Whether ``name`` is another tool's spelling (``nDCG@10``), this library's extension."""
    try:
        parsed = parse_ir_measures_name(name) or parse_ranx_name(name) or parse_peer_name(name)
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
    from polars_rankmetrics import __version__

    return f"rankmetrics trec-eval {__version__} (trec_eval 10.0's command line and numbers)"


def parse_command_line(argv: Sequence[str]) -> Settings:
    """Read the options in order, with their immediate effects (``-v``, bad measure names)."""
    settings = Settings()
    parsed = Parsed([])
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
    # -o (the obsolete "old output format") changes nothing.


# ------------------------------------------------------------------ measures


@dataclass(frozen=True)
class Requested:
    """A requested trec_eval measure (or another tool's name) and its output columns."""

    name: str
    columns: tuple[Column, ...]
    extension: bool = False
    diversity: bool = False

    @property
    def needs_list(self) -> bool:
        """Whether trec_eval ranks the topic's documents for it (so checks duplicates)."""
        return self.name not in _NO_LIST


def initialise(settings: Settings) -> list[Requested]:
    """Each marked measure's columns, in trec_eval's order (its parameters read).

    Raises :class:`Finished` (status 2) for parameters trec_eval refuses.
    """
    if not settings.marked and not settings.extensions:
        settings.marked.update(NICKNAMES["official"])
    requested = []
    for name in sorted(settings.marked, key=_measure_order):
        family = BY_NAME.get(name)
        if family is None:  # a preference measure
            requested.append(Requested(name, ()))
            continue
        params = next((p for n, p in settings.arguments if n == name), None)
        try:
            columns = family_columns(family, params)
        except ValueError as error:
            if name == "utility" and params is not None and params.count(",") != 3:
                columns = []  # trec_eval fails later, computing it (see `_failure`)
            else:
                detail = str(error).removeprefix(f"measure {name!r}: ")
                raise Finished(2, f"{detail}\nCannot initialize measure '{name}'") from None
        if name == "utility" and columns:
            columns = [
                _with_collection_size(column, settings.collection_size) for column in columns
            ]
        requested.append(Requested(name, tuple(columns)))
    for text in settings.extensions:
        spelled = tuple(parse_measures(text))
        diversity = reads_subtopics([column.bind("zero") for column in spelled])
        requested.append(Requested(text, spelled, extension=True, diversity=diversity))
    return requested


def _measure_order(name: str) -> float:
    if name in FAMILY_ORDER:
        return FAMILY_ORDER[name]
    # The preference measures come right after num_nonrel_judged_ret.
    return FAMILY_ORDER["num_nonrel_judged_ret"] + (1 + PREFERENCE_MEASURES.index(name)) / 100


def _with_collection_size(column: Column, size: int) -> Column:
    params = {**dict(column.params), "collection_size": size}
    return Column(
        column.name, column.measure, tuple(params.items()), column.threshold, column.family
    )


# ------------------------------------------------------------------ the run


@dataclass
class Inputs:
    """The files, read and parsed."""

    qrels: pl.DataFrame
    run: pl.DataFrame
    run_id: str | None
    encoding: str
    zscores: dict[tuple[str, str], tuple[float, float]] | None


def read_inputs(settings: Settings) -> Inputs:
    """Read the qrels, check ``-T``, read the run, then the ``-Z`` file, as trec_eval orders it."""
    qrels_name, run_name = settings.operands
    if settings.rel_format in ("prefs", "qrels_prefs"):
        msg = (
            f"-R {settings.rel_format}: preference judgements are not supported by "
            "rankmetrics (use trec_eval itself for them)"
        )
        raise Finished(2, msg)
    if settings.rel_format not in ("qrels", "qrels_jg"):
        raise Finished(2, f"Illegal rel_format '{settings.rel_format}'")
    groups = settings.rel_format == "qrels_jg"
    try:
        qrels_input = files.read_input(qrels_name, "qrels")
    except TrecEvalError as error:
        raise Finished(2, error.message) from None
    if settings.results_format != "trec_results":
        # trec_eval parses the qrels before it looks at -T; so do we.
        _parse_qrels(qrels_input, files.encoding_of(qrels_input), groups, qrels_name)
        raise Finished(2, f"Illegal retrieval results format '{settings.results_format}'")
    try:
        run_input = files.read_input(run_name, "results", stdin=True)
    except TrecEvalError as error:
        _parse_qrels(qrels_input, files.encoding_of(qrels_input), groups, qrels_name)
        raise Finished(2, error.message) from None
    encoding = files.encoding_of(qrels_input, run_input)
    qrels = _parse_qrels(qrels_input, encoding, groups, qrels_name)
    try:
        run, run_id = files.parse_results(run_input, encoding)
    except TrecEvalError as error:
        raise Finished(2, error.message) from None
    zscores = None
    if settings.zscores is not None:
        try:
            z_input = files.read_input(settings.zscores, "zscores")
            zscores = files.parse_zscores(z_input, encoding)
        except TrecEvalError as error:
            raise Finished(255, error.message) from None
    return Inputs(qrels, run, run_id, encoding, zscores)


def _parse_qrels(source: files.Input, encoding: str, groups: bool, name: str) -> pl.DataFrame:
    """The qrels, with their second field as ``group`` (a judgement group, or a subtopic)."""
    try:
        qrels = files.parse_qrels(source, encoding, groups=True)
    except TrecEvalError as error:
        hint = ""
        if files.looks_like_a_run(source, encoding):
            hint = " (did you swap qrels and run? trec_eval takes the qrels file first)"
        raise Finished(2, error.message + hint) from None
    if groups:
        doubled = (
            qrels.group_by("query", "group", "doc")
            .len()
            .filter(pl.col("len") > 1)
            .sort("query", "group", "doc")
        )
        if doubled.height:
            doc = doubled.item(0, "doc")
            msg = f"qrels file '{name}' judges document {doc} twice in one judgement group"
            raise Finished(2, msg)
    return qrels


# ------------------------------------------------------------------ the topics


@dataclass
class Report:
    """What the command prints: lines of text, or a table."""

    lines: list[str]
    per_query: list[tuple[str, dict[str, Any]]]
    summary: dict[str, Any]
    run_id: str


def _topic_frame(settings: Settings, inputs: Inputs, considered: list[str]) -> pl.DataFrame:
    """The run as trec_eval ranks it for the considered topics (placeholders, ``-M``)."""
    run = inputs.run.filter(pl.col("query").is_in(considered))
    present = set(run.get_column("query").unique().to_list())
    absent = [topic for topic in considered if topic not in present]
    if settings.complete and absent:
        placeholders = pl.DataFrame(
            {"query": absent, "doc": [PLACEHOLDER_DOC] * len(absent), "score": [1.0] * len(absent)},
            schema=run.schema,
        )
        run = pl.concat([run, placeholders])
    limit = None if settings.max_per_query >= len(run) else max(settings.max_per_query, 0)
    return truncate(run, limit)


def compute(
    settings: Settings, inputs: Inputs, requested: list[Requested], considered: list[str]
) -> tuple[dict[str, dict[str, Any]], dict[str, str], dict[str, str]]:
    """Each considered topic's values, and the topics with duplicate documents."""
    run = _topic_frame(settings, inputs, considered)
    with_groups = inputs.qrels.filter(pl.col("query").is_in(considered))
    qrels = with_groups.drop("group")
    groups = settings.rel_format == "qrels_jg"
    run_duplicates = first_duplicates(run)
    qrels_duplicates = {} if groups else first_duplicates(qrels)
    if settings.judged_only:
        run = judged_only(run, qrels)
    columns = [column for item in requested for column in item.columns]
    if not columns:
        return {}, run_duplicates, qrels_duplicates
    if groups:
        return _group_values(settings, with_groups, run, requested), run_duplicates, {}
    unique = _unique(columns)
    diverse = [column for column in unique if reads_subtopics([column.bind("zero")])]
    values = _values(qrels, run, [c for c in unique if c not in diverse], settings.level)
    if diverse:
        # Diversity names (this library's extension): the second field is the subtopic.
        try:
            subtopics = judged_subtopics(
                with_groups.rename({"group": "subtopic"}), max(settings.level, 1)
            )
        except ValueError as error:
            raise Finished(2, str(error)) from None
        for topic, more in _values(subtopics, run, diverse, settings.level).items():
            values.setdefault(topic, {}).update(more)
    return values, run_duplicates, qrels_duplicates


def _values(
    qrels: pl.DataFrame, run: pl.DataFrame, columns: list[Column], level: int
) -> dict[str, dict[str, Any]]:
    """Each topic's values of ``columns``, by name."""
    if not columns:
        return {}
    frame = topic_values(qrels, run, columns, level)
    names = [column.name for column in columns]
    return {row[0]: dict(zip(names, row[4:], strict=True)) for row in frame.iter_rows()}


def _unique(columns: list[Column]) -> list[Column]:
    """The columns, once each by name (an extension may repeat a trec_eval column's name)."""
    seen: dict[str, Column] = {}
    for column in columns:
        seen.setdefault(column.name, column)
    return list(seen.values())


def _group_values(
    settings: Settings, qrels: pl.DataFrame, run: pl.DataFrame, requested: list[Requested]
) -> dict[str, dict[str, Any]]:
    """The ``_avgjg`` measures: each judgement group ranks the run alone; their mean per topic."""
    columns = [
        c for item in requested if item.name in JUDGEMENT_GROUP_FAMILIES for c in item.columns
    ]
    if not columns:  # trec_eval fails on the first topic (see `_failure`)
        return {}
    key = pl.concat_str("query", pl.lit("\n"), "group")
    pairs = qrels.select("query", "group").unique()
    grouped_run = run.join(pairs, on="query").select(key.alias("query"), "doc", "score")
    grouped_qrels = qrels.select(key.alias("query"), "doc", "relevance")
    if settings.judged_only:
        grouped_run = judged_only(grouped_run, grouped_qrels)
    frame = topic_values(grouped_qrels, grouped_run, _unique(columns), settings.level)
    names = [column.name for column in _unique(columns)]
    values: dict[str, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    for row in frame.iter_rows():  # sorted by topic, then group: trec_eval's order
        topic = row[0].split("\n", 1)[0]
        totals = values.setdefault(topic, dict.fromkeys(names, 0.0))
        counts[topic] = counts.get(topic, 0) + 1
        for name, value in zip(names, row[4:], strict=True):
            totals[name] += value
    for topic, totals in values.items():
        if counts[topic] > 1:
            for name in names:
                totals[name] /= counts[topic]
    return values


def _failure(
    topic: str,
    requested: list[Requested],
    duplicates: tuple[dict[str, str], dict[str, str]],
    groups: bool,
) -> str | None:
    """Why trec_eval cannot compute the topic's first failing measure, if one fails."""
    run_duplicates, qrels_duplicates = duplicates
    for item in requested:
        if not item.needs_list:
            continue
        name = item.name
        problem = None
        if name in PREFERENCE_MEASURES:
            problem = "preference measures need -R prefs or qrels_prefs (not supported)"
        elif name in JUDGEMENT_GROUP_FAMILIES and not groups:
            problem = "this measure needs judgement groups (-R qrels_jg)"
        elif groups and name not in JUDGEMENT_GROUP_FAMILIES:
            problem = "this measure needs plain qrels, not judgement groups (-R qrels_jg)"
        elif topic in run_duplicates:
            problem = f"the run lists document {run_duplicates[topic]} twice for topic {topic}"
        elif topic in qrels_duplicates and not item.diversity:
            problem = f"the qrels judge document {qrels_duplicates[topic]} twice for topic {topic}"
        elif name == "utility" and not item.columns:
            problem = "utility needs exactly 4 coefficients"
        if problem is not None:
            return f"{problem}\nCan't calculate measure '{name}'"
    return None


_RESET_EXACT = frozenset({"num_ret", "utility", "rbp_resid"})


def _reset_placeholder(values: dict[str, Any]) -> dict[str, Any]:
    """What trec_eval resets after scoring the ``-c`` placeholder (by exact output name)."""
    reset = dict(values)
    for name in values:
        if name in _RESET_EXACT or name.startswith("unj"):
            reset[name] = 0.0
        elif name == "relstring":
            reset[name] = ""
    return reset


def _per_topic_value(column: Column, value: Any) -> Any:
    """The value trec_eval stores per topic: the log for a geometric mean."""
    if column.measure.summary == "geometric":
        return math.log(max(value, 0.00001)) if value == value else value
    return value


def _zscore(
    table: dict[tuple[str, str], tuple[float, float]], topic: str, name: str, value: float
) -> float:
    entry = table.get((topic, name))
    if entry is None:
        return MISSING_ZSCORE
    mean, deviation = entry
    if deviation:
        return (value - mean) / deviation
    return 0.0 if value == mean else MISSING_ZSCORE


def number_text(value: float) -> str:
    """``printf("%6.4f", value)`` as glibc prints it, NaN's sign included."""
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def line(name: str, topic: str, text: str, *, z: bool = False) -> str:
    """One output line: the name padded to 22 columns, a tab, the topic, a tab, the value."""
    return f"{'Z' if z else ''}{name:<22}\t{topic}\t{text}\n"


def _text(column: Column, value: Any, z: bool) -> str:
    if isinstance(value, str):
        return f"'{value}'"
    if column.measure.integer and not z:
        return str(int(value))
    return number_text(value)


def _lines_of(columns: list[Column], topic: str, values: dict[str, Any], z: bool) -> list[str]:
    out = []
    for column in columns:
        value = values[column.name]
        numeric = not isinstance(value, str)
        out.append(line(column.name, topic, _text(column, value, z and numeric), z=z and numeric))
    return out


def evaluate_topics(settings: Settings, inputs: Inputs, requested: list[Requested]) -> Report:
    """trec_eval's topic loop and summary; raises :class:`Finished` where trec_eval stops."""
    if settings.level < 0:
        msg = (
            f"-l {settings.level}: below 0, trec_eval counts unjudged documents as relevant "
            "but not in R (the number of relevant documents); that is not supported"
        )
        raise Finished(2, msg)
    topics = inputs.qrels.get_column("query").unique().sort().to_list()
    considered = [t for t in topics if settings.debug_query in (None, t)]
    values, *duplicates = compute(settings, inputs, requested, considered)
    run_topics = set(inputs.run.get_column("query").unique().to_list())
    groups = settings.rel_format == "qrels_jg"
    shown = [c for item in requested for c in item.columns if c.measure.per_query]
    z = inputs.zscores is not None
    z_topics = {topic for topic, _ in inputs.zscores} if inputs.zscores else set()
    lines: list[str] = []
    evaluated: list[tuple[str, dict[str, Any]]] = []
    for topic in considered:
        if topic not in run_topics and not settings.complete:
            raise Finished(4, f"result qid '{topic}' not found in qrels", lines)
        failure = _failure(topic, requested, (duplicates[0], duplicates[1]), groups)
        if failure is not None:
            raise Finished(4, failure, lines)
        stored = {
            column.name: _per_topic_value(column, values.get(topic, {}).get(column.name, 0.0))
            for item in requested
            for column in item.columns
        }
        if topic not in run_topics:
            stored = _reset_placeholder(stored)
        if inputs.zscores is not None:
            stored = {
                name: value
                if isinstance(value, str)
                else (
                    _zscore(inputs.zscores, topic, name, value)
                    if topic in z_topics
                    else MISSING_ZSCORE
                )
                for name, value in stored.items()
            }
        evaluated.append((topic, stored))
        if settings.query:
            lines.extend(_lines_of(shown, topic, stored, z))
    if not evaluated:
        raise Finished(7, "No queries with both results and relevance info", lines)
    summary = summarise(settings, inputs, requested, evaluated, len(topics))
    run_id = inputs.run_id or ""
    if settings.summary:
        if "runid" in settings.marked:
            lines.append(line("runid", "all", run_id))
        for item in requested:
            for column in item.columns:
                if column.measure.summary != "none":
                    lines.append(
                        line(column.name, "all", _text(column, summary[column.name], z), z=z)
                    )
    return Report(lines, evaluated, summary, run_id)


def summarise(
    settings: Settings,
    inputs: Inputs,
    requested: list[Requested],
    evaluated: list[tuple[str, dict[str, Any]]],
    n_topics: int,
) -> dict[str, Any]:
    """The ``all`` values: the topics' values added in topic order, then averaged."""
    n = n_topics if settings.complete else len(evaluated)
    summary: dict[str, Any] = {}
    for item in requested:
        for column in item.columns:
            measure = column.measure
            if measure.summary == "none":
                continue
            total = 0.0
            for _, values in evaluated:
                total += values[column.name]
            if measure.key == "NumQ":
                summary[column.name] = float(n)
            elif measure.key == "NumRel" and settings.complete:
                positive = inputs.qrels.filter(pl.col("relevance") > 0).height
                summary[column.name] = float(positive)
            elif measure.summary == "sum":
                summary[column.name] = total
            elif measure.summary == "geometric":
                if settings.complete:
                    total += (n - len(evaluated)) * math.log(0.00001)
                summary[column.name] = math.exp(total / n) if n > 0 else total
            else:
                summary[column.name] = total / n if n else total
    return summary
