"""Fusion written to disk in batches of queries: memory bounded by the batch, not the runs.

:func:`polars_rankmetrics.fuse` is one lazy plan, but its group-by over
``(query, doc)`` and its final sort hold every fused row at once, so its peak
memory grows with the runs (about 2 GB for 20M input rows) even with the
streaming engine. Every method but the trained ones fuses each query on its
own, so :func:`sink_fused` fuses the queries in batches (lexically consecutive
query ids, about ``batch_rows`` input rows each), each batch read with a filter
that polars pushes into the parquet scans, and writes the batches one after
the other: the file is the one :func:`polars_rankmetrics.fuse` would give.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import polars as pl

from polars_rankmetrics._atomic import replacing
from polars_rankmetrics.fusion.fuse import TRAINED, Method, check_method, check_norm, fuse
from polars_rankmetrics.fusion.runs import read_runs

PARQUET_SUFFIXES = (".parquet", ".pq")


def trec_lines(fused: pl.LazyFrame, run_id: str) -> pl.LazyFrame:
    """The fused run as TREC run lines ``query Q0 doc rank score run_id``, ranks from 1.

    ``fused`` is in ranking order, each query's rows together (as :func:`fuse`
    returns it): a rank counts the rows since its query's first row, which is
    cheaper than a window over the query ids.
    """
    query = pl.col("query")
    row = pl.int_range(pl.len(), dtype=pl.UInt32)
    first = query.ne_missing(query.shift(1)).fill_null(value=True)
    rank = row - pl.when(first).then(row).forward_fill() + 1
    return fused.select(
        "query",
        q0=pl.lit("Q0"),
        doc=pl.col("doc"),
        rank=rank,
        score=pl.col("score"),
        run_id=pl.lit(run_id),
    )


def sink_one(fused: pl.LazyFrame, path: Path, run_id: str, *, parquet: bool) -> None:
    """Write one fused frame with the streaming engine (parquet, else TREC lines)."""
    if parquet:
        fused.sink_parquet(path, engine="streaming")
    else:
        lines = trec_lines(fused, run_id)
        lines.sink_csv(path, separator=" ", include_header=False, engine="streaming")


def _batches(frame: pl.LazyFrame, batch_rows: int) -> list[pl.Expr]:
    """Filters on ``query`` that split the runs into lexically consecutive batches.

    Each batch holds whole queries, about ``batch_rows`` rows (a larger query is a
    batch of its own); null query ids, which sort first, are a batch of their own.
    """
    counts = frame.group_by("query").agg(n=pl.len()).sort("query").collect(engine="streaming")
    filters: list[pl.Expr] = []
    if counts.get_column("query").null_count():
        filters.append(pl.col("query").is_null())
        counts = counts.drop_nulls("query")
    bounds = (
        counts.with_columns(batch=(pl.col("n").cum_sum() - pl.col("n")) // batch_rows)
        .group_by("batch", maintain_order=True)
        .agg(low=pl.col("query").first(), high=pl.col("query").last())
    )
    for low, high in bounds.select("low", "high").iter_rows():
        filters.append(pl.col("query").is_between(pl.lit(low), pl.lit(high)))
    return filters


def sink_fused(
    runs: object,
    path: str | Path,
    *,
    method: Method = "rrf",
    norm: str | None = "min-max",
    weights: Sequence[float] | Mapping[str, float] | None = None,
    run_id: str | None = None,
    batch_rows: int = 10_000_000,
    **params: float,
) -> None:
    """
    Fuse ``runs`` and write the fused run to ``path``, a batch of queries at a time.

    The file is the one ``fuse(runs, ...)`` gives, written as a TREC run
    (``query Q0 doc rank score run_id``) or, for a ``.parquet``/``.pq`` path,
    as parquet (``query, doc, score``), whole or not at all (a temporary file,
    then a rename). The queries are fused in batches of lexically consecutive
    query ids holding about ``batch_rows`` input rows together, so that peak
    memory follows the batch rather than the runs; parquet runs sorted by query
    (as runs usually are) are then read a row group at a time, each batch only
    its own. Runs that are not lazy (TREC files, eager frames, dicts) are read
    into memory whole first; only the fusion is batched for them. The trained
    methods (``probfuse``, ...) learn from every query and are fused in one batch.

    Parameters
    ----------
    runs, method, norm, weights, **params
        As for :func:`polars_rankmetrics.fuse`.
    path
        The output file: parquet for ``.parquet``/``.pq``, else a TREC run.
    run_id
        The run id of a TREC run's lines (default: the method's name).
    batch_rows
        About how many input rows (all runs together) to fuse at once, >= 1.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from polars_rankmetrics.fusion import sink_fused
    >>> bm25 = {"q1": {"d1": 12.0, "d2": 9.0}, "q2": {"d3": 1.0}}
    >>> dense = {"q1": {"d2": 0.91, "d4": 0.85}, "q2": {"d3": 0.5}}
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "fused.trec"
    >>> sink_fused([bm25, dense], out, method="rrf", norm=None, batch_rows=3)
    >>> print(out.read_text(), end="")
    q1 Q0 d2 1 0.032522474881 rrf
    q1 Q0 d1 2 0.016393442623 rrf
    q1 Q0 d4 3 0.0161290322581 rrf
    q2 Q0 d3 1 0.0327868852459 rrf
    """
    name = check_method(method)
    check_norm(norm)
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1:
        msg = f"`batch_rows` must be an integer >= 1, got {batch_rows!r}"
        raise ValueError(msg)
    target = Path(path)
    parquet = target.suffix.lower() in PARQUET_SUFFIXES
    run_id = name if run_id is None else run_id

    def fused(source: object) -> pl.LazyFrame:
        return fuse(source, method=method, norm=norm, weights=weights, **params).lazy()

    if name in TRAINED:
        with replacing(target) as temporary:
            sink_one(fused(runs), temporary, run_id, parquet=parquet)
        return
    read = read_runs(runs)
    filters = _batches(read.frame, batch_rows) or [pl.lit(value=True)]
    with tempfile.TemporaryDirectory(prefix="rankmetrics-fuse-") as folder:
        parts = []
        for index, keep in enumerate(filters):
            part = Path(folder) / f"part{index:06d}"
            batch = replace(read, frame=read.frame.filter(keep), lazy=True)
            sink_one(fused(batch), part, run_id, parquet=parquet)
            parts.append(part)
        with replacing(target) as temporary:
            if parquet:
                pl.scan_parquet(parts).sink_parquet(temporary, engine="streaming")
            else:
                with temporary.open("wb") as out:
                    for part in parts:
                        with part.open("rb") as piece:
                            shutil.copyfileobj(piece, out)
