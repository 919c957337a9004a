"""Ranx's ``Qrels`` and ``Run`` as a frame, read in bulk from their numba dicts.

Ranx keeps ``{query: {doc: value}}`` in numba typed dicts, and every access from
Python boxes one entry (about 4 µs each: 0.7 s for a 170k-line run). A large
dict is instead read by one compiled function (numba, which ranx installs): it
joins the ids with a separator into one string and copies the values into an
array, so Python sees three objects, and polars splits the string. The function
is compiled on first use and cached on disk (``cache=True``), as ranx caches its
own; a small dict (under :data:`COMPILED_FROM` entries) is read entry by entry,
which costs less than compiling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

COMPILED_FROM = 5_000
"""Entries from which the compiled reader is used."""

_SEPARATOR = "\x00"


def ranx_frame(nested: Any, value: str, dtype: PolarsDataType) -> pl.DataFrame:
    """``query, doc, <value>`` of a ranx typed dict of dicts, in its order."""
    sizes = [len(inner) for inner in nested.values()]
    if sum(sizes) >= COMPILED_FROM:
        frame = _compiled(nested, sizes, value, dtype)
        if frame is not None:
            return frame
    return _entry_by_entry(nested, value, dtype)


def _entry_by_entry(nested: Any, value: str, dtype: PolarsDataType) -> pl.DataFrame:
    queries: list[str] = []
    docs: list[str] = []
    values: list[Any] = []
    for query, inner in nested.items():
        queries.extend([query] * len(inner))
        docs.extend(inner.keys())
        values.extend(inner.values())
    return pl.DataFrame(
        {"query": queries, "doc": docs, value: values},
        schema={"query": pl.String, "doc": pl.String, value: dtype},
    )


def _compiled(
    nested: Any, sizes: list[int], value: str, dtype: PolarsDataType
) -> pl.DataFrame | None:
    """The frame, or None where an id holds the separator (then read entry by entry)."""
    queries, docs, values = _flatten()(nested)
    query_ids = pl.Series("query", [queries]).str.split(_SEPARATOR).explode()
    doc_ids = pl.Series("doc", [docs]).str.split(_SEPARATOR).explode()
    if len(query_ids) != len(sizes) or len(doc_ids) != len(values):
        return None
    repeats = pl.Series(sizes, dtype=pl.UInt32)
    return pl.DataFrame(
        [
            query_ids.to_frame().select(pl.col("query").repeat_by(repeats).explode()).to_series(),
            doc_ids,
            pl.Series(value, values).cast(dtype),
        ]
    )


def _flatten() -> Any:
    from polars_rankmetrics.evaluation.ranx_flatten import flatten

    return flatten
