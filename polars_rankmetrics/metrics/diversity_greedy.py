"""ndeval's greedy ideal for many queries at once (numpy over blocks of queries).

:func:`greedy_values` gives, for each list of a column, what
:func:`.diversity_ideal.ideal_value` gives for one list with
``ideal='greedy'``, bit for bit: the same products, sums and divisions in the
same order. The documents of a query become rows of padded arrays
(queries × documents × subtopics of a document), the queries of similar size
are processed together in blocks, and each rank of the greedy list is a few
array operations over the whole block:

- every remaining document's gain, ``sum_j w_j (1 - alpha)**c_j`` over its
  subtopics in the order of :func:`.diversity_ideal._documents` (sorted by
  their text), added one subtopic at a time as the Python ``sum`` does;
- the document of largest gain, ties to the largest key (the document id, or
  without ids the subtopic tuple), then to the set of subtopics met first;
- the counts of its subtopics go up by one.

The ideal's value is ``sum_r discount(r) · gain_r`` added rank by rank, over
the total of the intent weights added in the order the weights are first met.

polars prepares the arrays (the covered subtopics of each row, the keys, the
weights); numpy is needed for the loop. Without numpy, or for subtopics that
are neither integers nor strings, or weights that are not finite,
:func:`greedy_values` calls :func:`.diversity_ideal.ideal_value` once per list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rankmetrics.metrics.diversity_ideal import Discount, _discounts, ideal_value

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

BLOCK = 2048
"""Queries per block of the padded arrays (sorted by their number of documents)."""


def greedy_values(
    lists: pl.Series, *, alpha: float, discount: Discount, depth: int | None, beta: float = 0.5
) -> pl.Series:
    """The greedy ideal value of each list of ``{subtopics, weights?, doc?}`` structs (Float64)."""
    options: dict[str, Any] = {"alpha": alpha, "discount": discount, "depth": depth, "beta": beta}
    if not _vectorisable(lists):
        return _one_by_one(lists, options)
    import numpy as np

    frame = _rows(lists)
    values = np.zeros(len(lists), dtype=np.float64)
    if frame.height:
        pairs = _pairs(frame)
        subtopics = _subtopics(frame, pairs)
        weights = subtopics["weight"]
        if weights.is_null().any() or not weights.is_finite().all():
            return _one_by_one(lists, options)
        pairs = pairs.join(subtopics, on=["q", "subtopic"], how="left", maintain_order="left")
        docs = _documents(frame, pairs)
        _run_blocks(docs, pairs, subtopics, values, alpha, discount, depth, beta)
    return pl.Series(lists.name, values, dtype=pl.Float64)


def _vectorisable(lists: pl.Series) -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    inner = lists.dtype.inner if isinstance(lists.dtype, pl.List) else None
    if not isinstance(inner, pl.Struct):
        return False
    fields = {field.name: field.dtype for field in inner.fields}
    subtopics = fields.get("subtopics")
    if not isinstance(subtopics, pl.List):
        return False
    return subtopics.inner.is_integer() or subtopics.inner == pl.String


def _one_by_one(lists: pl.Series, options: dict[str, Any]) -> pl.Series:
    values = [
        0.0 if batch is None else ideal_value(batch, ideal="greedy", **options) for batch in lists
    ]
    return pl.Series(lists.name, values, dtype=pl.Float64)


def _within(key: str) -> pl.Expr:
    """The 0-based position of each row within its run of equal ``key`` (sorted by ``key``)."""
    index = pl.int_range(pl.len(), dtype=pl.Int64)
    starts = (pl.col(key) != pl.col(key).shift(1)).fill_null(value=True)
    return index - pl.when(starts).then(index).forward_fill()


def _rows(lists: pl.Series) -> pl.DataFrame:
    """One row per relevant document: q (list), r (row), d (position in the list), its fields."""
    frame = (
        pl.DataFrame({"row": lists})
        .with_row_index("q")
        .explode("row")
        .filter(pl.col("row").is_not_null())
        .unnest("row")
        .filter(pl.col("subtopics").list.len() > 0)
    )
    return frame.with_columns(
        pl.int_range(pl.len(), dtype=pl.UInt32).alias("r"), _within("q").alias("d")
    )


def _pairs(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per (document, covered subtopic): distinct, sorted by the subtopic's text.

    That is the order of ``covered`` in :func:`.diversity_ideal._documents`; c is
    the position there. (Integers 0-9 sort as their text; others are cast.)
    """
    pairs = frame.select("q", "r", "d", pl.col("subtopics").alias("subtopic")).explode("subtopic")
    text = pl.col("subtopic")
    if pairs.schema["subtopic"] != pl.String:
        low, high = pairs.select(text.min().alias("low"), text.max().alias("high")).row(0)
        if not 0 <= low <= high <= 9:
            text = text.cast(pl.String)
    ordered = pairs.sort("r", text, maintain_order=True)
    repeated = (pl.col("r") == pl.col("r").shift(1)) & (
        pl.col("subtopic") == pl.col("subtopic").shift(1)
    )
    return ordered.filter(~repeated.fill_null(value=False)).with_columns(_within("r").alias("c"))


