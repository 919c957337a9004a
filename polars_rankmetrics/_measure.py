"""What a parsed measure is: a name, a statistic over one ranking, and how to report it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

import polars as pl

from polars_rankmetrics._ranking import NoRelevant, Ranked

Statistic: TypeAlias = Callable[[Ranked, NoRelevant], pl.Expr]
"""Builds a measure's expression over one ranked list (see :class:`Ranked`)."""

Summary: TypeAlias = Literal["mean", "sum", "geometric", "none"]
"""How per-query values become the summary over queries (trec_eval's ``all`` line)."""


@dataclass(frozen=True)
class Measure:
    """One output column of a measure name: ``P.5,10`` gives two, ``P_5`` and ``P_10``.

    Attributes
    ----------
    name
        The output name (trec_eval's printed name for trec_eval spellings).
    statistic
        The expression over one ranking.
    judged
        Whether the statistic needs the ``{code, raw}`` list of
        :meth:`polars_rankmetrics._ranking.Ranking.ranked_judged` (it is then
        given a :class:`polars_rankmetrics._ranking.JudgedRanked`).
    dtype
        Float64, or String for ``relstring``.
    summary : {'mean', 'sum', 'geometric', 'none'}
        How the per-query values are summarised over queries.
    per_query
        Whether trec_eval prints the measure for each query (``gm_map`` and
        ``num_q`` are summaries only).
    integer
        Whether trec_eval prints the value as an integer (counts).
    family
        The trec_eval measure this output belongs to (``P`` for ``P_10``), used
        to print measures in trec_eval's order; empty for other names.
    averages_ties
        Whether the statistic is exact under ``ties='average'``: it is built from
        the tie-aware core statistics, or does not depend on the order of the
        ranking. Other measures refuse that mode rather than give input-order
        values under its name.
    staged
        Whether the statistic reads the ranking only through
        :meth:`polars_rankmetrics._ranking.Ranked.aggregate` (and ``n_relevant``),
        combining those with arithmetic. Then :func:`polars_rankmetrics.metrics`
        computes each aggregate once for every measure that reads it; other
        statistics are computed whole.
    """

    name: str
    statistic: Statistic
    judged: bool = False
    dtype: pl.DataType = field(default_factory=pl.Float64)
    summary: Summary = "mean"
    per_query: bool = True
    integer: bool = False
    family: str = ""
    averages_ties: bool = False
    staged: bool = False
