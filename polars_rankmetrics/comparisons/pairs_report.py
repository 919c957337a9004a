"""The ranx-style table of an all-pairs comparison: :func:`pairs_table`.

One row per system (lettered ``a``, ``b``, ... in order), one column per
metric; each cell is the system's mean, in bold when it is the best of its
column (every system equal to the best at the printed precision), followed by
the letters of the systems it is significantly better than (see
:func:`~polars_rankmetrics.comparisons.letters.superscripts`). A note under the
table names the test, the correction and the level. Markdown, LaTeX (plain
``tabular``, compiles with pdflatex and no package) and HTML.
"""

from __future__ import annotations

import html
from typing import Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import check_choice
from polars_rankmetrics.comparisons.letters import letter, superscripts, system_means
from polars_rankmetrics.comparisons.pairs import PAIRS_SCHEMA
from polars_rankmetrics.comparisons.report import (
    _check_digits,
    _escape_latex,
    _escape_markdown,
    query_count_line,
)

PairsFormat: TypeAlias = Literal["markdown", "latex", "html"]
"""The formats of :func:`pairs_table`."""


def _cells(
    pairs: pl.DataFrame, digits: int
) -> tuple[list[str], list[str], dict[tuple[str, str], tuple[str, bool, str]]]:
    metrics = pairs["metric"].unique(maintain_order=True).to_list()
    systems: list[str] = []
    cells: dict[tuple[str, str], tuple[str, bool, str]] = {}
    for metric in metrics:
        means = system_means(pairs, metric)
        systems.extend(name for name in means if name not in systems)
        marks = superscripts(pairs, metric=metric)
        shown = {
            name: "–" if mean is None else f"{mean:.{digits}f}" for name, mean in means.items()
        }
        finite = [mean for mean in means.values() if mean is not None]
        best = f"{max(finite):.{digits}f}" if finite else None
        for name in means:
            cells[metric, name] = (shown[name], shown[name] == best, marks[name])
    return metrics, systems, cells


def _legend(
    pairs: pl.DataFrame, test: str | None, correction: str | None, alpha: float | None
) -> str:
    how = f" ({test}" if test else ""
    if test:
        how += f", {correction} correction)" if correction else ")"
    level = f" at level {alpha:g}" if alpha is not None else ""
    counted = query_count_line(pairs)
    return (
        "Bold: best per metric. Superscripts: the systems (by letter) that a system is "
        f"significantly better than{how}{level}." + (f" {counted}" if counted else "")
    )


def pairs_table(
    pairs: pl.DataFrame,
    *,
    format: PairsFormat = "markdown",
    digits: int = 3,
    test: str | None = None,
    correction: str | None = None,
    alpha: float | None = None,
) -> str:
    """
    The ranx-style report of :func:`polars_rankmetrics.compare_pairs`.

    Parameters
    ----------
    pairs
        A frame from :func:`~polars_rankmetrics.compare_pairs`.
    format : {'markdown', 'latex', 'html'}
        The output format.
    digits
        Digits after the decimal point.
    test
        The test's name, for the note under the table (e.g. "paired t-test").
    correction
        The correction's name, for the note.
    alpha
        The significance level, for the note.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["bm25"] * 4 + ["dense"] * 4 + ["hybrid"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 3,
    ...         "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.6, 0.5, 0.7, 0.4, 0.9],
    ...     }
    ... )
    >>> pairs = rm.compare_pairs(per_query, test="tukey-two-way", correction=None)
    >>> text = rm.pairs_table(pairs, test="two-way Tukey HSD test", alpha=0.05)
    >>> for line in text.splitlines()[:5]:
    ...     print(line)
    | # | System | ap |
    |---|---|---:|
    | a | bm25 | 0.300 |
    | b | dense | 0.425<sup>a</sup> |
    | c | hybrid | **0.625**<sup>ab</sup> |
    >>> text.splitlines()[-1].endswith("at level 0.05. Means over 4 queries.")
    True
    """
    check_choice(format, "format", PairsFormat)
    digits = _check_digits(digits)
    absent = [name for name in PAIRS_SCHEMA if name not in pairs.columns]
    if absent:
        msg = f"`pairs` must be a frame from compare_pairs(); it lacks the columns {absent}"
        raise ValueError(msg)
    if pairs.is_empty():
        msg = "`pairs` is empty: nothing to report"
        raise ValueError(msg)
    metrics, systems, cells = _cells(pairs, digits)
    legend = _legend(pairs, test, correction, alpha)
    missing_cell = ("–", False, "")
    if format == "markdown":
        lines = [
            "| # | System | " + " | ".join(_escape_markdown(m) for m in metrics) + " |",
            "|---|---|" + "---:|" * len(metrics),
        ]
        for index, name in enumerate(systems):
            row = []
            for metric in metrics:
                text, best, mark = cells.get((metric, name), missing_cell)
                row.append(
                    (f"**{text}**" if best else text) + (f"<sup>{mark}</sup>" if mark else "")
                )
            lines.append(
                f"| {letter(index)} | {_escape_markdown(name)} | " + " | ".join(row) + " |"
            )
        return "\n".join([*lines, "", _escape_markdown(legend)])
    if format == "latex":
        lines = [
            r"\begin{table}",
            r"\centering",
            r"\begin{tabular}{ll" + "r" * len(metrics) + "}",
            r"\hline",
            r"\# & System & " + " & ".join(_escape_latex(m) for m in metrics) + r" \\",
            r"\hline",
        ]
        for index, name in enumerate(systems):
            row = []
            for metric in metrics:
                text, best, mark = cells.get((metric, name), missing_cell)
                shown = "--" if text == "–" else text
                row.append(
                    (rf"\textbf{{{shown}}}" if best else shown) + (f"$^{{{mark}}}$" if mark else "")
                )
            lines.append(f"{letter(index)} & {_escape_latex(name)} & " + " & ".join(row) + r" \\")
        lines += [
            r"\hline",
            r"\end{tabular}",
            r"\caption{" + _escape_latex(legend) + "}",
            r"\end{table}",
        ]
        return "\n".join(lines)
    lines = [
        "<table>",
        "<thead><tr><th>#</th><th>System</th>"
        + "".join(f'<th style="text-align:right">{html.escape(m)}</th>' for m in metrics)
        + "</tr></thead>",
        "<tbody>",
    ]
    for index, name in enumerate(systems):
        row = []
        for metric in metrics:
            text, best, mark = cells.get((metric, name), missing_cell)
            shown = f"<b>{text}</b>" if best else text
            row.append(
                f'<td style="text-align:right">{shown}{f"<sup>{mark}</sup>" if mark else ""}</td>'
            )
        lines.append(f"<tr><td>{letter(index)}</td><td>{html.escape(name)}</td>{''.join(row)}</tr>")
    lines += ["</tbody>", f"<caption>{html.escape(legend)}</caption>", "</table>"]
    return "\n".join(lines)
