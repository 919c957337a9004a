"""Qrels and runs, read alike by every subcommand.

Everything goes through :mod:`polars_rankmetrics.evaluation.inputs`, as
:func:`polars_rankmetrics.evaluate` reads: TREC files (plain, ``.gz``, ``-``
for standard input) with or without a header line (a first line whose numeric
fields are not numbers, such as ``topic Q0 docid rank score run_id``, is
skipped), or parquet with the usual column names. A run is named by its run id
(the single ``run_id`` of the file), else by its file name; two runs with the
same run id fall back to their file names. ``-M/--depth`` keeps each run's top
documents per query in trec_eval's order (score descending, ties by document
id descending), as ``trec_eval -M``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from polars_rankmetrics._progress import progress
from polars_rankmetrics.commands.options import CommandError, one_stdin
from polars_rankmetrics.evaluation import inputs
from polars_rankmetrics.evaluation.topics import truncate


@dataclass(frozen=True)
class NamedRun:
    """A run read from ``path``: its name (run id, else file name) and ``query, doc, score``."""

    name: str
    frame: pl.DataFrame
    path: str


def _check_unique_pairs(frame: pl.DataFrame, path: str) -> None:
    duplicated = frame.filter(pl.struct("query", "doc").is_duplicated())
    if duplicated.height:
        query, doc = duplicated.row(0)[:2]
        msg = f"{path}: duplicate (query, doc) pair ({query!r}, {doc!r})"
        raise CommandError(msg)


def read_qrels(path: str | Path, columns: dict[str, str] | None = None) -> pl.DataFrame:
    """Read qrels (TREC, ``.gz``, ``-``, parquet) as ``query: str, doc: str, relevance: i64``."""
    try:
        frame = inputs.read_qrels(str(path), columns)
    except FileNotFoundError:
        msg = f"qrels file not found: {path}"
        raise CommandError(msg) from None
    frame = frame.select("query", "doc", pl.col("relevance").cast(pl.Int64))
    _check_unique_pairs(frame, str(path))
    return frame


def file_name(path: str | Path) -> str:
    """A run's name from its file: ``bm25`` for ``runs/bm25.trec.gz``, ``stdin`` for ``-``."""
    if str(path) == "-":
        return "stdin"
    path = Path(path)
    return path.name.split(".")[0] or path.stem


def run_name(path: str | Path, run: pl.DataFrame) -> str:
    """The run's single run id, else its file name (:func:`file_name`)."""
    if "run_id" in run.columns:
        run_ids = run["run_id"].drop_nulls().unique().to_list()
        if len(run_ids) == 1:
            return str(run_ids[0])
    return file_name(path)


def read_run(
    path: str | Path, columns: dict[str, str] | None = None, *, depth: int | None = None
) -> NamedRun:
    """Read a run as its name and ``query: str, doc: str, score: f64``, cut to ``depth``."""
    try:
        run = inputs.read_run(str(path), columns)
    except FileNotFoundError:
        msg = f"run file not found: {path}"
        raise CommandError(msg) from None
    name = run_name(path, run)
    frame = run.select("query", "doc", pl.col("score").cast(pl.Float64))
    _check_unique_pairs(frame, str(path))
    return NamedRun(name, truncate(frame, depth), str(path))


def system_names(names: Sequence[str], paths: Sequence[str | Path]) -> list[str]:
    """Run ids, or file names where two runs share a run id; unique or an error."""
    if len(set(names)) == len(names):
        return list(names)
    fallback = [
        Path(path).stem if names.count(name) > 1 else name
        for name, path in zip(names, paths, strict=True)
    ]
    if len(set(fallback)) == len(fallback):
        return fallback
    msg = f"several runs have the same name: {fallback}; rename the files"
    raise CommandError(msg)


def read_runs(
    paths: Sequence[str | Path],
    columns: dict[str, str] | None = None,
    *,
    depth: int | None = None,
    show: bool | None = None,
) -> list[NamedRun]:
    """Read every run (:func:`read_run`), uniquely named, with a bar on a terminal."""
    one_stdin([str(path) for path in paths])
    read = []
    with progress("Reading runs", len(paths), show=show) as bar:
        for path in paths:
            read.append(read_run(path, columns, depth=depth))
            bar.advance()
    names = system_names([run.name for run in read], paths)
    return [NamedRun(name, run.frame, run.path) for name, run in zip(names, read, strict=True)]