def _subtopics(frame: pl.DataFrame, pairs: pl.DataFrame) -> pl.DataFrame:
    """Each (query, subtopic)'s weight and its place s among the query's subtopics.

    As ``_documents`` fills its dict: row by row, first the given weights (in
    list order), then weight 1 for a covered subtopic still without one. The
    first value met wins; s is the order in which they are met, the order in
    which the total adds them.
    """
    events = pairs.select("q", "subtopic", pl.lit(1.0).alias("weight"))
    if "weights" in frame.columns:
        given = (
            frame.select(
                "q",
                "r",
                pl.col("subtopics").list.head(pl.col("weights").list.len().fill_null(0)),
                pl.col("weights")
                .list.head(pl.col("subtopics").list.len())
                .cast(pl.List(pl.Float64)),
            )
            .filter(pl.col("subtopics").list.len() > 0)
            .explode("subtopics", "weights")
            .select(
                "q", "r", pl.col("subtopics").alias("subtopic"), pl.col("weights").alias("weight")
            )
        )
        covered = pairs.select("q", "r", "subtopic", pl.lit(1.0).alias("weight"))
        events = (
            pl.concat(
                [
                    given.with_columns(part=pl.lit(0, pl.UInt8)),
                    covered.with_columns(part=pl.lit(1, pl.UInt8)),
                ]
            )
            .sort("r", "part", maintain_order=True)
            .select("q", "subtopic", "weight")
        )
    return events.unique(["q", "subtopic"], keep="first", maintain_order=True).with_columns(
        _within("q").alias("s")
    )


def _documents(frame: pl.DataFrame, pairs: pl.DataFrame) -> pl.DataFrame:
    """Per document: q, d, and its greedy tie-break key (larger wins).

    The key orders by the document id (or, without ids, the tuple of covered
    subtopics), then by the set of subtopics met first (the dict order of the
    pools). Keys are compared only within a query, so a rank over all queries
    serves.
    """
    has_doc = "doc" in frame.columns
    unique_docs = has_doc and frame.select(pl.struct("q", "doc").n_unique()).item() == frame.height
    if has_doc and unique_docs:
        return frame.select("q", "d", pl.col("doc").rank("dense").cast(pl.Int64).alias("key"))
    if not has_doc:  # distinct sets of subtopics have distinct keys
        return frame.select("q", "d", pl.Series("key", _tuple_ranks(pairs, frame.height)))
    covered = pairs.group_by("r", maintain_order=True).agg(pl.col("subtopic").alias("covered"))
    keyed = frame.select("q", "r", "d", "doc").join(covered, on="r", maintain_order="left")
    n_rows = keyed.height + 1
    first = keyed.group_by("q", "covered").agg(pl.col("r").min().alias("_first"))
    start = keyed.group_by("q").agg(pl.col("r").min().alias("_start"))
    return (
        keyed.join(first, on=["q", "covered"], maintain_order="left")
        .join(start, on="q", maintain_order="left")
        .select(
            "q",
            "d",
            (
                pl.col("doc").rank("dense").cast(pl.Int64) * n_rows
                + (n_rows - 1 - (pl.col("_first") - pl.col("_start")).cast(pl.Int64))
            ).alias("key"),
        )
    )


def _tuple_ranks(pairs: pl.DataFrame, n_rows: int) -> npt.NDArray[np.int64]:
    """The rank of each row's tuple of covered subtopics, compared as Python compares tuples.

    Element by element (by value, not text), a tuple that is a prefix of another
    first: each row's values as ranks from 1, padded with 0, sorted as rows.
    """
    import numpy as np

    values = pairs.select(pl.col("subtopic").rank("dense").cast(pl.Int64))["subtopic"].to_numpy()
    r = pairs["r"].to_numpy().astype(np.int64)
    c = pairs["c"].to_numpy()
    padded = np.zeros((n_rows, int(c.max()) + 1), dtype=np.int64)
    padded[r, c] = values
    order = np.lexsort(padded.T[::-1])
    ordered = padded[order]
    new = np.ones(n_rows, dtype=np.int64)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    ranks = np.empty(n_rows, dtype=np.int64)
    ranks[order] = np.cumsum(new)
    return ranks


