"""An experiment as one self-contained HTML page, and :meth:`Experiment.save` by suffix.

The page loads nothing: its style is inline, it has no script, and every chart
is an SVG written into the page (:mod:`.svg`), so it opens from a laptop
offline, its tables read without JavaScript, and writing it needs neither
altair nor a renderer. Every file is written atomically (a temporary file beside it, then
a rename): a failed write leaves no half-written report.
"""

from __future__ import annotations

import dataclasses
import html
import json
from pathlib import Path

import polars as pl

from polars_rankmetrics._atomic import replacing, write_atomically
from polars_rankmetrics.experiments.record import Record

SAVED = (".html", ".htm", ".md", ".tex", ".csv", ".json", ".parquet")
"""The suffixes :meth:`polars_rankmetrics.Experiment.save` writes."""

_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;
max-width:72rem;padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;margin-top:2.2rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.8rem 0;font-size:.92rem}
th,td{border:1px solid #ccc;padding:.25rem .6rem;text-align:left;vertical-align:top}
thead th{background:#f3f3f3}td.num,th.num,td[style]{text-align:right;
font-variant-numeric:tabular-nums}caption{caption-side:bottom;text-align:left;
font-size:.85rem;color:#555;padding-top:.3rem}.queries,.lead{color:#444}
figure{margin:1rem 0;overflow-x:auto}figcaption{font-size:.85rem;color:#555}
.yes{color:#2e7d32;font-weight:600}code{background:#f6f6f6;padding:0 .2rem}
"""


def _cell(value: object, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}" if abs(value) >= 10**-digits or value == 0 else f"{value:.2e}"
    if isinstance(value, list):
        shown = ", ".join(str(item) for item in value[:10])
        return shown + (f", … ({len(value)} in all)" if len(value) > 10 else "")
    return str(value)


def frame_html(frame: pl.DataFrame, *, caption: str | None = None) -> str:
    """A small frame as an HTML table, numbers right-aligned."""
    numeric = {name for name, dtype in frame.schema.items() if dtype.is_numeric()}
    head = "".join(
        f"<th{' class=num' if name in numeric else ''}>{html.escape(name)}</th>"
        for name in frame.columns
    )
    rows = []
    for row in frame.iter_rows():
        cells = "".join(
            f"<td{' class=num' if name in numeric else ''}>{html.escape(_cell(value))}</td>"
            for name, value in zip(frame.columns, row, strict=True)
        )
        rows.append(f"<tr>{cells}</tr>")
    caption_html = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return (
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>{caption_html}</table>"
    )


def _figure(svg: str, caption: str, name: str) -> str:
    return (
        f'<figure class="chart" id="chart-{html.escape(name)}">{svg}'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _tests_html(record: Record) -> str:
    tests = record.tests
    if tests.is_empty():
        return "<p>One run: nothing to test.</p>"
    shown = tests.select(
        "metric",
        pl.col("system_a").alias("run A"),
        pl.col("system_b").alias("run B"),
        pl.col("delta").alias("Δ (B − A)"),
        "p_value",
        "p_value_adjusted",
        "significant",
        "better",
        "n_queries",
    )
    return frame_html(shown, caption=f"{record.settings.test_name}; Δ = mean of B − mean of A.")


def _charts_html(record: Record) -> str:
    from polars_rankmetrics.experiments.build import deltas
    from polars_rankmetrics.experiments.svg import delta_svg, pr_svg

    parts = []
    if len(record.systems) > 1:
        parts.append("<h2 id=deltas>Per-query differences</h2>")
        why = "the baseline" if record.settings.baseline else "the run with the best mean"
        for metric in record.metrics:
            reference = record.reference[metric]
            found = deltas(
                record.per_query, record.systems, metric, reference, record.settings.missing
            )
            title = f"Per-query Δ {metric} vs {reference}"
            caption = (
                f"{metric}: each run's per-query difference to {reference} ({why}), sorted; "
                "green: better, red: worse; +wins =ties −losses."
            )
            parts.append(
                _figure(delta_svg(found, metric, reference, title), caption, f"delta-{metric}")
            )
    curves = record.curves
    points = {
        name: curves.filter(pl.col("system") == name).sort("recall")["precision"].to_list()
        for name in record.systems
    }
    counts = curves.get_column("n_queries").unique().sort().to_list()
    shown = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    title = f"Interpolated precision-recall, mean over {shown} queries"
    parts.append("<h2 id=curves>Precision-recall curves</h2>")
    caption = (
        "Interpolated precision at recall 0.0, 0.1, ..., 1.0 (trec_eval's iprec_at_recall), "
        "averaged over the compared queries."
    )
    parts.append(_figure(pr_svg(points, title), caption, "pr"))
    return "\n".join(parts)


def _metadata_html(record: Record) -> str:
    settings = record.settings
    items = {
        "qrels": settings.qrels,
        "measures": ", ".join(settings.measures),
        "baseline": settings.baseline or "none: every pair is tested",
        "test": settings.test_name,
        "query set": f"queries={settings.queries!r}"
        + (f", missing={settings.missing!r}" if settings.queries == "run" else ""),
        "depth": "every document" if settings.depth is None else f"top {settings.depth} (-M)",
        "intervals": f"{'Student t' if settings.ci == 't' else 'bootstrap'}, "
        f"{1 - settings.alpha:.0%}",
        "seed, resamples": f"{settings.seed}, {settings.n_resamples}",
        "polars_rankmetrics": settings.version,
    }
    listing = "".join(
        f"<tr><th>{html.escape(key)}</th><td>{html.escape(str(value))}</td></tr>"
        for key, value in items.items()
    )
    runs = record.runs.rename({"system": "run", "source": "file or object"})
    return (
        "<h2 id=runs>Runs and settings</h2>"
        + frame_html(runs, caption="lacking: the compared queries a run has no ranking for.")
        + f"<table class=settings><tbody>{listing}</tbody></table>"
    )


def html_report(record: Record) -> str:
    """The whole report: results, tests, win/tie/loss, charts, runs and settings."""
    from polars_rankmetrics.experiments.tables import summary_html

    settings = record.settings
    title = f"Experiment: {', '.join(record.systems)}"
    lead = (
        f"{len(record.systems)} runs, {len(record.metrics)} measures, "
        f"{settings.test_name}; polars_rankmetrics {settings.version}."
    )
    wtl = record.win_tie_loss
    wtl_html = (
        frame_html(
            wtl,
            caption="Queries on which each run scores higher (wins), the same (ties) or "
            "lower (losses) than the reference run.",
        )
        if not wtl.is_empty()
        else "<p>One run: nothing to count.</p>"
    )
    body = [
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="lead">{html.escape(lead)}</p>',
        "<h2 id=results>Results</h2>",
        summary_html(record),
        "<h2 id=tests>Significance tests</h2>",
        _tests_html(record),
        "<h2 id=win-tie-loss>Wins, ties and losses</h2>",
        wtl_html,
        _charts_html(record),
        _metadata_html(record),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def check_path(path: str | Path) -> Path:
    """``path`` if its suffix is one :meth:`save` writes and its folder exists; else ValueError."""
    target = Path(path)
    if target.suffix.lower() not in SAVED:
        msg = f"`path`: {str(path)!r} must end in one of {', '.join(SAVED)}"
        raise ValueError(msg)
    if not target.parent.is_dir():
        msg = f"`path`: the folder {str(target.parent)!r} of {str(path)!r} does not exist"
        raise ValueError(msg)
    return target


def _json(record: Record) -> str:
    frames = {
        name: getattr(record, name).to_dicts()
        for name in ("summary", "tests", "win_tie_loss", "curves", "runs")
    }
    return json.dumps({"settings": dataclasses.asdict(record.settings), **frames}, indent=1)


def save(record: Record, path: str | Path) -> None:
    """Write ``record`` to ``path`` in the format of its suffix, atomically."""
    from polars_rankmetrics.experiments.tables import latex, markdown

    target = check_path(path)
    suffix = target.suffix.lower()
    if suffix == ".parquet":
        with replacing(target) as temporary:
            record.per_query.write_parquet(temporary)
        return
    if suffix in (".html", ".htm"):
        text = html_report(record)
    elif suffix == ".md":
        text = markdown(record) + "\n"
    elif suffix == ".tex":
        text = latex(record) + "\n"
    elif suffix == ".csv":
        text = record.summary.write_csv()
    else:
        text = _json(record) + "\n"
    write_atomically(target, text.encode())
