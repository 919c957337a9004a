"""The runs of an experiment, named: ``runs=`` as a mapping, a sequence or one long frame.

A name is settled before anything is read in full, so that a duplicate name or
a baseline that is not a run is refused at once: a mapping's keys; for a
sequence, the run id of a TREC file (the sixth field of its first line) or of a
parquet file or a polars, pandas or pyarrow table (its single ``run_id``
value), else a ranx ``Run``'s name, else the file name without its extensions
(the whole file name where two such names collide), else ``run_1``, ``run_2``,
... Two files that share a run id are named by their file names, as
``rankmetrics compare`` names them. One long frame with a ``system`` column is
one run per value of that column, in order of first appearance.
"""

from __future__ import annotations

import gzip
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

RUN_ID_COLUMNS = ("run_id", "runid", "run", "tag")
"""The columns of a table that may hold its run id (as the input adapters find them)."""


@dataclass(frozen=True)
class NamedRun:
    """One run of the experiment: its name, its source, and what the source is."""

    name: str
    source: Any
    described: str


def describe(source: object) -> str:
    """A short description of a run or qrels source, for the report's metadata."""
    if isinstance(source, str | Path):
        return str(source)
    kind = type(source)
    if kind.__module__.startswith("ranx."):
        name = getattr(source, "name", None)
        return f"ranx {kind.__name__}" + (f" {name!r}" if name else "")
    if isinstance(source, pl.DataFrame):
        return f"polars DataFrame ({source.height:,} rows)"
    if isinstance(source, pl.LazyFrame):
        return "polars LazyFrame"
    if isinstance(source, Mapping):
        return f"dict ({len(source):,} queries)"
    return f"{kind.__module__.split('.')[0]} {kind.__name__}"


def _first_line_run_id(path: Path) -> str | None:
    """The sixth field of a TREC run file's first data line, or None."""
    opener: Any = gzip.open if path.suffix.lower() == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as file:
            for line in file:
                fields = line.split()
                if fields and not fields[0].startswith("#"):
                    return fields[5] if len(fields) >= 6 else None
    except OSError:
        return None
    return None


def _table_run_id(frame: pl.LazyFrame) -> str | None:
    """The single run id of a table, or None (no run id column, or several ids)."""
    names = frame.collect_schema().names()
    column = next((name for name in RUN_ID_COLUMNS if name in names), None)
    if column is None:
        return None
    ids = frame.select(pl.col(column).drop_nulls().unique().head(2)).collect().to_series()
    return str(ids[0]) if ids.len() == 1 else None


def run_id_of(source: object) -> str | None:
    """The run id a source names itself by, read cheaply (a line, or one column), or None."""
    if isinstance(source, str | Path) and str(source) != "-":
        path = Path(source)
        if path.suffix.lower() in (".parquet", ".pq"):
            return _table_run_id(pl.scan_parquet(path)) if path.is_file() else None
        return _first_line_run_id(path)
    if isinstance(source, pl.DataFrame | pl.LazyFrame):
        return _table_run_id(source.lazy())
    module = type(source).__module__.split(".")[0]
    if module in ("pandas", "pyarrow"):  # one column of it, as polars
        found = getattr(source, "column_names", None)  # pyarrow's; pandas' .columns
        names = [str(name) for name in (source.columns if found is None else found)]
        column = next((str(name) for name in RUN_ID_COLUMNS if name in names), None)
        if column is None:
            return None
        part = source[[column]] if module == "pandas" else source.select([column])
        frame = pl.from_pandas(part) if module == "pandas" else pl.from_arrow(part)
        assert isinstance(frame, pl.DataFrame)
        return _table_run_id(frame.lazy())
    name = getattr(source, "name", None)  # a ranx Run
    if type(source).__module__.startswith("ranx.") and isinstance(name, str) and name:
        return name
    return None


