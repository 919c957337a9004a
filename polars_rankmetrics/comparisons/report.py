"""Results tables from :func:`polars_rankmetrics.compare`, as in a paper.

One row per system (the baseline first), one column per metric, each cell the
mean over queries. The best mean of each metric is in bold (every system that
ties with it at the printed precision), and a marker follows the means that are
a significant improvement over the baseline (``significant`` and ``delta > 0``).
Higher values are taken to be better, as for every ranking metric here. A note
under the table says what the marker means and counts the (system, query)
values that were filled in, dropped or ignored, so that none is hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

_REQUIRED = ("metric", "system", "mean", "delta", "significant", "is_baseline")


@dataclass(frozen=True)
class _Cell:
    text: str
    best: bool
    improved: bool


@dataclass(frozen=True)
class _Table:
    metrics: list[str]
    systems: list[str]
    baseline: str
    cells: dict[tuple[str, str], _Cell]
    notes: list[str]


def _check_digits(digits: object) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 15:
        msg = f"`digits` must be an int in [0, 15], got {digits!r}"
        raise ValueError(msg)
    return digits


def _table(comparison: pl.DataFrame, digits: int) -> _Table:
    missing = [name for name in _REQUIRED if name not in comparison.columns]
    if missing:
        msg = f"`comparison` must be a frame from compare(); it lacks the columns {missing}"
        raise ValueError(msg)
    if comparison.is_empty():
        msg = "`comparison` is empty"
        raise ValueError(msg)
    metrics = comparison["metric"].unique(maintain_order=True).to_list()
    systems = comparison["system"].unique(maintain_order=True).to_list()
    baselines = comparison.filter(pl.col("is_baseline"))["system"].unique().to_list()
    if len(baselines) != 1:
        msg = f"`comparison` must have exactly one baseline system, found {baselines}"
        raise ValueError(msg)
    cells: dict[tuple[str, str], _Cell] = {}
    for metric in metrics:
        rows = comparison.filter(pl.col("metric") == metric)
        texts = {
            row["system"]: "–" if row["mean"] is None else f"{row['mean']:.{digits}f}"
            for row in rows.iter_rows(named=True)
        }
        # Compare what is printed, so that equal printed values are both bold.
        printed = [float(text) for text in texts.values() if text != "–"]
        best = max(printed) if printed else None
        for row in rows.iter_rows(named=True):
            text = texts[row["system"]]
            cells[(metric, row["system"])] = _Cell(
                text,
                best is not None and text != "–" and float(text) == best,
                bool(row["significant"]) and (row["delta"] or 0.0) > 0.0,
            )
    return _Table(metrics, systems, baselines[0], cells, _counts_notes(comparison))


def _counts_notes(comparison: pl.DataFrame) -> list[str]:
    notes = []
    columns = comparison.columns
    if "n_filled" in columns and comparison["n_filled"].sum():
        filled = (
            comparison.filter(pl.col("n_filled") > 0)
            .group_by("system", maintain_order=True)
            .agg(pl.col("n_filled").max())
        )
        listing = ", ".join(f"{name}: {count}" for name, count in filled.iter_rows())
        notes.append(f"Missing queries scored 0 (most in one metric, per system): {listing}.")
    if "n_dropped" in columns and comparison["n_dropped"].sum():
        dropped = comparison.group_by("metric", maintain_order=True).agg(
            pl.col("n_dropped").first()
        )
        listing = ", ".join(f"{name}: {count}" for name, count in dropped.iter_rows() if count)
        notes.append(f"Queries dropped because a system had no value: {listing}.")
    if "n_ignored" in columns and comparison["n_ignored"].sum():
        ignored = comparison.group_by("system", maintain_order=True).agg(
            pl.col("n_ignored").first()
        )
        listing = ", ".join(f"{name}: {count}" for name, count in ignored.iter_rows() if count)
        notes.append(f"Rows ignored, outside the query set: {listing}.")
    return notes


def _marker_note(table: _Table, marker: str, test: str | None) -> str:
    how = f" ({test})" if test else ""
    return (
        f"Bold: best per metric. {marker}: significant improvement over the baseline "
        f"{table.baseline}{how}."
    )


def markdown_table(
    comparison: pl.DataFrame, *, digits: int = 4, marker: str = "†", test: str | None = None
) -> str:
    """
    Render a comparison as a Markdown results table.

    Systems are rows (the baseline first, with ``(baseline)`` after its name)
    and metrics are columns. The best mean per metric is ``**bold**`` and
    ``marker`` follows each mean that significantly improves on the baseline. A
    note under the table explains both and reports filled, dropped and ignored
    values.

    Parameters
    ----------
    comparison
        The result of :func:`polars_rankmetrics.compare`.
    digits
        Decimal places of the means.
    marker
        The mark of a significant improvement.
    test
        A description of the test for the note, e.g. ``"paired t-test, Holm"``.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["bm25"] * 4 + ["dense"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 2,
    ...         "map": [0.2, 0.4, 0.1, 0.5, 0.4, 0.5, 0.3, 0.7],
    ...         "P@10": [0.3, 0.5, 0.2, 0.4, 0.3, 0.4, 0.2, 0.4],
    ...     }
    ... )
    >>> print(rm.markdown_table(rm.compare(per_query, baseline="bm25"), digits=3))
    | System | map | P@10 |
    |:---|---:|---:|
    | bm25 (baseline) | 0.300 | **0.350** |
    | dense | **0.475**† | 0.325 |
    <BLANKLINE>
    Bold: best per metric. †: significant improvement over the baseline bm25.
    """
    table = _table(comparison, _check_digits(digits))
    lines = [
        "| System | " + " | ".join(_escape_markdown(m) for m in table.metrics) + " |",
        "|:---|" + "---:|" * len(table.metrics),
    ]
    for name in table.systems:
        label = f"{name} (baseline)" if name == table.baseline else name
        cells = []
        for metric in table.metrics:
            cell = table.cells.get((metric, name), _Cell("–", False, False))
            text = f"**{cell.text}**" if cell.best else cell.text
            cells.append(text + (marker if cell.improved else ""))
        lines.append(f"| {_escape_markdown(label)} | " + " | ".join(cells) + " |")
    lines += ["", _marker_note(table, marker, test), *table.notes]
    return "\n".join(lines)


def _escape_markdown(text: str) -> str:
    return text.replace("|", "\\|")


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _escape_latex(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(character, character) for character in text)


def latex_table(
    comparison: pl.DataFrame,
    *,
    digits: int = 4,
    marker: str = r"\dagger",
    test: str | None = None,
    caption: str | None = None,
    label: str | None = None,
) -> str:
    r"""
    Render a comparison as a LaTeX ``table`` with a booktabs ``tabular``.

    Systems are rows (the baseline first), metrics are columns. The best mean
    per metric is ``\textbf``, and ``$^{marker}$`` follows each mean that
    significantly improves on the baseline. The caption (``caption``, then the
    explanation of bold and the marker, then filled, dropped and ignored counts)
    keeps the table self-explanatory. Needs ``\usepackage{booktabs}``. Names are
    escaped for LaTeX.

    Parameters
    ----------
    comparison
        The result of :func:`polars_rankmetrics.compare`.
    digits
        Decimal places of the means.
    marker
        Math-mode symbol of a significant improvement.
    test
        A description of the test for the caption.
    caption
        Text that starts the caption.
    label
        A ``\label`` for the table.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["bm25"] * 4 + ["dense"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 2,
    ...         "ndcg_cut_10": [0.2, 0.4, 0.1, 0.5, 0.4, 0.5, 0.3, 0.7],
    ...     }
    ... )
    >>> print(rm.latex_table(rm.compare(per_query, baseline="bm25"), digits=3))
    \begin{table}
    \centering
    \begin{tabular}{lr}
    \toprule
    System & ndcg\_cut\_10 \\
    \midrule
    bm25 (baseline) & 0.300 \\
    dense & \textbf{0.475}$^{\dagger}$ \\
    \bottomrule
    \end{tabular}
    \caption{Bold: best per metric. $\dagger$: significant improvement over the baseline bm25.}
    \end{table}
    """
    table = _table(comparison, _check_digits(digits))
    lines = [
        r"\begin{table}",
        r"\centering",
        r"\begin{tabular}{l" + "r" * len(table.metrics) + "}",
        r"\toprule",
        "System & " + " & ".join(_escape_latex(m) for m in table.metrics) + r" \\",
        r"\midrule",
    ]
    for name in table.systems:
        label_text = f"{name} (baseline)" if name == table.baseline else name
        cells = []
        for metric in table.metrics:
            cell = table.cells.get((metric, name), _Cell("–", False, False))
            shown = "--" if cell.text == "–" else cell.text
            text = rf"\textbf{{{shown}}}" if cell.best else shown
            cells.append(text + (f"$^{{{marker}}}$" if cell.improved else ""))
        lines.append(_escape_latex(label_text) + " & " + " & ".join(cells) + r" \\")
    how = f" ({_escape_latex(test)})" if test else ""
    explanation = (
        f"Bold: best per metric. ${marker}$: significant improvement over the baseline "
        f"{_escape_latex(table.baseline)}{how}."
    )
    parts = [_escape_latex(caption)] if caption else []
    parts += [explanation, *(_escape_latex(note) for note in table.notes)]
    lines += [r"\bottomrule", r"\end{tabular}", r"\caption{" + " ".join(parts) + "}"]
    if label:
        lines.append(rf"\label{{{label}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines)
