"""Results tables from :func:`polars_rankmetrics.compare`, as in a paper.

One row per system (the baseline first), one column per metric, each cell the
mean over queries. The best mean of each metric is in bold (every system that
ties with it at the printed precision), and a marker follows the means that
differ significantly from the baseline's: one marker for a significant
improvement (``significant`` and ``delta > 0``), another for a significant loss
(``significant`` and ``delta < 0``). Higher values are taken to be better, as
for every ranking metric here. Optionally each cell also shows the (adjusted)
p-value of its difference to the baseline and the confidence interval of its
mean. A note under the table says what the markers mean and counts the
(system, query) values that were filled in, dropped or ignored, so that none is
hidden.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import polars as pl

_REQUIRED = ("metric", "system", "mean", "delta", "significant", "is_baseline")


@dataclass(frozen=True)
class _Cell:
    text: str
    best: bool
    improved: bool
    worse: bool = False
    p_value: float | None = None
    interval: tuple[float, float] | None = None


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


def _check_extras(comparison: pl.DataFrame, p_values: bool, intervals: bool) -> None:
    wanted = (["p_value"] if p_values else []) + (["ci_low", "ci_high"] if intervals else [])
    absent = [name for name in wanted if name not in comparison.columns]
    if absent:
        msg = f"`comparison` lacks the columns {absent} that p_values/intervals show"
        raise ValueError(msg)


def _p_of(row: dict[str, object]) -> float | None:
    """The p-value that decided ``significant``: the adjusted one where there is one."""
    for name in ("p_value_adjusted", "p_value"):
        value = row.get(name)
        if isinstance(value, float) and value == value:
            return value
    return None


def _interval_of(row: dict[str, object]) -> tuple[float, float] | None:
    low, high = row.get("ci_low"), row.get("ci_high")
    if isinstance(low, float) and isinstance(high, float):
        return low, high
    return None


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
            significant = bool(row["significant"]) and not row["is_baseline"]
            cells[(metric, row["system"])] = _Cell(
                text,
                best is not None and text != "–" and float(text) == best,
                significant and (row["delta"] or 0.0) > 0.0,
                significant and (row["delta"] or 0.0) < 0.0,
                None if row["is_baseline"] else _p_of(row),
                _interval_of(row),
            )
    return _Table(metrics, systems, baselines[0], cells, _counts_notes(comparison))


def p_value_text(p: float) -> str:
    """A p-value as a table prints it: three decimals, or ``<0.001``."""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def query_count_line(comparison: pl.DataFrame) -> str | None:
    """``Means over 44 queries.`` (``44 to 45`` where the metrics differ), from ``n_queries``."""
    if "n_queries" not in comparison.columns or comparison.is_empty():
        return None
    counts = comparison.get_column("n_queries").drop_nulls().unique().sort().to_list()
    if not counts:
        return None
    shown = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    return f"Means over {shown} {'query' if counts == [1] else 'queries'}."


def _counts_notes(comparison: pl.DataFrame) -> list[str]:
    line = query_count_line(comparison)
    notes = [] if line is None else [line]
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


def _legend(
    table: _Table,
    markers: tuple[str, str],
    test: str | None,
    extras: tuple[bool, bool],
) -> list[str]:
    """The note under the table: bold, both markers, the p-values and intervals shown."""
    how = f" ({test})" if test else ""
    gain, loss = markers
    lines = [
        f"Bold: best per metric. {gain}: significant improvement over the baseline "
        f"{table.baseline}{how}.",
        f"{loss}: significantly worse than the baseline.",
    ]
    p_values, intervals = extras
    if p_values:
        lines.append("p: the p-value of the difference to the baseline (adjusted, if corrected).")
    if intervals:
        lines.append("[low, high]: the confidence interval of the mean (level 1 - α).")
    return lines


def _extras_text(cell: _Cell, extras: tuple[bool, bool], digits: int) -> str:
    p_values, intervals = extras
    parts = []
    if p_values and cell.p_value is not None:
        shown = p_value_text(cell.p_value)
        parts.append(f"(p{shown})" if shown.startswith("<") else f"(p={shown})")
    if intervals and cell.interval is not None:
        low, high = cell.interval
        parts.append(f"[{low:.{digits}f}, {high:.{digits}f}]")
    return " ".join(parts)


def markdown_table(
    comparison: pl.DataFrame,
    *,
    digits: int = 4,
    marker: str = "†",
    loss_marker: str = "‡",
    test: str | None = None,
    p_values: bool = False,
    intervals: bool = False,
) -> str:
    """
    Render a comparison as a Markdown results table.

    Systems are rows (the baseline first, with ``(baseline)`` after its name)
    and metrics are columns. The best mean per metric is ``**bold**``;
    ``marker`` follows each mean that significantly improves on the baseline,
    ``loss_marker`` each mean significantly worse than it. A note under the
    table explains them and reports filled, dropped and ignored values.

    Parameters
    ----------
    comparison
        The result of :func:`polars_rankmetrics.compare`.
    digits
        Decimal places of the means (and of the intervals).
    marker
        The mark of a significant improvement (``"▲"``, ``"+"``, ...).
    loss_marker
        The mark of a significant loss (``"▼"``, ``"-"``, ...).
    test
        A description of the test for the note, e.g. ``"paired t-test, Holm"``.
    p_values
        Also print each system's p-value against the baseline (the adjusted one
        when a correction was applied; ``<0.001`` below 0.001) after its mean.
    intervals
        Also print the confidence interval of each mean, ``[low, high]``.

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
    ‡: significantly worse than the baseline.
    Means over 4 queries.
    >>> table = rm.markdown_table(
    ...     rm.compare(per_query, baseline="bm25"), digits=3, marker="▲", p_values=True
    ... )
    >>> print(table.splitlines()[3])
    | dense | **0.475**▲ (p=0.006) | 0.325 (p=0.391) |
    """
    table = _table(comparison, _check_digits(digits))
    _check_extras(comparison, p_values, intervals)
    extras = (p_values, intervals)
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
            text += marker if cell.improved else (loss_marker if cell.worse else "")
            extra = _extras_text(cell, extras, digits)
            cells.append(f"{text} {extra}" if extra else text)
        lines.append(f"| {_escape_markdown(label)} | " + " | ".join(cells) + " |")
    lines += ["", *_legend(table, (marker, loss_marker), test, extras), *table.notes]
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
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    # Plain pdflatex reads ASCII only (no inputenc, no unicode-math): the usual
    # non-ASCII characters of names and notes, in commands of LaTeX's base.
    "α": r"$\alpha$",
    "β": r"$\beta$",
    "–": "--",
    "—": "---",
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    "…": r"\ldots{}",
    "†": r"$\dagger$",
    "‡": r"$\ddagger$",
    "▲": r"$\bigtriangleup$",
    "▼": r"$\bigtriangledown$",
    "±": r"$\pm$",
    "×": r"$\times$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "·": r"$\cdot$",
}


def _escape_latex(text: str) -> str:
    """``text`` as pure-ASCII LaTeX: specials escaped, other characters spelt in ASCII.

    An accented letter loses its accent (``é`` becomes ``e``); a character with
    no ASCII spelling becomes ``?``.
    """
    out = []
    for character in text:
        if character in _LATEX_SPECIALS:
            out.append(_LATEX_SPECIALS[character])
        elif character.isascii():
            out.append(character)
        else:
            plain = unicodedata.normalize("NFKD", character).encode("ascii", "ignore").decode()
            out.append("".join(_LATEX_SPECIALS.get(c, c) for c in plain) or "?")
    return "".join(out)


def _latex_extras(cell: _Cell, extras: tuple[bool, bool], digits: int) -> str:
    p_values, intervals = extras
    parts = []
    if p_values and cell.p_value is not None:
        parts.append(f"($p{'<0.001' if cell.p_value < 0.001 else f'={cell.p_value:.3f}'}$)")
    if intervals and cell.interval is not None:
        low, high = cell.interval
        parts.append(f"[{low:.{digits}f}, {high:.{digits}f}]")
    return r" {\footnotesize " + " ".join(parts) + "}" if parts else ""


def latex_table(
    comparison: pl.DataFrame,
    *,
    digits: int = 4,
    marker: str = r"\dagger",
    loss_marker: str = r"\ddagger",
    test: str | None = None,
    caption: str | None = None,
    label: str | None = None,
    p_values: bool = False,
    intervals: bool = False,
    booktabs: bool = False,
) -> str:
    r"""
    Render a comparison as a LaTeX ``table``, pure ASCII.

    Systems are rows (the baseline first), metrics are columns. The best mean
    per metric is ``\textbf``; ``$^{marker}$`` follows each mean that
    significantly improves on the baseline, ``$^{loss_marker}$`` each one
    significantly worse. The caption (``caption``, then the explanation of bold
    and the markers, then filled, dropped and ignored counts) keeps the table
    self-explanatory. The source is ASCII (names and notes are escaped, ``α``
    is ``$\alpha$``, accents are dropped), so plain ``pdflatex`` compiles it;
    its ``\hline`` rules need no package (``booktabs=True`` gives booktabs'
    rules, which need ``\usepackage{booktabs}``).

    Parameters
    ----------
    comparison
        The result of :func:`polars_rankmetrics.compare`.
    digits
        Decimal places of the means (and of the intervals).
    marker
        Math-mode symbol of a significant improvement (``\bigtriangleup``, ...).
    loss_marker
        Math-mode symbol of a significant loss (``\bigtriangledown``, ...).
    test
        A description of the test for the caption.
    caption
        Text that starts the caption.
    label
        A ``\label`` for the table.
    p_values
        Also print each system's p-value against the baseline after its mean.
    intervals
        Also print the confidence interval of each mean.
    booktabs
        ``\toprule``/``\midrule``/``\bottomrule`` (booktabs), not ``\hline``.

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
    \hline
    System & ndcg\_cut\_10 \\
    \hline
    bm25 (baseline) & 0.300 \\
    dense & \textbf{0.475}$^{\dagger}$ \\
    \hline
    \end{tabular}
    \caption{Bold: best per metric. $\dagger$: significant improvement over the baseline bm25.
    $\ddagger$: significantly worse than the baseline.
    Means over 4 queries.}
    \end{table}
    """
    table = _table(comparison, _check_digits(digits))
    _check_extras(comparison, p_values, intervals)
    extras = (p_values, intervals)
    rules = (r"\toprule", r"\midrule", r"\bottomrule") if booktabs else (r"\hline",) * 3
    lines = [
        r"\begin{table}",
        r"\centering",
        r"\begin{tabular}{l" + "r" * len(table.metrics) + "}",
        rules[0],
        "System & " + " & ".join(_escape_latex(m) for m in table.metrics) + r" \\",
        rules[1],
    ]
    for name in table.systems:
        label_text = f"{name} (baseline)" if name == table.baseline else name
        cells = []
        for metric in table.metrics:
            cell = table.cells.get((metric, name), _Cell("–", False, False))
            shown = "--" if cell.text == "–" else cell.text
            text = rf"\textbf{{{shown}}}" if cell.best else shown
            mark = marker if cell.improved else (loss_marker if cell.worse else "")
            cells.append(
                text + (f"$^{{{mark}}}$" if mark else "") + _latex_extras(cell, extras, digits)
            )
        lines.append(_escape_latex(label_text) + " & " + " & ".join(cells) + r" \\")
    legend = _legend(table, (f"${marker}$", f"${loss_marker}$"), None, extras)
    how = f" ({_escape_latex(test)})" if test else ""
    first = legend[0].replace(
        f"baseline {table.baseline}.", f"baseline {_escape_latex(table.baseline)}{how}.", 1
    )
    legend = [first, legend[1], *(_escape_latex(line) for line in legend[2:])]
    parts = [_escape_latex(caption)] if caption else []
    parts += [*legend, *(_escape_latex(note) for note in table.notes)]
    lines += [rules[2], r"\end{tabular}", r"\caption{" + "\n".join(parts) + "}"]
    if label:
        lines.append(rf"\label{{{label}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines)
