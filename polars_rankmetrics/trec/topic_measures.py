"""trec_eval's measures in the topic loop: which are computed, each topic's values, the summary.

:func:`initialise` turns the marked measures into their output columns, in
trec_eval's order, with their parameters read; :func:`compute` computes every
considered topic's values at once (with ``-c``'s placeholder document, ``-M``,
``-J``, judgement groups and the diversity extension); :func:`topic_failure` says why
trec_eval stops on a topic; the per-topic values are stored as trec_eval stores
them (:func:`per_topic_value`, :func:`reset_placeholder`, :func:`zscore`) and
:func:`summarise` computes the ``all`` line. The driver is :mod:`.trec_eval`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_rankmetrics.evaluation.subtopics import (
    judged_subtopics,
    reads_subtopics,
    subtopic_levels,
)
from polars_rankmetrics.evaluation.topics import (
    GAIN_KEYS,
    PLACEHOLDER_DOC,
    first_duplicates,
    judged_only,
    topic_values,
    truncate,
)
from polars_rankmetrics.measures import Column
from polars_rankmetrics.measures.trec_names import (
    BY_NAME,
    FAMILY_ORDER,
    JUDGEMENT_GROUP_FAMILIES,
    NICKNAMES,
    PREFERENCE_MEASURES,
    family_columns,
)
from polars_rankmetrics.trec.options import Finished, Settings

MISSING_ZSCORE = -1000000.0
"""trec_eval's z-score for a topic or measure missing from the ``-Z`` file."""

_NO_LIST = frozenset({"runid", "num_q"})
"""The measures that trec_eval computes without ranking the topic's documents."""


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
                columns = []  # trec_eval fails later, computing it (see `topic_failure`)
            else:
                detail = str(error).removeprefix(f"measure {name!r}: ")
                raise Finished(2, f"{detail}\nCannot initialize measure '{name}'") from None
        if name == "utility" and columns:
            columns = [
                _with_collection_size(column, settings.collection_size) for column in columns
            ]
        requested.append(Requested(name, tuple(columns)))
    for text in settings.extensions:
        # Other tools' names: their grammars load only for them.
        from polars_rankmetrics.measures.resolve import parse_measures

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


@dataclass
class Inputs:
    """The files, read and parsed."""

    qrels: pl.DataFrame
    run: pl.DataFrame
    run_id: str | None
    encoding: str
    zscores: dict[tuple[str, str], tuple[float, float]] | None

    @functools.cached_property
    def run_topics(self) -> frozenset[str]:
        """The run's topics, found once (2-3 ms on a 170k-line run)."""
        return frozenset(self.run.get_column("query").unique().to_list())


def _topic_frame(settings: Settings, inputs: Inputs, considered: list[str]) -> pl.DataFrame:
    """The run as trec_eval ranks it for the considered topics (placeholders, ``-M``)."""
    wanted = set(considered)
    in_run = inputs.run_topics
    # Filtered only where the run has topics that are not considered (a copy of the run).
    run = inputs.run if in_run <= wanted else inputs.run.filter(pl.col("query").is_in(considered))
    present = in_run & wanted
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
    # Only an extension name can be a diversity measure (no trec_eval family reads
    # subtopics: tests/test_trec_eval_cases.py), so only those are probed for it.
    spelled = {id(column) for item in requested if item.diversity for column in item.columns}
    diverse = [
        column
        for column in unique
        if id(column) in spelled and reads_subtopics([column.bind("zero")])
    ]
    values = _values(qrels, run, [c for c in unique if c not in diverse], settings.level)
    default = max(settings.level, 1)
    own = subtopic_levels(diverse, default)
    by_level: dict[int, list[Column]] = {}
    for column in diverse:  # ir_measures' rel= sets a diversity name's own level
        by_level.setdefault(own.get(column.name, default), []).append(column)
    for level, level_columns in by_level.items():
        # Diversity names (this library's extension): the second field is the subtopic.
        try:
            subtopics = judged_subtopics(with_groups.rename({"group": "subtopic"}), level)
        except ValueError as error:
            raise Finished(2, str(error)) from None
        for topic, more in _values(subtopics, run, level_columns, settings.level).items():
            values.setdefault(topic, {}).update(more)
    return values, run_duplicates, qrels_duplicates


def _values(
    qrels: pl.DataFrame, run: pl.DataFrame, columns: list[Column], level: int
) -> dict[str, dict[str, Any]]:
    """Each topic's values of ``columns``, by name."""
    if not columns:
        return {}
    distinct, copies = distinct_columns(columns)
    frame = topic_values(qrels, run, distinct, level)
    names = [column.name for column in distinct]
    values = {row[0]: dict(zip(names, row[4:], strict=True)) for row in frame.iter_rows()}
    for per_topic in values.values():
        for name, source in copies:
            per_topic[name] = per_topic[source]
    return values


def distinct_columns(columns: list[Column]) -> tuple[list[Column], list[tuple[str, str]]]:
    """The columns to compute, and the ``(name, source)`` of those copied from another."""
    computed: dict[Any, Column] = {}
    copies: list[tuple[str, str]] = []
    for column in _unique(columns):
        first = computed.setdefault(_same_values(column), column)
        if first is not column:
            copies.append((column.name, first.name))
    return list(computed.values()), copies


def _same_values(column: Column) -> Any:
    """What a column's per-topic values depend on: ``gm_map`` has ``map``'s, computed once.

    The statistic, its parameters, threshold and ranking; not the name nor the
    summary (the geometric mean is taken of the same per-topic values).
    """
    measure = column.measure
    fixed = tuple(sorted((key, repr(value)) for key, value in measure.fixed.items()))
    params = tuple((key, repr(value)) for key, value in column.params)
    return (
        id(measure.statistic),
        fixed,
        params,
        column.threshold,
        column.judged_only,
        column.order,
        measure.key in GAIN_KEYS,
    )


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
    if not columns:  # trec_eval fails on the first topic (see `topic_failure`)
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


def topic_failure(
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


def reset_placeholder(values: dict[str, Any]) -> dict[str, Any]:
    """What trec_eval resets after scoring the ``-c`` placeholder (by exact output name)."""
    reset = dict(values)
    for name in values:
        if name in _RESET_EXACT or name.startswith("unj"):
            reset[name] = 0.0
        elif name == "relstring":
            reset[name] = ""
    return reset


def per_topic_value(column: Column, value: Any) -> Any:
    """The value trec_eval stores per topic: the log for a geometric mean."""
    if column.measure.summary == "geometric":
        return geometric_value(value)
    return value


def geometric_value(value: Any) -> Any:
    """The log trec_eval stores per topic for a geometric mean (of at least 0.00001)."""
    return math.log(max(value, 0.00001)) if value == value else value


def zscore(
    table: dict[tuple[str, str], tuple[float, float]], topic: str, name: str, value: float
) -> float:
    """The topic's value as a z-score against the ``-Z`` file's mean and deviation."""
    entry = table.get((topic, name))
    if entry is None:
        return MISSING_ZSCORE
    mean, deviation = entry
    if deviation:
        return (value - mean) / deviation
    return 0.0 if value == mean else MISSING_ZSCORE


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
