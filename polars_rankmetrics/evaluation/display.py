"""How an :class:`~polars_rankmetrics.evaluation.evaluate.Evaluation` prints.

``print(result)`` (and the interactive echo) shows what a reader needs first:
the run id, how many queries were evaluated and which were left out, the
measures, and the aggregate values, one measure a line; never the parsed
``Measure`` objects. Notebooks get the same as an HTML table.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import polars as pl

    from polars_rankmetrics.measures import Column

MAX_LINES = 40
"""Aggregate lines shown before the rest is elided (``all_trec`` has over 100)."""


class _Shown(Protocol):
    """What is shown of an evaluation: the attributes of :class:`.evaluate.Evaluation`.

    A protocol, so that this module does not import the one that imports it.
    """

    @property
    def per_query(self) -> pl.DataFrame: ...
    @property
    def aggregate(self) -> pl.DataFrame: ...
    @property
    def run_id(self) -> str: ...
    @property
    def measures(self) -> Sequence[Column]: ...
    @property
    def n_queries(self) -> int: ...
    @property
    def query_set(self) -> str: ...
    @property
    def ignored_queries(self) -> int: ...
    @property
    def missing_queries(self) -> int: ...
    @property
    def no_relevant_queries(self) -> int: ...


def _value_text(value: Any, integer: bool) -> str:
    if value is None:
        return "null"
    if isinstance(value, float) and integer and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _counts(result: _Shown) -> str:
    noun = "query" if result.n_queries == 1 else "queries"
    parts = [f"{result.n_queries} {noun} evaluated (queries={result.query_set!r})"]
    if result.ignored_queries:
        parts.append(f"{result.ignored_queries} in the run only (ignored)")
    if result.missing_queries:
        parts.append(f"{result.missing_queries} in the qrels only (missing from the run)")
    if result.no_relevant_queries:
        parts.append(f"{result.no_relevant_queries} without a relevant document")
    return "; ".join(parts)


def _aggregate_pairs(result: _Shown) -> list[tuple[str, str]]:
    if result.aggregate.height == 0:
        return []
    integer = {column.name for column in result.measures if column.measure.integer}
    row = result.aggregate.row(0, named=True)
    return [(name, _value_text(value, name in integer)) for name, value in row.items()]


def _run_text(result: _Shown) -> str:
    return repr(result.run_id) if result.run_id else "(no run id)"


def evaluation_text(result: _Shown) -> str:
    """The text ``repr`` of an evaluation: run id, query counts, measures, aggregate values."""
    names = [column.name for column in result.measures]
    lines = [
        f"Evaluation of run {_run_text(result)}: {_counts(result)}",
        f"measures ({len(names)}): {', '.join(names[:MAX_LINES])}"
        + (f", ... ({len(names) - MAX_LINES} more)" if len(names) > MAX_LINES else ""),
        "aggregate (.aggregate):",
    ]
    pairs = _aggregate_pairs(result)
    width = max((len(name) for name, _ in pairs[:MAX_LINES]), default=0)
    lines += [f"  {name:<{width}}  {text}" for name, text in pairs[:MAX_LINES]]
    if len(pairs) > MAX_LINES:
        lines.append(f"  ... ({len(pairs) - MAX_LINES} more: see .aggregate)")
    rows, columns = result.per_query.shape
    lines.append(f"per query (.per_query): {rows} rows x {columns} columns")
    return "\n".join(lines)


def evaluation_html(result: _Shown) -> str:
    """The notebook view of an evaluation: the same facts, the aggregate as a table."""
    pairs = _aggregate_pairs(result)
    body = "".join(
        f"<tr><td>{html.escape(name)}</td><td>{html.escape(text)}</td></tr>" for name, text in pairs
    )
    rows, columns = result.per_query.shape
    return (
        f"<div><p><b>Evaluation</b> of run {html.escape(_run_text(result))}: "
        f"{html.escape(_counts(result))}</p>"
        f"<table><thead><tr><th>measure</th><th>aggregate</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
        f"<p>per query (<code>.per_query</code>): {rows} rows x {columns} columns</p></div>"
    )
