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

from dataclasses import dataclass
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


def ranx_joined(qrels: Any, run: Any) -> Joined | None:
    """The full join of ranx's ``Qrels`` and ``Run`` dicts, in trec_eval's order, or None.

    What :func:`.topics.topic_plan` would join in polars from :func:`ranx_frame`
    of the qrels and :func:`ranx_positioned` of the run, read in one compiled
    pass without the doc ids' strings (see :func:`.ranx_flatten.joined`): the
    rows of the run's judged queries and every qrels row, each query's rows
    in trec_eval's order. None where :func:`ranx_positioned` gives None (a
    small run, a NaN score, a lone surrogate) or the qrels are small.
    """
    import numpy as np

    if _entries_below(qrels) or _entries_below(run):
        return None
    judged = _arrays(qrels, np.int64)
    ranked = _arrays(run, np.float64)
    if judged is None or ranked is None:
        return None
    queries, sizes, codes, lengths, labels = judged
    run_queries, run_sizes, run_codes, run_lengths, scores = ranked
    compiled = _loops()
    positions, valid = compiled.trec_positions(scores, run_sizes, run_codes, run_lengths)
    if not valid:
        return None
    index = pl.DataFrame({"query": queries, QUERY_CODE: pl.int_range(len(queries), eager=True)})
    qrels_of_run = (
        run_queries.to_frame()
        .join(index, on="query", how="left", maintain_order="left")
        .get_column(QUERY_CODE)
        .fill_null(-1)
        .to_numpy()
    )
    rows = compiled.joined(
        run_sizes, run_codes, run_lengths, scores, positions,
        sizes, codes, lengths, labels, qrels_of_run.astype(np.int64),
    )  # fmt: skip
    names = [QUERY_CODE, "score", "relevance", "qrels_row", "in_run", "in_qrels"]
    frame = pl.DataFrame(dict(zip(names, rows, strict=True)))
    return Joined(frame, queries, int((qrels_of_run < 0).sum()))


QUERY_CODE = "_rankmetrics_query_code"
""":class:`Joined`'s query column: the index of the query in ``Joined.queries``."""


@dataclass(frozen=True)
class Joined:
    """:func:`ranx_joined`'s rows, the query ids, and how many run queries are not judged.

    ``frame`` has :data:`QUERY_CODE`, ``score`` (NaN where the run lacks the
    document), ``relevance`` and ``qrels_row`` (0 and -1 where the qrels lack
    it), ``in_run`` and ``in_qrels``: one row per (query, document) of either
    side, each query's rows in trec_eval's order.
    """

    frame: pl.DataFrame
    queries: pl.Series
    ignored: int


def _entries_below(nested: Any) -> bool:
    """Whether ``nested`` holds fewer than :data:`COMPILED_FROM` entries (read entry by entry)."""
    if len(nested) >= COMPILED_FROM:
        return False
    total = 0
    for inner in nested.values():  # stops at the threshold: boxing an inner dict costs ~7 µs
        total += len(inner)
        if total >= COMPILED_FROM:
            return False
    return True


def _arrays(nested: Any, values_type: Any) -> tuple[pl.Series, Any, Any, Any, Any] | None:
    """The query ids (a String series), sizes, doc ids' code points and lengths, and values.

    None where a query id holds a lone surrogate.
    """
    import numpy as np

    queries, query_lengths, sizes, docs, doc_lengths, values = _filled(nested, values_type)
    query_ids = _strings("query", queries, query_lengths)
    if query_ids is None:
        return None
    codes = docs.view(np.uint32).reshape(len(docs), docs.dtype.itemsize // 4)
    return query_ids, sizes, codes, doc_lengths, values


def _filled(nested: Any, values_type: Any) -> tuple[Any, Any, Any, Any, Any, Any]:
    """Ranx's typed dict of dicts copied by the compiled loops into numpy arrays.

    The query ids (fixed-width unicode) and their lengths, each query's number of
    entries, the doc ids and their lengths, and the values, in the dicts' order.
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
    values = np.empty(total, dtype=values_type)
    compiled.fill(nested, queries, query_lengths, sizes, docs, doc_lengths, values)
    return queries, query_lengths, sizes, docs, doc_lengths, values


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

    values_type = np.float64 if dtype == pl.Float64 else np.int64
    queries, query_lengths, sizes, docs, doc_lengths, values = _filled(nested, values_type)
    n_queries = len(queries)
    places = None
    if position is not None:
        codes = docs.view(np.uint32).reshape(len(docs), docs.dtype.itemsize // 4)
        places, valid = _loops().trec_positions(values, sizes, codes, doc_lengths)
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
