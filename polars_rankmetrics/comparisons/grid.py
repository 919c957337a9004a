"""The per-query frame of many systems as one (system x query) matrix per metric.

Every function that compares many systems (:func:`~polars_rankmetrics.compare_pairs`,
:func:`~polars_rankmetrics.anova`, :func:`~polars_rankmetrics.effect_sizes`,
:func:`~polars_rankmetrics.risk`) starts here, so that the checks of the input
and the query-set rules (``queries``, ``missing``) are those of
:func:`polars_rankmetrics.compare`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_rankmetrics._validate import check_choice
from polars_rankmetrics.comparisons.comparison import (
    Aligned,
    Missing,
    _check_columns,
    _metric_columns,
    _query_set,
    align,
)


@dataclass(frozen=True)
class Grid:
    """The systems, in order of first appearance, and one :class:`Aligned` per metric."""

    systems: list[str]
    metrics: dict[str, Aligned]
    n_ignored: dict[str, int]


def grid(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    system: str = "system",
    query: str = "query",
    metrics: Sequence[str] | None = None,
    queries: Sequence[Any] | pl.Series | None = None,
    missing: Missing = "zero",
    systems: Sequence[str] | None = None,
) -> Grid:
    """Check the per-query frame and align each metric on the query set.

    Raises ``ValueError`` for fewer than two systems, a missing or null key
    column, a duplicated (system, query) row, a metric column that is not
    numeric, or a system in ``systems`` that is not in the frame. ``missing``
    and ``queries`` follow :func:`polars_rankmetrics.compare`.
    """
    check_choice(missing, "missing", Missing)
    frame = per_query.collect() if isinstance(per_query, pl.LazyFrame) else per_query
    if not isinstance(frame, pl.DataFrame):
        msg = f"`per_query` must be a polars DataFrame or LazyFrame, got {type(per_query).__name__}"
        raise TypeError(msg)
    _check_columns(frame, system, query)
    frame = frame.with_columns(pl.col(system).cast(pl.String))
    present = frame[system].unique(maintain_order=True).to_list()
    if systems is None:
        chosen = present
    else:
        chosen = [str(name) for name in systems]
        absent = [name for name in chosen if name not in present]
        if absent or len(set(chosen)) != len(chosen):
            msg = f"`systems` must name distinct systems of the frame; the systems are {present}"
            raise ValueError(msg)
        frame = frame.filter(pl.col(system).is_in(chosen))
    if len(chosen) < 2:
        msg = f"comparing systems needs at least two systems, got {chosen}"
        raise ValueError(msg)
    names = _metric_columns(frame, metrics, system, query)
    query_set = _query_set(frame, query, queries)
    n_ignored = dict(
        frame.filter(~pl.col(query).is_in(query_set.implode())).group_by(system).len().iter_rows()
    )
    aligned = {
        name: align(frame, name, chosen, query_set, system=system, query=query, missing=missing)
        for name in names
    }
    return Grid(chosen, aligned, {name: int(n_ignored.get(name, 0)) for name in chosen})