def _run_blocks(
    docs: pl.DataFrame,
    pairs: pl.DataFrame,
    subtopics: pl.DataFrame,
    values: npt.NDArray[np.float64],
    alpha: float,
    discount: Discount,
    depth: int | None,
    beta: float,
) -> None:
    """Fill ``values`` (one per list) block by block of queries of similar size."""
    sizes = (
        docs.group_by("q")
        .agg(pl.len().alias("n"))
        .sort("n", "q")
        .with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("order"))
        .select(
            "q",
            "n",
            (pl.col("order") // BLOCK).alias("block"),
            (pl.col("order") % BLOCK).alias("b"),
        )
    )
    place = sizes.select("q", "block", "b")
    parts = [
        table.join(place, on="q").partition_by("block", as_dict=True)
        for table in (docs, pairs, subtopics)
    ]
    for (block,), block_sizes in sizes.partition_by("block", as_dict=True).items():
        n_docs = int(block_sizes["n"].max())  # type: ignore[arg-type]
        length = n_docs if depth is None else min(depth, n_docs)
        block_docs, block_pairs, block_subtopics = (part[(block,)] for part in parts)
        values[block_sizes["q"].to_numpy()] = _greedy_block(
            block_docs,
            block_pairs,
            block_subtopics,
            n_queries=block_sizes.height,
            n_docs=n_docs,
            keep=1.0 - alpha,
            discounts=_discounts(discount, length, beta),
            depth=depth,
        )


def _greedy_block(
    docs: pl.DataFrame,
    pairs: pl.DataFrame,
    subtopics: pl.DataFrame,
    *,
    n_queries: int,
    n_docs: int,
    keep: float,
    discounts: list[float],
    depth: int | None,
) -> npt.NDArray[np.float64]:
    """The greedy ideal value of each query of one block, over its weights' total."""
    import numpy as np

    n_q = n_queries
    b_doc = docs["b"].to_numpy()
    key = np.full((n_q, n_docs), -1, dtype=np.int64)
    key[b_doc, docs["d"].to_numpy()] = docs["key"].to_numpy()
    n_rel = np.bincount(b_doc, minlength=n_q)
    b, d, c, s = (pairs[name].to_numpy() for name in ("b", "d", "c", "s"))
    n_cover = int(c.max()) + 1
    n_sub = int(subtopics["s"].max()) + 1  # type: ignore[arg-type]
    weight = np.zeros((n_q, n_sub), dtype=np.float64)
    weight[subtopics["b"].to_numpy(), subtopics["s"].to_numpy()] = subtopics["weight"].to_numpy()
    # The covered subtopics of each document, one plane per position c: a flat index
    # into the (query, subtopic) table, or its last slot (a term of 0.0) where unused.
    unused = n_q * n_sub
    flat = np.full((n_cover, n_q, n_docs), unused, dtype=np.int64)
    flat[c, b, d] = b * n_sub + s
    flat_weight = np.append(weight.ravel(), 0.0)
    counts = np.zeros(unused + 1, dtype=np.int64)
    available = key >= 0
    # keep**c as Python computes it (float ** int), read off a table.
    power = np.asarray([keep**count for count in range(n_docs + 1)], dtype=np.float64)
    length = np.minimum(n_rel, n_docs if depth is None else depth)
    value = np.zeros(n_q, dtype=np.float64)
    for rank, discount in enumerate(discounts):
        # w_j (1 - alpha)**c_j of each (query, subtopic); the unused slot stays 0.0.
        term = flat_weight * power[counts]
        gain = term[flat[0]]
        for j in range(1, n_cover):  # left to right, as Python's sum over `covered`
            gain += term[flat[j]]  # + 0.0 where unused: the same value
        gain[~available] = -np.inf
        best = gain.max(axis=1)
        pick = np.where(gain == best[:, None], key, -1).argmax(axis=1)
        chosen = np.flatnonzero(rank < length)
        pick = pick[chosen]
        value[chosen] += discount * best[chosen]
        available[chosen, pick] = False
        for j in range(n_cover):
            counts[flat[j, chosen, pick]] += 1
        counts[unused] = 0
    # The total of the weights, added in the order they were met (s), as Python's sum.
    n_s = np.bincount(subtopics["b"].to_numpy(), minlength=n_q)
    total = weight[:, 0].copy()
    for j in range(1, n_sub):
        total = np.where(j < n_s, total + weight[:, j], total)
    result = np.zeros(n_q, dtype=np.float64)
    defined = (n_rel > 0) & (total != 0.0)
    result[defined] = value[defined] / total[defined]
    return result


def greedy_expr(
    fields: pl.Expr, *, alpha: float, discount: Discount, depth: int | None, beta: float = 0.5
) -> pl.Expr:
    """:func:`greedy_values` of each list, for ``list.agg`` over a list of ``fields`` structs.

    The structs of each list are imploded, and the function is marked
    elementwise over those lists: polars then calls it once with the lists of
    all groups (or a chunk of them) rather than once per group.
    """
    return fields.implode().map_batches(
        lambda lists: greedy_values(lists, alpha=alpha, discount=discount, depth=depth, beta=beta),
        return_dtype=pl.Float64,
        is_elementwise=True,
    )
