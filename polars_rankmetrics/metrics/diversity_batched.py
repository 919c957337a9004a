"""alpha-nDCG, nERR-IA and nNRBP with the greedy ideal, for every query in one call.

The statistics of :mod:`.diversity_statistics` are polars expressions over one
ranked list at a time; inside ``list.agg`` polars evaluates the exploding,
ranking and filtering steps list by list, which costs more than the sort of
the lists itself. With equal intent weights (no ``intent_weights``) and
ndeval's greedy ideal, the normalised measures are computed here instead, from
the ranked lists of all queries at once (numpy over flat arrays, in blocks of
:data:`BLOCK` lists; see :func:`.diversity_flat.flatten`), with the same values
bit for bit:

- the novelty gain of each (position, subtopic) pair, ``(w · (1 - alpha)**c) ·
  discount(rank)`` with ``w = 1/S``, ``(1 - alpha)**c`` and the discount read
  off tables that polars computes as the expressions do;
- the sum over the retrieved pairs within the cutoff, in rank order, as the
  expression's ``filter(...).sum()`` adds them: Kahan's compensated sum when
  the filter leaves out some pair of the lists polars evaluates together (it
  then sums groups), polars' ``sum`` otherwise (left to right below 128 terms,
  its own blocks from there);
- over the greedy ideal of :func:`.diversity_greedy.ideal_values`, null (or 0)
  for a query without a subtopic.

Where the subtopics are few (at most 16 distinct integers or strings),
:func:`.diversity_dense.dense_parts` computes the
same parts with bit masks; the arrays of :mod:`.diversity_flat` and the pools
of :mod:`.diversity_greedy` serve the other columns.
``tests/test_diversity_batched.py`` compares both with the expressions, bit for bit.

The subtopic lists may come as given (:func:`.diversity_statistics.subtopic_ranking`
carries them so for these measures alone): nulls and repeats inside a list are
dropped here, as :func:`.diversity_input.subtopic_columns` drops them for the
expressions. Lists whose subtopics are neither integers nor strings take the
expressions (``fallback``), evaluated on the same lists, cleaned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rankmetrics._validate import NoRelevant
from polars_rankmetrics.engine.ranked import DOC, SUBTOPICS
from polars_rankmetrics.metrics.diversity_dense import dense_parts
from polars_rankmetrics.metrics.diversity_flat import (
    Flat,
    cleaned,
    earlier,
    flatten,
    sequential_sums,
)
from polars_rankmetrics.metrics.diversity_greedy import covered_pairs, doc_keys, ideal_values
from polars_rankmetrics.metrics.diversity_ideal import Discount

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float64]
    Ints = npt.NDArray[np.int64]

BLOCK = 4096
"""Lists computed together: the arrays of a block stay in the processor's caches."""

POLARS_SEQUENTIAL = 128
"""polars adds fewer float values than this left to right (its ``sum``), more its own way."""


def normalised_expr(
    fallback: pl.Expr,
    *,
    alpha: float,
    discount: Discount,
    k: int | None,
    beta: float,
    scale: float,
    no_relevant: NoRelevant,
) -> pl.Expr:
    """:func:`normalised_values` of each ranked list, for ``list.agg``.

    The lists are imploded, and the function is marked elementwise over them:
    polars calls it once with the lists of all groups (or a chunk of them).
    """

    def compute(lists: pl.Series) -> pl.Series:
        return normalised_values(
            lists,
            fallback,
            alpha=alpha,
            discount=discount,
            k=k,
            beta=beta,
            scale=scale,
            no_relevant=no_relevant,
        )

    return pl.element().implode().map_batches(compute, return_dtype=pl.Float64, is_elementwise=True)


