"""Runs whose queries come in blocks: integer keys for the fusion of runs in memory.

Run files and frames almost always hold each query's documents together (a
run file is written query by query). Then every ``(system, query)`` is one
block of consecutive rows, and the fusion of runs in memory can use cheaper
keys than the query and document strings:

- ``_block``, the block's index (ascending, flagged sorted): the per-run
  windows (ranks, normalisations) run ``.over("_block")``, which polars
  evaluates on slices of the frame instead of hashing ``(system, query)``;
- ``query`` becomes the query's index among the sorted query ids (``UInt32``),
  so that the group-by over ``(query, doc)`` and the final sort compare
  integers; :meth:`Blocks.decode` gives the ids back.

Every value is the one computed with the string keys: the blocks only say
which rows belong together, and the codes keep the queries' order.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

BLOCK = "_block"
"""The column holding each row's block: one ``(system, query)`` of consecutive rows."""


@dataclass(frozen=True)
class Blocks:
    """The long frame with its blocks found, and the query ids its codes stand for."""

    frame: pl.DataFrame
    """``system, query, doc, score, _block``; ``query`` is an index into :attr:`queries`."""
    queries: pl.Series
    """The query ids, sorted: code ``i`` is ``queries[i]``."""
    starts: pl.Series
    """Whether each row starts a block."""

    def ranks(self) -> pl.Series | None:
        """Each row's 1-based rank in its block, if every block lists its rows in rank order.

        That is :func:`.normalization.run_rank`'s rank (score descending, then
        document id descending; scores are never NaN here), counted from the
        block's first row; run files usually come in that order. None when some
        row scores above its predecessor, or ties with it and has a larger
        document id (only the tied rows compare ids).
        """
        frame, start = self.frame, self.starts
        score = frame.get_column("score")
        previous = score.shift(1)
        if (~start & (score > previous)).any():
            return None
        ties = (~start & (score == previous)).arg_true()
        if ties.len():
            doc = frame.get_column("doc")
            if not (doc.gather(ties) < doc.gather(ties - 1)).all():
                return None
        row = pl.int_range(frame.height, dtype=pl.UInt32, eager=True)
        first = pl.select(pl.when(start).then(row).forward_fill()).to_series()
        return (row - first + 1).alias("rank")

    def decode(self, fused: pl.LazyFrame) -> pl.LazyFrame:
        """``fused`` with its query codes replaced by the query ids (the columns' order kept)."""
        names = fused.collect_schema().names()
        query = pl.lit(self.queries).gather(pl.col("query")).alias("query")
        return fused.select(query if name == "query" else pl.col(name) for name in names)


def find_blocks(frame: pl.DataFrame) -> Blocks | None:
    """The blocks of ``frame`` (``system, query, doc, score``), or None if it has none.

    None when some ``(system, query)`` is split over several runs of rows (the
    rows are not grouped by query), when a query id is null, or when the frame
    is empty: the fusion then keys on the strings, as for any frame.
    """
    if frame.height == 0:
        return None
    system, query = pl.col("system"), pl.col("query")
    changed = system.ne_missing(system.shift(1)) | query.ne_missing(query.shift(1))
    start = frame.select(changed.fill_null(value=True)).to_series()
    # Series gathers: a frame's filter first aligns its columns' chunks (a copy of every row).
    first = start.arg_true()
    starts = pl.DataFrame([frame.get_column(name).gather(first) for name in ("system", "query")])
    if starts.get_column("query").null_count() or starts.n_unique() != starts.height:
        return None
    queries = starts.get_column("query").unique().sort()
    codes = queries.search_sorted(starts.get_column("query")).cast(pl.UInt32)
    block = (start.cast(pl.UInt32).cum_sum() - 1).set_sorted()
    coded = frame.select(
        "system",
        codes.gather(block).alias("query"),
        "doc",
        "score",
        block.alias(BLOCK),
    )
    return Blocks(coded, queries, start)
