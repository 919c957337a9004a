"""An experiment's results table, in Markdown, LaTeX and HTML, and its query-set line.

Against a baseline, the table is :func:`~polars_rankmetrics.markdown_table`'s
(daggers after the means significantly better or worse than the baseline's);
over all pairs it is :func:`~polars_rankmetrics.pairs_table`'s (ranx's letters
of the runs each is significantly better than). Both are drawn from the
experiment's one ``tests`` frame, and every table ends with the line that says
which queries the means average.
"""

from __future__ import annotations

import html

import polars as pl

from polars_rankmetrics.comparisons.pairs_report import PairsFormat, pairs_table
from polars_rankmetrics.comparisons.report import _table, latex_table, markdown_table
from polars_rankmetrics.experiments.record import Record

RULES = {
    "trec_eval": "every query of the qrels, which each run has",
    "qrels": "every query of the qrels; a query a run lacks scores 0, as with trec_eval -c",
    "relevant": "the qrels' queries with a relevant document; a query a run lacks scores 0",
    "run": "each run's judged queries",
}
"""What each query-set rule averages over, in the words of the query-set line."""


def query_line(record: Record, *, count: bool = False) -> str:
    """The rule that chose the queries, what runs lacked, and the depth.

    ``count`` starts the line with the number of queries the means average
    (the tables of :mod:`..comparisons` say it themselves).
    """
    settings = record.settings
    line = f"Queries: {RULES[settings.queries]} (queries={settings.queries!r})."
    if count:
        counts = record.summary.get_column("n_queries").unique().sort().to_list()
        shown = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        line = f"Means over {shown} queries. {line}"
    lacking = [
        f"{name}: {len(absent)}"
        for name, absent in record.runs.select("system", "lacking").iter_rows()
        if absent
    ]
    if lacking:
        fate = (
            "dropped for every run"
            if settings.queries == "run" and settings.missing == "drop"
            else "scored 0"
        )
        line += f" Queries a run lacks, {fate}: {', '.join(lacking)}."
    if settings.depth is not None:
        line += f" Each run cut to its top {settings.depth} documents per query (trec_eval -M)."
    return line


def comparison_frame(record: Record) -> pl.DataFrame:
    """The summary with each run's test against the baseline, in :func:`compare`'s columns.

    With one run (no test), that run stands as the baseline.
    """
    baseline = record.settings.baseline or record.systems[0]
    against = record.tests.filter(pl.col("system_a") == baseline).select(
        "metric",
        pl.col("system_b").alias("system"),
        "delta",
        "p_value",
        "p_value_adjusted",
        "significant",
    )
    summary = record.summary.drop("n_filled", "n_dropped")  # the query line says them
    joined = summary.join(against, on=["metric", "system"], how="left")
    return (
        joined.with_columns(
            pl.col("delta").fill_null(0.0),
            is_baseline=pl.col("system") == baseline,
            n_ignored=pl.lit(0, pl.Int64),
        )
        .sort(pl.col("system") != baseline, maintain_order=True)
        .sort(
            pl.col("metric").replace_strict({m: i for i, m in enumerate(record.metrics)}),
            maintain_order=True,
        )
    )


def _letters(record: Record) -> bool:
    """Whether the table marks ranx's letters (all pairs) rather than daggers (a baseline)."""
    return record.settings.baseline is None and not record.tests.is_empty()


def _pairs(record: Record, format: PairsFormat, digits: int) -> str:
    """The letters table of the record's pairwise tests, in ``format``."""
    settings = record.settings
    return pairs_table(
        record.tests,
        format=format,
        digits=digits,
        test=settings.test_name.split(",")[0],
        correction=None if settings.correction is None else settings.correction_name,
        alpha=settings.alpha,
    )


def markdown(record: Record, *, digits: int = 4) -> str:
    """The results table in Markdown, then the query-set line."""
    settings = record.settings
    if _letters(record):
        text = _pairs(record, "markdown", digits)
    else:
        text = markdown_table(comparison_frame(record), digits=digits, test=settings.test_name)
    return f"{text}\n{query_line(record)}"


def latex(record: Record, *, digits: int = 4) -> str:
    """The results table in LaTeX (a plain ``tabular``), the query-set line as a comment."""
    settings = record.settings
    if _letters(record):
        text = _pairs(record, "latex", digits)
    else:
        text = latex_table(
            comparison_frame(record),
            digits=digits,
            test=settings.test_name.replace("α", "alpha"),
        )
    return f"{text}\n% {query_line(record)}"


def _baseline_html(record: Record, digits: int) -> str:
    """The daggers table in HTML: the best in bold, † better, ‡ worse than the baseline."""
    table = _table(comparison_frame(record), digits)
    head = "".join(f'<th class="num">{html.escape(metric)}</th>' for metric in table.metrics)
    rows = []
    for name in table.systems:
        label = (
            f"{html.escape(name)} <i>(baseline)</i>"
            if name == table.baseline
            else html.escape(name)
        )
        cells = []
        for metric in table.metrics:
            cell = table.cells.get((metric, name))
            if cell is None:
                cells.append('<td class="num">–</td>')
                continue
            text = f"<b>{cell.text}</b>" if cell.best else cell.text
            mark = "†" if cell.improved else ("‡" if cell.worse else "")
            title = "" if cell.p_value is None else f' title="p = {cell.p_value:.4g}"'
            cells.append(f'<td class="num"{title}>{text}{mark}</td>')
        rows.append(f"<tr><th>{label}</th>{''.join(cells)}</tr>")
    legend = (
        f"Bold: best per measure. †: significantly better than the baseline "
        f"{table.baseline}; ‡: significantly worse ({record.settings.test_name})."
    )
    return (
        '<table class="results"><thead><tr><th>Run</th>'
        + head
        + "</tr></thead><tbody>"
        + "".join(rows)
        + f"</tbody><caption>{html.escape(legend)}</caption></table>"
    )


def summary_html(record: Record, *, digits: int = 4) -> str:
    """The results table in HTML (readable without JavaScript), then the query-set line."""
    if _letters(record):
        table = _pairs(record, "html", digits).replace("<table>", '<table class="results">', 1)
        line = query_line(record)
    else:
        table = _baseline_html(record, digits)
        line = query_line(record, count=True)
    return f'{table}\n<p class="queries">{html.escape(line)}</p>'
