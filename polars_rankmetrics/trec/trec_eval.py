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

This module is the driver (reading the files, the topic loop, the output
lines); the options are read in :mod:`.options`, and the measures' columns,
per-topic values and summary are computed in :mod:`.topic_measures`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, get_args

import polars as pl

from polars_rankmetrics.evaluation.query_sets import (
    SCORES_MISSING,
    QuerySet,
    check_query_set,
    restrict_qrels,
)
from polars_rankmetrics.measures import Column
from polars_rankmetrics.trec import files
from polars_rankmetrics.trec.files import TrecEvalError
from polars_rankmetrics.trec.options import USAGE, Finished, Settings, parse_command_line
from polars_rankmetrics.trec.topic_measures import (
    MISSING_ZSCORE,
    Inputs,
    Requested,
    compute,
    geometric_value,
    initialise,
    reset_placeholder,
    summarise,
    topic_failure,
    zscore,
)

__all__ = [
    "USAGE",
    "Finished",
    "Inputs",
    "Report",
    "Requested",
    "Settings",
    "evaluate_topics",
    "initialise",
    "parse_command_line",
    "read_inputs",
]


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
        qrels = files.parse_qrels(source, encoding, groups=groups, second_field=True)
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


_Shown = tuple[str, str, str, bool]
"""A shown column: its name, its padded name (plain and with ``Z``), whether an integer."""


def _shown(columns: list[Column]) -> list[_Shown]:
    """What :func:`_lines_of` needs of each column, worked out once for every topic."""
    return [(c.name, f"{c.name:<22}\t", f"Z{c.name:<22}\t", c.measure.integer) for c in columns]


def _lines_of(shown: list[_Shown], topic: str, values: dict[str, Any], z: bool) -> list[str]:
    """A topic's lines, as :func:`line` and :func:`_text` write them (about 100 per topic)."""
    out = []
    for name, head, z_head, integer in shown:
        value = values[name]
        if isinstance(value, str):
            out.append(f"{head}{topic}\t'{value}'\n")
        elif z:
            out.append(f"{z_head}{topic}\t{number_text(value)}\n")
        elif integer:
            out.append(f"{head}{topic}\t{int(value)}\n")
        else:
            out.append(f"{head}{topic}\t{number_text(value)}\n")
    return out


def _apply_query_set(settings: Settings, inputs: Inputs) -> tuple[Settings, Inputs]:
    """``--queries``: the qrels of the evaluated topics, and ``-c`` where missing ones score."""
    given = settings.queries or ("qrels" if settings.complete else "trec_eval")
    try:
        rule = check_query_set(given)
    except ValueError:
        allowed = ", ".join(get_args(QuerySet))
        raise Finished(2, f"--queries must be one of {allowed}, got '{given}'") from None
    if settings.complete and rule not in SCORES_MISSING:
        raise Finished(2, f"-c is --queries=qrels; it contradicts --queries={rule}")
    if rule in ("run", "relevant"):
        run_queries = inputs.run.get_column("query").unique()
        qrels, _ = restrict_qrels(inputs.qrels, run_queries, rule, max(settings.level, 0))
        inputs = replace(inputs, qrels=qrels)
    return replace(settings, complete=rule in SCORES_MISSING), inputs


def _missing_topic(topic: str, considered: Any, run_topics: Any) -> str:
    """trec_eval's misleading line for a qrels query missing from the run, then what happened."""
    missing = sum(1 for name in considered if name not in run_topics)
    other = f" ({missing} such queries)" if missing > 1 else ""
    return (
        f"result qid '{topic}' not found in qrels\n"
        f"the qrels' query '{topic}' is not in the run{other}: trec_eval 10 stops here "
        "(status 4); --queries run leaves the missing queries out, -c (or --queries qrels) "
        "scores them 0"
    )


def evaluate_topics(settings: Settings, inputs: Inputs, requested: list[Requested]) -> Report:
    """trec_eval's topic loop and summary; raises :class:`Finished` where trec_eval stops."""
    if settings.level < 0:
        msg = (
            f"-l {settings.level}: below 0, trec_eval counts unjudged documents as relevant "
            "but not in R (the number of relevant documents); that is not supported"
        )
        raise Finished(2, msg)
    settings, inputs = _apply_query_set(settings, inputs)
    topics = inputs.qrels.get_column("query").unique().sort().to_list()
    considered = [t for t in topics if settings.debug_query in (None, t)]
    values, *duplicates = compute(settings, inputs, requested, considered)
    run_topics = inputs.run_topics
    groups = settings.rel_format == "qrels_jg"
    shown = _shown([c for item in requested for c in item.columns if c.measure.per_query])
    columns = [column for item in requested for column in item.columns]
    geometric = {column.name for column in columns if column.measure.summary == "geometric"}
    z = inputs.zscores is not None
    z_topics = {topic for topic, _ in inputs.zscores} if inputs.zscores else set()
    lines: list[str] = []
    evaluated: list[tuple[str, dict[str, Any]]] = []
    for topic in considered:
        if topic not in run_topics and not settings.complete:
            raise Finished(4, _missing_topic(topic, considered, run_topics), lines)
        failure = topic_failure(topic, requested, (duplicates[0], duplicates[1]), groups)
        if failure is not None:
            raise Finished(4, failure, lines)
        topic_values = values.get(topic, {})
        stored = {column.name: topic_values.get(column.name, 0.0) for column in columns}
        for name in geometric:  # the log, as trec_eval stores it (see `per_topic_value`)
            stored[name] = geometric_value(stored[name])
        if topic not in run_topics:
            stored = reset_placeholder(stored)
        if inputs.zscores is not None:
            stored = {
                name: value
                if isinstance(value, str)
                else (
                    zscore(inputs.zscores, topic, name, value)
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
