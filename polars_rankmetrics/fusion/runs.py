"""The runs to fuse, as one long frame ``system, query, doc, score``.

Every run is read the way :func:`polars_rankmetrics.evaluate` reads a run (a
TREC or parquet path, a polars, pandas or pyarrow table, a nested dict
``{query: {doc: score}}``, a ranx ``Run``, ...). Polars ``LazyFrame`` inputs
and parquet paths stay lazy: nothing is read until the fused frame is
collected. Rows whose score is null, NaN, ``inf`` or ``-inf`` are dropped before
any normalisation: such a document counts as not retrieved by that run, as a
null or NaN score everywhere in this library (an eager run is filtered only when
it holds such a score: the filter copies every row). Duplicate ``(query, doc)``
rows are looked for before that: a duplicate whose second row has a NaN score is
a duplicate for every method.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from polars_rankmetrics.evaluation import inputs

LONG_SCHEMA = {"system": pl.UInt32, "query": pl.String, "doc": pl.String, "score": pl.Float64}


@dataclass(frozen=True)
class Runs:
    """The runs as one long lazy frame, with their names (``system`` indexes ``names``)."""

    frame: pl.LazyFrame
    names: tuple[str, ...]
    lazy: bool

    @property
    def n_systems(self) -> int:
        """The number of runs."""
        return len(self.names)


def _without_missing(frame: pl.LazyFrame) -> pl.LazyFrame:
    """``frame`` without its rows whose score is null, NaN or infinite (not retrieved)."""
    return frame.filter(pl.col("score").cast(pl.Float64).is_finite())


def _has_missing(score: pl.Series) -> bool:
    """Whether an eager run's scores hold a null, NaN or ±inf (a pass over one column)."""
    return score.null_count() > 0 or (score.dtype.is_float() and not bool(score.is_finite().all()))


def _is_lazy_source(source: object) -> bool:
    if isinstance(source, pl.LazyFrame):
        return True
    return isinstance(source, str | Path) and Path(source).suffix.lower() in (".parquet", ".pq")


def _one_run(source: object, name: str, *, check_unique: bool = True) -> pl.LazyFrame:
    """One run as ``query, doc, score`` (lazy where the source is lazy)."""
    if _is_lazy_source(source):
        lazy = inputs._as_lazy(source, "run")
        names = lazy.collect_schema().names()
        found = inputs._find_columns(names, "run", {}, "runs")
        lazy = lazy.select(pl.col(found[role]).alias(role) for role in ("query", "doc", "score"))
        dtype = lazy.collect_schema()["score"]
        if not dtype.is_numeric():
            msg = f"run {name!r}: the score column must be numeric, got {dtype}"
            raise ValueError(msg)
        return _without_missing(lazy.with_columns(pl.col("query", "doc").cast(pl.String)))
    try:
        frame = inputs.read_run(source)
    except ValueError as error:
        msg = f"run {name!r}: {error}"
        raise ValueError(msg) from None
    missing = _has_missing(frame.get_column("score"))
    # A run with rows to drop is checked here, before they go: the fusion's own check
    # (check_unique=False) sees only the rows it fuses.
    check = check_unique or missing
    duplicated = frame.filter(pl.struct("query", "doc").is_duplicated()) if check else None
    if duplicated is not None and duplicated.height:
        query, doc = duplicated.row(0)[:2]
        msg = (
            f"run {name!r} has duplicate (query, doc) rows, e.g. ({query!r}, {doc!r}); "
            "each document must appear once per query"
        )
        raise ValueError(msg)
    selected = frame.lazy().select("query", "doc", "score")
    return _without_missing(selected) if missing else selected


def _default_name(index: int, source: object) -> str:
    if isinstance(source, str | Path):
        return Path(source).name
    name = getattr(source, "name", None)  # a ranx Run
    if isinstance(name, str) and name:
        return name
    return f"run_{index + 1}"


