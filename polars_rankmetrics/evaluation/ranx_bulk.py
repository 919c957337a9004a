"""Ranx's ``Qrels`` and ``Run`` as a frame, read in bulk from their numba dicts.

Ranx keeps ``{query: {doc: value}}`` in numba typed dicts, and every access from
Python boxes one entry (about 4 µs each: 0.7 s for a 170k-line run). A large
dict is instead read by compiled loops (numba, which ranx installs; see
:mod:`.ranx_flatten`): they copy the ids into numpy unicode arrays and the
values into an array, then encode the ids as the UTF-8 data and offsets of an
Arrow string array, which polars takes as it is (about 10 ms for 170k entries).
The loops are compiled on first use and cached on disk (``cache=True``), as
ranx caches its own; a small dict (under :data:`COMPILED_FROM` entries) is read
entry by entry, which costs less than compiling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

COMPILED_FROM = 1_000
"""Entries from which the compiled reader is used."""


def ranx_frame(nested: Any, value: str, dtype: PolarsDataType) -> pl.DataFrame:
    """``query, doc, <value>`` of a ranx typed dict of dicts, in its order."""
    if len(nested) >= COMPILED_FROM or sum(len(inner) for inner in nested.values()) >= (
        COMPILED_FROM
    ):
        frame = _compiled(nested, value, dtype)
        if frame is not None:
            return frame
    return _entry_by_entry(nested, value, dtype)


def ranx_positioned(nested: Any, position: str) -> pl.DataFrame | None:
    """:func:`ranx_frame` of a run with its rows' places in trec_eval's order (``position``).

    ``query, doc, score, <position>``: each row's place when the rows are
    sorted by query (ranx's order of queries), score descending, doc id
    descending (distinct Int64 values, increasing within a query). None for a
    small run (under :data:`COMPILED_FROM` entries), a NaN score, or an id that
    holds a lone surrogate: then :func:`ranx_frame` and the sort in polars.
    """
    if len(nested) < COMPILED_FROM and sum(len(inner) for inner in nested.values()) < (
        COMPILED_FROM
    ):
        return None
    return _compiled(nested, "score", pl.Float64, position)


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
    nested: Any, value: str, dtype: PolarsDataType, position: str | None = None
) -> pl.DataFrame | None:
    """The frame, or None where an id holds a lone surrogate (then read entry by entry).

    With ``position``, also each row's place in trec_eval's order (see
    :func:`ranx_positioned`); None where a score is NaN.
    """
    import numpy as np

    compiled = _loops()
    doc_width = _fixed_width(nested)
    if doc_width is None:
        total, doc_width, query_width = compiled.shape(nested)
    else:
        total, query_width = compiled.outer_shape(nested)
    n_queries = len(nested)
    queries = np.zeros(n_queries, dtype=f"<U{query_width}")
    query_lengths = np.empty(n_queries, dtype=np.int64)
    sizes = np.empty(n_queries, dtype=np.int64)
    docs = np.zeros(total, dtype=f"<U{doc_width}")
    doc_lengths = np.empty(total, dtype=np.int64)
    values = np.empty(total, dtype=np.float64 if dtype == pl.Float64 else np.int64)
    compiled.fill(nested, queries, query_lengths, sizes, docs, doc_lengths, values)
    places = None
    if position is not None:
        codes = docs.view(np.uint32).reshape(total, docs.dtype.itemsize // 4)
        places, valid = compiled.trec_positions(values, sizes, codes, doc_lengths)
        if not valid:
            return None
    query_ids = _strings("query", queries, query_lengths)
    doc_ids = _strings("doc", docs, doc_lengths)
    if query_ids is None or doc_ids is None:
        return None
    rows = pl.Series(np.repeat(np.arange(n_queries, dtype=np.int64), sizes))
    columns = [query_ids.gather(rows), doc_ids, pl.Series(value, values).cast(dtype)]
    if places is not None:
        columns.append(pl.Series(position, places))
    return pl.DataFrame(columns)


def _fixed_width(nested: Any) -> int | None:
    """The width of the doc ids where their numba type has one (``[unichr x N]``).

    Ranx's ``from_dict``, ``from_df`` and ``Run(dict)`` key the documents so
    (numpy unicode arrays); the ids are then copied without measuring them
    first. None for ``unicode_type`` keys (``Run()`` with ``add_score``).
    """
    from numba import types

    try:
        key = nested._dict_type.value_type.key_type
    except AttributeError:  # pragma: no cover (not a numba typed dict of dicts)
        return None
    if isinstance(key, types.UnicodeCharSeq):
        return max(int(key.count), 1)
    return None


def _strings(name: str, ids: Any, lengths: Any) -> pl.Series | None:
    """A numpy unicode array as a String series, each id ``lengths`` code points long.

    The lengths are numba's (a NUL inside or at the end of an id is kept, which
    numpy's own view of the array would drop); None for a lone surrogate.
    """
    import numpy as np
    import pyarrow as pa  # type: ignore[import-untyped]

    width = ids.dtype.itemsize // 4
    codes = ids.view(np.uint32).reshape(len(ids), width)
    data, offsets, valid = _loops().utf8(codes, lengths)
    if not valid:
        return None
    strings = pa.LargeStringArray.from_buffers(len(ids), pa.py_buffer(offsets), pa.py_buffer(data))
    series = pl.from_arrow(strings)
    assert isinstance(series, pl.Series)
    return series.alias(name)


def _loops() -> Any:
    import polars_rankmetrics.evaluation.ranx_flatten as loops

    return loops
