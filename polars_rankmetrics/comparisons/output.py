"""What ``rankmetrics compare`` writes: the format, the markers, the file, the warnings.

The table goes to standard output, or with ``-o FILE`` to ``FILE``, written
atomically (a temporary file renamed: an interrupted run leaves no truncated
table). The format is ``--format``, else the file's extension (``.md``,
``.tex``, ``.csv``, ``.json``), else Markdown.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from polars_rankmetrics._atomic import write_atomically

FORMATS = ("markdown", "latex", "csv", "json", "html")
"""What ``--format`` takes."""

EXTENSIONS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "markdown",
    ".tex": "latex",
    ".csv": "csv",
    ".json": "json",
    ".html": "html",
}
"""The format an output file's extension stands for."""

FEW_QUERIES = 10
"""Below this many paired queries, ``compare`` warns that its test means little."""


@dataclass(frozen=True)
class Markers:
    """The marks of a significant improvement and loss, in Markdown and in LaTeX (math)."""

    gain: str
    loss: str
    latex_gain: str
    latex_loss: str


MARKERS = {
    "arrows": Markers("▲", "▼", r"\bigtriangleup", r"\bigtriangledown"),
    "daggers": Markers("†", "‡", r"\dagger", r"\ddagger"),
    "ascii": Markers("+", "-", "+", "-"),
}
"""``--markers``: triangles, daggers (the default), or ASCII ``+``/``-``."""

DEFAULT_MARKERS = "daggers"
"""The markers of ``rankmetrics compare`` and the defaults of ``markdown_table`` and
``latex_table`` alike: † and ‡ (``\\dagger``, ``\\ddagger``), as IR papers mark them."""


class OutputError(Exception):
    """An output that cannot be written as asked: one line on stderr, exit status 2."""


def output_format(requested: str | None, output: str | None) -> str:
    """``--format``, else the extension of ``-o``'s file, else Markdown."""
    if requested is not None:
        return requested
    if output is None:
        return "markdown"
    suffix = Path(output).suffix.lower()
    if suffix not in EXTENSIONS:
        msg = (
            f"-o {output}: cannot tell the format from the extension {suffix or '(none)'!r}; "
            f"use one of {', '.join(EXTENSIONS)}, or give --format"
        )
        raise OutputError(msg)
    return EXTENSIONS[suffix]


def deliver(text: str, output: str | None) -> None:
    """Print ``text``, or write it (and a final newline) to ``output`` atomically."""
    if output is None:
        print(text)
        return
    try:
        write_atomically(output, (text + "\n").encode())
    except OSError as error:
        raise OutputError(f"cannot write {output}: {error.strerror}") from None


def warn_if_few_queries(comparison: pl.DataFrame) -> None:
    """Warn on stderr when the paired test runs over fewer than :data:`FEW_QUERIES` queries."""
    if "n_queries" not in comparison.columns or comparison.is_empty():
        return
    fewest = comparison["n_queries"].min()
    if not isinstance(fewest, int) or fewest >= FEW_QUERIES:
        return
    sys.stderr.write(
        f"rankmetrics: warning: only {fewest} paired "
        f"{'query' if fewest == 1 else 'queries'} (fewer than {FEW_QUERIES}): a paired "
        "significance test over so few queries means little; read the markers and "
        "p-values with care\n"
    )
