"""``rankmetrics trec-eval``: trec_eval 10's command line, output and numbers.

The same command lines as trec_eval 10 print the same bytes and exit with the
same status (see :mod:`.trec_eval` for what is reproduced, and the README's
TREC section for the few differences). ``--output FILE`` and ``--format
trec|json|csv|parquet`` write a table instead of trec_eval's text: one row per
query (with ``-q``) and a row ``all``.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_rankmetrics._atomic import write_atomically
from polars_rankmetrics._progress import progress
from polars_rankmetrics.trec.help import help_text
from polars_rankmetrics.trec.trec_eval import (
    USAGE,
    Finished,
    Report,
    Requested,
    Settings,
    evaluate_topics,
    initialise,
    parse_command_line,
    read_inputs,
)

FORMATS = ("trec", "json", "csv", "parquet")
"""What ``--format`` takes: trec_eval's text, or a table."""

_PREFIX = "rankmetrics trec-eval: "

QUIET = "--quiet"
"""This library's flag (not trec_eval's): no progress bar. Only the whole word is
taken, so that trec_eval's abbreviations (``--q`` for ``--query_eval_wanted``) keep
their meaning."""


def without_quiet(argv: Sequence[str]) -> tuple[list[str], bool]:
    """``argv`` without ``--quiet`` (before a ``--``), and whether it was there."""
    arguments = list(argv)
    end = arguments.index("--") if "--" in arguments else len(arguments)
    kept = [a for a in arguments[:end] if a != QUIET] + arguments[end:]
    return kept, len(kept) != len(arguments)


def output_format(settings: Settings) -> str:
    """``--format``, or the output file's extension (``.parquet``, ``.json``, ``.csv``), or trec."""
    if settings.format is not None:
        if settings.format not in FORMATS:
            msg = f"--format must be one of {', '.join(FORMATS)}, got {settings.format!r}"
            raise Finished(2, msg)
        return settings.format
    suffix = Path(settings.output or "").suffix.lower()
    return {".parquet": "parquet", ".json": "json", ".csv": "csv"}.get(suffix, "trec")


def table(report: Report, requested: list[Requested], settings: Settings) -> pl.DataFrame:
    """The report as one table: a row per query (with ``-q``), then a row ``all``."""
    columns = [c for item in requested for c in item.columns]
    rows: list[dict[str, Any]] = []
    if settings.query:
        for topic, values in report.per_query:
            rows.append(
                {"query": topic, **{c.name: values[c.name] for c in columns if c.measure.per_query}}
            )
    if settings.summary:
        rows.append({"query": "all", **report.summary})
    schema: dict[str, pl.DataType] = {"query": pl.String()}
    for column in columns:
        schema.setdefault(column.name, column.dtype)
    frame = pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)
    if "runid" in settings.marked:
        frame = frame.with_columns(pl.lit(report.run_id).alias("runid"))
    return frame


def _serialise(frame: pl.DataFrame, fmt: str) -> bytes:
    if fmt == "parquet":
        buffer = io.BytesIO()
        frame.write_parquet(buffer)
        return buffer.getvalue()
    text = frame.write_json() if fmt == "json" else frame.write_csv()
    return (text if text.endswith("\n") else text + "\n").encode()


def _refuse_binary_to_terminal(settings: Settings, fmt: str) -> None:
    """Parquet to a terminal is refused before any work (exit status 2)."""
    if fmt == "parquet" and settings.output is None and sys.stdout.isatty():
        msg = (
            "parquet output is binary: give a file with --output FILE, or redirect standard output"
        )
        raise Finished(2, msg)


def _deliver(data: bytes, settings: Settings, binary: bool, encoding: str = "utf-8") -> None:
    if settings.output is not None:
        try:
            write_atomically(settings.output, data)
        except OSError as error:
            raise Finished(2, f"cannot write {settings.output}: {error.strerror}") from None
        return
    if binary:
        _refuse_binary_to_terminal(settings, "parquet")
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:
        # A text-only stdout (contextlib.redirect_stdout, a notebook): text goes
        # through it decoded; parquet cannot.
        if binary:
            msg = "parquet output is binary and standard output takes text only: give --output FILE"
            raise Finished(2, msg)
        sys.stdout.write(data.decode(encoding, errors="surrogateescape"))
        sys.stdout.flush()
        return
    stream.write(data)
    stream.flush()


def run(argv: Sequence[str]) -> int:
    """Run ``rankmetrics trec-eval`` with ``argv``; returns the exit status."""
    encoding = "utf-8"
    argv, quiet = without_quiet(argv)
    try:
        settings = parse_command_line(argv)
        if settings.help:
            sys.stdout.write(help_text())
            return 0
        if len(settings.operands) != 2:
            raise Finished(1, USAGE)
        fmt = output_format(settings)
        _refuse_binary_to_terminal(settings, fmt)
        with progress("reading the qrels and the run", show=False if quiet else None) as bar:
            inputs = read_inputs(settings)
            encoding = inputs.encoding
            requested = initialise(settings)
            queries = inputs.qrels.get_column("query").n_unique()
            bar.step(f"evaluating {inputs.run.height:,} ranked documents, {queries:,} queries")
            try:
                report = evaluate_topics(settings, inputs, requested)
            except Finished as finished:
                if fmt == "trec":
                    _deliver("".join(finished.lines).encode(encoding), settings, False, encoding)
                raise
        if fmt == "trec":
            _deliver("".join(report.lines).encode(encoding), settings, False, encoding)
        else:
            _deliver(
                _serialise(table(report, requested, settings), fmt), settings, fmt == "parquet"
            )
    except Finished as finished:
        if finished.message:
            for text in finished.message.rstrip("\n").split("\n"):
                plain = text.startswith(("Usage:", "   ", "rankmetrics "))
                sys.stderr.write(f"{'' if plain else _PREFIX}{text}\n")
        return finished.status
    except BrokenPipeError:  # the reader went away: ends quietly in cli.main
        raise
    except OSError as error:  # writing the output
        sys.stderr.write(f"{_PREFIX}{error}\n")
        return 2
    return 0


def add_subcommand(subcommands: Any) -> None:
    """Register ``rankmetrics trec-eval``; :func:`run` reads its arguments, as trec_eval's."""
    subcommands.add_parser(
        "trec-eval",
        help="evaluate a TREC run against qrels, exactly as trec_eval 10 does",
        description="Evaluate a TREC run against qrels, with trec_eval 10's flags and output.",
        add_help=False,
    )
