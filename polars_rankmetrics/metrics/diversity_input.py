"""The subtopic and intent-weight columns of the diversity measures, read once for all of them.

Every diversity measure (alpha-nDCG, ERR-IA, NRBP, P-IA, S-recall, AP-IA, and
their names in :func:`polars_rankmetrics.metrics`) reads its per-row columns
through :func:`subtopic_columns`, so that odd data means one thing everywhere:

=====================================================  ==========================================
data                                                   read as
=====================================================  ==========================================
a subtopic listed twice in a row's list                once (its first weight)
a null inside a subtopic list                          no subtopic (its weight is dropped)
a null subtopic list                                   an unjudged row
``intent_weights`` not parallel to the subtopics       invalid weights
a null weight list on a row that lists subtopics       invalid weights
a null, NaN, infinite or negative weight               invalid weights
one subtopic given different weights in a query        invalid weights
weights whose total over the query's subtopics is 0    invalid weights
=====================================================  ==========================================

A query with invalid weights has no intent distribution: every diversity
measure is null for it (with either ``no_relevant``), never a number computed
from weights that are not probabilities. A ``subtopics`` column that is not a
list is refused by polars at collect ("expected List data type for list
operation, got: String"): the type of a column is known only then.
"""

from __future__ import annotations

import polars as pl


def _kept(lists: pl.Expr) -> pl.Expr:
    """The positions of each list to keep: not null, and the first of their value."""
    element = pl.element()
    return lists.list.eval(
        pl.int_range(pl.len()).filter(element.is_not_null() & element.is_first_distinct())
    )


def subtopic_columns(
    subtopics: pl.Expr, intent_weights: pl.Expr | None
) -> tuple[pl.Expr, pl.Expr | None]:
    """The subtopic lists without nulls or repeats, and the weights of what is kept.

    Weights that are not one per subtopic (another length, or a null list
    beside subtopics) become a list of nulls as long as the kept subtopics, so
    that the query's weights are invalid (see :func:`weights_valid`).
    """
    if intent_weights is None:
        # One native kernel drops the nulls and the repeats (keeping first
        # occurrences): about 1.4x the measure's time on lists of a few
        # subtopics, where `list.drop_nulls` or a gather by computed positions
        # (below, for parallel weights) cost 5-20x in a group_by.
        return subtopics.list.set_difference(pl.lit([None])), None
    kept = _kept(subtopics)
    lists = subtopics.list.gather(kept)
    weights = intent_weights.cast(pl.List(pl.Float64))
    parallel = (weights.list.len() == subtopics.list.len()).fill_null(False)
    unusable = lists.list.eval(pl.lit(None, dtype=pl.Float64))
    chosen = pl.when(parallel).then(weights.list.gather(kept)).otherwise(unusable)
    return lists, chosen


def weights_valid(subtopic: pl.Expr, weight: pl.Expr) -> pl.Expr:
    """Whether a query's (subtopic, weight) pairs form an intent distribution.

    Every weight a finite number >= 0, one weight per subtopic, and a total over
    the distinct subtopics above 0.
    """
    finite = weight.is_not_null().all() & weight.is_finite().all() & (weight >= 0.0).all()
    one_each = pl.struct(subtopic, weight).n_unique() == subtopic.n_unique()
    total = weight.filter(subtopic.is_first_distinct()).sum()
    return finite & one_each & (total > 0.0)