def _split_long(frame: pl.LazyFrame | pl.DataFrame) -> tuple[pl.LazyFrame, tuple[str, ...]]:
    """A long frame with a ``system`` column: the names are its values, sorted."""
    lazy = frame.lazy()
    names = lazy.select(pl.col("system").cast(pl.String).unique().sort()).collect()
    systems = tuple(names.get_column("system").to_list())
    if any(name is None for name in systems):
        msg = "the runs' `system` column holds nulls; name every row's run"
        raise ValueError(msg)
    return lazy, systems


def read_runs(runs: object, *, check_unique: bool = True) -> Runs:
    """Read ``runs`` (a mapping, a sequence, or one long frame) into :class:`Runs`.

    Eager runs are checked for duplicate ``(query, doc)`` rows unless
    ``check_unique`` is false (the caller then checks them itself). Runs already
    read (a :class:`Runs`, such as one batch of queries) are returned as they are.
    """
    if isinstance(runs, Runs):
        return runs
    if isinstance(runs, pl.DataFrame | pl.LazyFrame) and "system" in runs.collect_schema().names():
        lazy, names = _split_long(runs)
        found = inputs._find_columns(lazy.collect_schema().names(), "run", {}, "runs")
        missing = isinstance(runs, pl.DataFrame) and _has_missing(runs.get_column(found["score"]))
        if (check_unique or missing) and isinstance(runs, pl.DataFrame):
            _check_long_unique(runs, found["query"], found["doc"])
        # An Enum of the sorted names: its physical codes are the systems' indexes.
        system = pl.col("system").cast(pl.String).cast(pl.Enum(names)).to_physical()
        frame = lazy.select(
            system.alias("system"),
            *(pl.col(found[role]).alias(role) for role in ("query", "doc", "score")),
        )
        dtype = frame.collect_schema()["score"]
        if not dtype.is_numeric():
            msg = f"the runs' score column must be numeric, got {dtype}"
            raise ValueError(msg)
        if isinstance(runs, pl.LazyFrame) or missing:
            frame = _without_missing(frame)
        return _finish(frame, names, isinstance(runs, pl.LazyFrame))
    if isinstance(runs, Mapping):
        items = [(str(name), source) for name, source in runs.items()]
    elif isinstance(runs, Sequence) and not isinstance(runs, str | bytes):
        items = [(_default_name(i, source), source) for i, source in enumerate(runs)]
        seen: dict[str, int] = {}
        for i, (name, source) in enumerate(items):
            if name in seen:
                items[i] = (f"run_{i + 1}", source)
            seen[name] = i
    else:
        msg = (
            "`runs` must be a mapping {name: run}, a sequence of runs, or one long "
            f"frame with a `system` column; got {type(runs).__name__}"
        )
        raise ValueError(msg)
    if not items:
        msg = "`runs` is empty: give at least one run to fuse"
        raise ValueError(msg)
    is_lazy = any(_is_lazy_source(source) for _, source in items)
    parts = [
        _one_run(source, name, check_unique=check_unique).with_columns(
            system=pl.lit(index, pl.UInt32)
        )
        for index, (name, source) in enumerate(items)
    ]
    frame = pl.concat([part.select(LONG_SCHEMA.keys()) for part in parts], how="vertical_relaxed")
    return _finish(frame, tuple(name for name, _ in items), is_lazy)


def _check_long_unique(frame: pl.DataFrame, query: str = "query", doc: str = "doc") -> None:
    duplicated = frame.filter(pl.struct("system", query, doc).is_duplicated())
    if duplicated.height:
        row = duplicated.select("system", query, doc).row(0)
        msg = (
            f"run {row[0]!r} has duplicate (query, doc) rows, e.g. ({row[1]!r}, {row[2]!r}); "
            "each document must appear once per query"
        )
        raise ValueError(msg)


def _finish(frame: pl.LazyFrame, names: tuple[str, ...], lazy: bool) -> Runs:
    if not names:
        msg = "`runs` is empty: give at least one run to fuse"
        raise ValueError(msg)
    frame = frame.select(
        pl.col("system").cast(pl.UInt32),
        pl.col("query").cast(pl.String),
        pl.col("doc").cast(pl.String),
        pl.col("score").cast(pl.Float64),
    )  # null, NaN and infinite scores were dropped from each run that held one
    return Runs(frame, names, lazy)