def _stem(source: object) -> str | None:
    if not isinstance(source, str | Path) or str(source) == "-":
        return None
    return Path(source).name.split(".")[0] or Path(source).stem


def _sequence_names(sources: Sequence[Any]) -> list[str]:
    """Run ids, else file names, else ``run_i``; file names where run ids collide.

    A file is named by its name without extensions (``bm25`` for ``bm25.trec.gz``),
    or by its whole name where two such names collide (``results.test``,
    ``results.trunc``).
    """
    ids = [run_id_of(source) for source in sources]
    names = []
    for index, (run_id, source) in enumerate(zip(ids, sources, strict=True)):
        stem = _stem(source)
        if run_id is not None and (ids.count(run_id) == 1 or stem is None):
            names.append(run_id)
        else:
            names.append(stem or f"run_{index + 1}")
    return [
        Path(source).name if names.count(name) > 1 and _stem(source) == name else name
        for name, source in zip(names, sources, strict=True)
    ]


def _split_long(frame: pl.DataFrame | pl.LazyFrame) -> dict[str, pl.DataFrame]:
    """One long frame with a ``system`` column: one run per system, in order of appearance."""
    eager = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
    if eager.get_column("system").null_count():
        msg = "`runs`: the `system` column holds nulls; name every row's run"
        raise ValueError(msg)
    parts = eager.with_columns(pl.col("system").cast(pl.String)).partition_by(
        "system", maintain_order=True, as_dict=True
    )
    return {str(key[0]): part.drop("system") for key, part in parts.items()}


def _is_long(runs: object) -> bool:
    return isinstance(runs, pl.DataFrame | pl.LazyFrame) and "system" in (
        runs.collect_schema().names()
    )


def named_runs(runs: object, names: Sequence[str] | None = None) -> list[NamedRun]:
    """The runs with their names, checked: at least one, names distinct and non-empty.

    ``names`` (as many as runs) overrides the names the runs would get.
    """
    if _is_long(runs):
        assert isinstance(runs, pl.DataFrame | pl.LazyFrame)
        items: list[tuple[str, Any]] = list(_split_long(runs).items())
        described = ["rows of the long frame"] * len(items)
    elif isinstance(runs, Mapping):
        items = [(str(name), source) for name, source in runs.items()]
        described = [describe(source) for _, source in items]
    elif isinstance(runs, str | Path | pl.DataFrame | pl.LazyFrame):
        items = list(zip(_sequence_names([runs]), [runs], strict=True))
        described = [describe(runs)]
    elif isinstance(runs, Sequence) and not isinstance(runs, bytes):
        sources = list(runs)
        items = list(zip(_sequence_names(sources), sources, strict=True))
        described = [describe(source) for source in sources]
    else:
        msg = (
            "`runs` must be a mapping {name: run}, a sequence of runs, or one long frame "
            f"with a `system` column; got {type(runs).__name__}"
        )
        raise ValueError(msg)
    if not items:
        msg = "`runs` is empty: an experiment needs at least one run (two to compare)"
        raise ValueError(msg)
    if names is not None:
        if isinstance(names, str) or len(names) != len(items):
            msg = f"`names` must be a sequence of {len(items)} names, one per run, got {names!r}"
            raise ValueError(msg)
        items = [(str(name), source) for name, (_, source) in zip(names, items, strict=True)]
    labels = [name for name, _ in items]
    argument = "names" if names is not None else "runs"
    if any(not name for name in labels):
        msg = f"`{argument}`: a run's name is empty: {labels}"
        raise ValueError(msg)
    repeated = sorted({name for name in labels if labels.count(name) > 1})
    if repeated:
        msg = (
            f"`{argument}`: several runs are named {repeated[0]!r} (the names are {labels}); "
            "give each run its own name (a mapping {name: run}, or names=[...])"
        )
        raise ValueError(msg)
    return [
        NamedRun(name, source, text) for (name, source), text in zip(items, described, strict=True)
    ]
