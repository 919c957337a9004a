"""The staged aggregates of integer labels over their narrow codes, not cast to Float64.

An integer label's code sorts in a narrow integer type (``Int8`` for ``Int8``
labels: :attr:`.ranking.Ranking.code`) and :meth:`.ranking.Ranking.ranked` casts
the sorted list to Float64, which every statistic can read. Most staged
aggregates read the codes only through comparisons with small whole numbers
(hits, R, the counted ideal DCG) or read one value cast to Float64 (DCG@k by
columns): on the narrow list those comparisons are integer comparisons (the
bounds are integer literals, :func:`.ranked.literal_bound`), a fraction of the
cost of comparing Float64 values, and the cast of the whole list is not needed.
The values are the same: the codes are whole numbers that Float64 holds exactly.

:meth:`.staged.StagedRanked.computed` takes the narrow list for the integer form
(picked by the relevance column's type when the plan is built) when every
aggregate is :func:`safe_on_narrow`; any other aggregate (a statistic computed
whole, arithmetic on the codes) keeps the Float64 list for all.
"""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from polars_rankmetrics.engine.per_list import CONSTANT, PER_LIST
from polars_rankmetrics.engine.ranked import Ranked
from polars_rankmetrics.engine.ranking import Ranking


def narrow_list(ranking: Ranking) -> pl.Expr:
    """The group's ranking as one list of its codes in their own type (``Ranking.ranked``'s)."""
    return ranking.order(ranking.code).implode()


def safe_on_narrow(ranked: Ranked, value: pl.Expr) -> bool:
    """Whether the aggregate ``value`` gives the same value on the narrow codes.

    A per-list constant; R (:attr:`.Ranked.n_relevant`'s sum) and the first hit
    (``top_hit(None).arg_max()``): comparisons; and the aggregates that the
    staged paths write themselves (:data:`.per_list.PER_LIST`: AP's sums over
    the Int64 hits, DCG@k by columns, which casts each value it reads, and the
    ideal DCG, whose integer form counts by comparisons). The hit counts are
    known by :meth:`.staged.StagedRanked.aggregate` already.
    """
    name = value.meta.output_name(raise_if_undetermined=False)
    if name in (CONSTANT, PER_LIST):
        return True
    known = (ranked.relevant.sum(), ranked.top_hit(None).arg_max())
    return any(value.meta.eq(safe) for safe in known)


def all_safe(ranked: Ranked, recorded: Iterable[tuple[str, pl.Expr]], known: set[str]) -> bool:
    """Whether every ``recorded`` (name, aggregate) is in ``known`` or :func:`safe_on_narrow`."""
    return all(name in known or safe_on_narrow(ranked, value) for name, value in recorded)


def typed(relevance: pl.Expr, listed: pl.Expr) -> pl.Expr:
    """The input of the choice of form (``pipe_with_dtype``): ``relevance``, ``listed``'s columns.

    The chosen form replaces this input when the plan is built, so neither is
    computed; the struct only names every column the forms read, which
    ``meta.root_names`` reports from the input alone (``evaluate_parquet`` reads
    those columns only).
    """
    named = set(relevance.meta.root_names())
    others = [name for name in dict.fromkeys(listed.meta.root_names()) if name not in named]
    if not others:
        return relevance
    return pl.struct(relevance.alias(_LABEL), pl.struct(others).alias(_READ))


_LABEL = "_rankmetrics_label"
_READ = "_rankmetrics_read"