def normalised_values(
    lists: pl.Series,
    fallback: pl.Expr,
    *,
    alpha: float,
    discount: Discount,
    k: int | None,
    beta: float,
    scale: float,
    no_relevant: NoRelevant,
) -> pl.Series:
    """The measure of each list of ranked ``{code, subtopics, doc?}`` structs (Float64).

    ``fallback``, the measure's expression, computes lists whose subtopics are
    neither integers nor strings. ``scale`` multiplies both the ranking's sum
    and the ideal's (nNRBP's ``1 - (1 - alpha) beta``).
    """
    import numpy as np

    lengths = lists.list.len().fill_null(0)
    longest = max(int(lengths.max() or 0), 1) if len(lengths) else 1  # type: ignore[arg-type]
    depth = longest if k is None else min(k, longest)
    tables = _tables(alpha, discount, beta, depth, depth)
    dense = dense_parts(lists, SUBTOPICS, tables, k, alpha=alpha, discount=discount, beta=beta)
    parts = [] if dense is None else dense
    for start in range(0, len(lists) if dense is None else 0, BLOCK):
        flat = flatten(lists.slice(start, BLOCK), SUBTOPICS, clean=True)
        if flat is None:
            frame = cleaned(lists, SUBTOPICS).rename("lists").to_frame()
            return frame.select(pl.col("lists").list.agg(fallback)).to_series().rename(lists.name)
        terms, counts, all_inside = _ranked_terms(flat, tables, k)
        ideal = ideal_values(
            flat,
            covered_pairs(flat),
            doc_keys(flat, DOC) if DOC in flat.rows.struct.fields else None,
            np.ones(flat.n_gid, dtype=np.float64),
            flat.n_subtopics.astype(np.float64),
            alpha=alpha,
            discount=discount,
            depth=k,
            beta=beta,
        )
        parts.append((flat.n_subtopics, terms, counts, all_inside, ideal))
    if not parts:
        return pl.Series(lists.name, [], dtype=pl.Float64)
    subtopics, terms, counts, ideal = (
        np.concatenate([part[index] for part in parts]) for index in (0, 1, 2, 4)
    )
    # One sum for all blocks: polars compensates every sum of a call that left out a pair.
    ranked = _sums(terms, counts, compensated=not all(part[3] for part in parts))
    defined = subtopics > 0
    values = np.zeros(len(lists), dtype=np.float64)
    values[defined] = (scale * ranked[defined]) / (scale * ideal[defined])
    series = pl.Series(lists.name, values, dtype=pl.Float64)
    if no_relevant == "null":
        series = series.scatter(np.flatnonzero(~defined), None)
    return series


def _ranked_terms(
    flat: Flat, tables: tuple[Floats, Floats], k: int | None
) -> tuple[Floats, Ints, bool]:
    """The terms of each list's sum, in order; their number per list; whether none is left out.

    A term is the novelty gain times the discount of a retrieved pair within
    rank ``k``. ``tables``: ``(1 - alpha)**c`` by count and the discount by
    rank (:func:`_tables`).
    """
    import numpy as np

    power, discounts = tables
    code = flat.rows.struct.field(flat.rows.struct.fields[0])
    retrieved = (code >= 0.0).fill_null(value=False).to_numpy()
    pair_position = flat.pair_row - flat.row_start[flat.pair_list]
    inside = retrieved[flat.pair_row]
    if k is not None:
        inside &= pair_position < k
    chosen = np.flatnonzero(inside)
    pair_list = flat.pair_list[chosen]
    counted = earlier(flat, chosen)
    n_subtopics = flat.n_subtopics.astype(np.float64)
    with np.errstate(divide="ignore"):
        terms = ((1.0 / n_subtopics[pair_list]) * power[counted]) * discounts[pair_position[chosen]]
    counts = np.bincount(pair_list, minlength=flat.n_lists)
    return terms, counts, len(chosen) == len(inside)


def _sums(terms: Floats, counts: Ints, *, compensated: bool) -> Floats:
    """Each list's sum of its ``counts`` terms, as the expression's ``filter(...).sum()``.

    Polars sums the groups of a call with Kahan's compensation where the filter
    left out some pair, and with its ``sum`` otherwise.
    """
    import numpy as np

    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    if compensated:
        return sequential_sums(terms, starts, counts, compensated=True)
    sums = sequential_sums(terms, starts, counts)
    long = np.flatnonzero(counts >= POLARS_SEQUENTIAL)
    if len(long):
        sums[long] = _polars_sums(terms, starts[long], counts[long])
    return sums


def _tables(
    alpha: float, discount: Discount, beta: float, n_counts: int, n_ranks: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``(1 - alpha)**c`` for c below ``n_counts`` and the discount of the ranks 1 to ``n_ranks``.

    Computed by polars from the expressions of :class:`.diversity_statistics.Pairs`.
    """
    count = pl.Series("c", range(n_counts), dtype=pl.Float64)
    rank = pl.Series("r", range(1, n_ranks + 1), dtype=pl.Float64)
    power = pl.select(pl.lit(1.0 - alpha).pow(count)).to_series()
    if discount == "log":
        table = pl.select(1.0 / (pl.lit(rank) + 1.0).log(2)).to_series()
    elif discount == "reciprocal":
        table = pl.select(1.0 / pl.lit(rank)).to_series()
    else:
        table = pl.select(pl.lit(beta).pow(pl.lit(rank) - 1.0)).to_series()
    return power.to_numpy(), table.to_numpy()


def _polars_sums(
    terms: npt.NDArray[np.float64],
    starts: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
) -> npt.NDArray[np.float64]:
    """Polars' ``sum`` of each ``terms[start:start + count]`` (its own order from 128 terms)."""
    import numpy as np

    group = np.repeat(np.arange(len(starts)), counts)
    index = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(len(group))
    frame = pl.DataFrame({"g": group, "t": terms[index]})
    lists = frame.group_by("g", maintain_order=True).agg("t")
    summed = lists.select(pl.col("t").list.agg(pl.element().sum()))
    return summed.to_series().to_numpy()
