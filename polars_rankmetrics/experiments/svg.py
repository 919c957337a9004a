"""The report's charts as plain SVG, written directly (no renderer, no script, no font file).

Two kinds, drawn from the experiment's own frames:

- :func:`pr_svg`: each run's mean interpolated precision at the 11 recall
  levels (trec_eval's ``iprec_at_recall``), one line per run, with a legend;
- :func:`delta_svg`: per measure, one row per run: its per-query differences to
  the reference run, sorted from the largest gain to the largest loss, green
  above zero and red below (a bar per query up to :data:`BARS_UP_TO` queries,
  beyond that a filled profile), on one scale for every row, with the counts
  of wins, ties and losses.

Writing the SVG here keeps the report quick to write whatever the number of
queries (a path per run, not a mark per query) and needs no browser engine;
:meth:`polars_rankmetrics.Experiment.chart` gives the same charts in Altair.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

PALETTE = (
    "#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2",
    "#b279a2", "#ff9da6", "#9d755d", "#bab0ac", "#eeca3b",
)  # fmt: skip
"""The runs' colours, in order (Vega's ``tableau10``), repeated past ten runs."""

BARS_UP_TO = 200
"""Up to this many queries a row draws a bar per query; beyond, a filled profile."""

_FONT = 'font-family="system-ui, sans-serif"'


def _text(
    x: float, y: float, text: str, *, size: int = 12, anchor: str = "start", **extra: str
) -> str:
    attributes = "".join(f' {name.replace("_", "-")}="{value}"' for name, value in extra.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {_FONT}'
        f"{attributes}>{html.escape(text)}</text>"
    )


def _line(x1: float, y1: float, x2: float, y2: float, colour: str, width: float = 1) -> str:
    return (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" '
        f'stroke-width="{width}"/>'
    )


def _svg(width: int, height: int, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img"><title>{html.escape(title)}</title>'
        + "".join(body)
        + "</svg>"
    )


def pr_svg(curves: Mapping[str, Sequence[float | None]], title: str) -> str:
    """Lines of precision at recall 0.0, 0.1, ..., 1.0, one per run, axes over [0, 1]."""
    left, top, size_x, size_y = 56, 34, 420, 300
    width, height = left + size_x + 200, top + size_y + 52
    body = [_text(left, 20, title, size=13, font_weight="600")]
    for step in range(11):
        x, y = left + step * size_x / 10, top + size_y - step * size_y / 10
        body.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + size_y}" stroke="#eee"/>'
        )
        body.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + size_x}" y2="{y:.1f}" stroke="#eee"/>'
        )
        body.append(_text(x, top + size_y + 16, f"{step / 10:.1f}", size=10, anchor="middle"))
        body.append(_text(left - 6, y + 3, f"{step / 10:.1f}", size=10, anchor="end"))
    body.append(
        f'<rect x="{left}" y="{top}" width="{size_x}" height="{size_y}" fill="none" stroke="#888"/>'
    )
    body.append(_text(left + size_x / 2, top + size_y + 36, "Recall", anchor="middle"))
    body.append(
        _text(16, top + size_y / 2, "Interpolated precision", anchor="middle",
              transform=f"rotate(-90 16 {top + size_y / 2:.1f})")
    )  # fmt: skip
    for index, (name, values) in enumerate(curves.items()):
        colour = PALETTE[index % len(PALETTE)]
        points = [
            (left + step * size_x / 10, top + size_y - (value or 0.0) * size_y)
            for step, value in enumerate(values)
        ]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        body.append(f'<polyline class="series" points="{path}" fill="none" stroke="{colour}" '
                    'stroke-width="2"/>')  # fmt: skip
        body += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>' for x, y in points]
        legend_y = top + 10 + index * 18
        body.append(f'<line x1="{left + size_x + 16}" y1="{legend_y}" x2="{left + size_x + 36}" '
                    f'y2="{legend_y}" stroke="{colour}" stroke-width="3"/>')  # fmt: skip
        body.append(_text(left + size_x + 42, legend_y + 4, name, size=11))
    return _svg(width, height, title, body)


def _bars(
    ordered: npt.NDArray[np.float64], left: float, size_x: float, zero: float, scale: float
) -> list[str]:
    """One bar per query (few queries: each one is seen)."""
    step = size_x / ordered.size
    bars = []
    for index, value in enumerate(ordered):
        if value == 0:
            continue
        top = zero - max(value, 0.0) * scale
        colour = "#2e7d32" if value > 0 else "#c62828"
        bars.append(
            f'<rect x="{left + index * step + step * 0.1:.1f}" y="{top:.1f}" '
            f'width="{step * 0.8:.1f}" height="{abs(value) * scale:.1f}" fill="{colour}"/>'
        )
    return bars


def _area(xs: npt.NDArray[np.float64], ys: npt.NDArray[np.float64], zero: float) -> str:
    points = [f"{xs[0]:.1f},{zero:.1f}"]
    points += [f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True)]
    points.append(f"{xs[-1]:.1f},{zero:.1f}")
    return " ".join(points)


def delta_svg(
    deltas: Mapping[str, npt.NDArray[np.float64]], metric: str, reference: str, title: str
) -> str:
    """One row per run: its per-query differences to ``reference``, sorted, filled by sign."""
    left, top, size_x, row = 150, 34, 480, 64
    n_rows = max(1, len(deltas))
    width, height = left + size_x + 24, top + n_rows * row + 40
    largest = max((float(np.abs(d).max()) for d in deltas.values() if d.size), default=0.0)
    scale = (row / 2 - 6) / (largest if largest > 0 else 1.0)
    body = [_text(8, 20, title, size=13, font_weight="600")]
    for index, (name, values) in enumerate(deltas.items()):
        ordered = np.sort(values)[::-1]
        zero = top + index * row + row / 2
        n = ordered.size
        xs = left + (np.arange(n) + 0.5) * size_x / max(n, 1)
        wins, ties, losses = (
            int((ordered > 0).sum()),
            int((ordered == 0).sum()),
            int((ordered < 0).sum()),
        )
        body.append(
            f'<g class="series"><rect x="{left}" y="{zero - row / 2 + 2:.1f}" '
            f'width="{size_x}" height="{row - 4}" fill="#fafafa" stroke="#ddd"/>'
        )
        if 0 < n <= BARS_UP_TO:
            body += _bars(ordered, left, size_x, zero, scale)
        elif n:
            gain = zero - np.clip(ordered, 0.0, None) * scale
            loss = zero - np.clip(ordered, None, 0.0) * scale
            body.append(f'<polygon points="{_area(xs, gain, zero)}" fill="#2e7d32"/>')
            body.append(f'<polygon points="{_area(xs, loss, zero)}" fill="#c62828"/>')
        body.append(f'<line x1="{left}" y1="{zero:.1f}" x2="{left + size_x}" y2="{zero:.1f}" '
                    'stroke="#666" stroke-width="0.5"/></g>')  # fmt: skip
        body.append(_text(left - 8, zero - 4, name, size=11, anchor="end", font_weight="600"))
        body.append(_text(left - 8, zero + 11, f"+{wins} ={ties} −{losses}", size=10, anchor="end"))
    bottom = top + n_rows * row
    body.append(
        _text(left + size_x / 2, bottom + 16, f"queries, sorted by Δ {metric} vs {reference}",
              size=11, anchor="middle")
    )  # fmt: skip
    body.append(_text(left + size_x, bottom + 16, f"scale ±{largest:.3f}", size=10, anchor="end"))
    return _svg(width, height, title, body)
