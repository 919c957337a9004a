"""The subtopic and intent-weight columns of the diversity measures, read once for all of them.

Every diversity measure (alpha-nDCG, ERR-IA, NRBP, P-IA, S-recall, AP-IA, and
their names in :func:`polars_rankmetrics.metrics`) reads its per-row columns
through :func:`subtopic_columns`, so that odd data means one thing everywhere:

=====================================================  ==========================================
data                                                   read as
=====================================================  ==========================================
a subtopic listed twice in a row's list                once (with weights: invalid)
a null inside a subtopic list                          no subtopic (with weights: invalid)
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


def subtopic_columns(
    subtopics: pl.Expr, intent_weights: pl.Expr | None
) -> tuple[pl.Expr, pl.Expr | None]:
    """The subtopic lists as the diversity measures read them, and the weights.

    Without weights, the lists lose their nulls and repeats (one native kernel,
    keeping first occurrences: about 1.4x the measure's time on lists of a few
    subtopics, where ``list.drop_nulls`` costs 5-10x in a group_by). With
    weights the lists stay as given, and a null or a repeat in a row's list
    makes the query's weights invalid (see :func:`weights_valid`): dropping
    them from two parallel lists would cost 15x. Weights that are not one per
    subtopic (another length, or a null list beside subtopics) become nulls,
    as many as the subtopics, so that the query's weights are invalid too.
    """
    if intent_weights is None:
        return subtopics.list.set_difference(pl.lit([None])), None
    weights = intent_weights.cast(pl.List(pl.Float64))
    length = subtopics.list.len()
    parallel = (weights.list.len() == length).fill_null(subtopics.is_null())
    nulls = pl.lit(None, dtype=pl.Float64).repeat_by(length)
    return subtopics, pl.when(parallel).then(weights).otherwise(nulls)


def weights_valid(subtopic: pl.Expr, weight: pl.Expr, position: pl.Expr) -> pl.Expr:
    """Whether a query's (subtopic, weight) pairs form an intent distribution.

    Every subtopic not null and listed once per row (``position``), every
    weight a finite number >= 0, one weight per subtopic, and a total over the
    distinct subtopics above 0.
    """
    listed = subtopic.is_not_null().all() & pl.struct(position, subtopic).is_unique().all()
    finite = weight.is_not_null().all() & weight.is_finite().all() & (weight >= 0.0).all()
    one_each = pl.struct(subtopic, weight).n_unique() == subtopic.n_unique()
    total = weight.filter(subtopic.is_first_distinct()).sum()
    return listed & finite & one_each & (total > 0.0)
