"""Measures for incomplete judgements: they tell unjudged documents from judged ones.

bpref and infAP are meant for pools that did not judge every retrieved document;
``unj`` and ``Judged`` measure how much of the top of a ranking was judged;
``relstring`` shows the judgements of the top ranks. All of them read the raw
label of each row (:attr:`Ranked.raw <polars_rankmetrics.engine.Ranked.raw>`):
null when the row is unjudged, negative when it is in the pool but unjudged
(trec_eval's convention), so the engine ranks a list of ``{code, raw}`` structs
for them.

References
----------
Buckley and Voorhees, "Retrieval evaluation with incomplete information",
SIGIR 2004 (bpref). Yilmaz and Aslam, "Estimating average precision with
incomplete and imperfect judgments", CIKM 2006 (infAP).
"""

from __future__ import annotations

import math
from typing import Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import (
    MAX_CUTOFF,
    NoRelevant,
    check_k,
    check_number,
    choice,
    optional,
)
from polars_rankmetrics.engine import Ranked, statistic
from polars_rankmetrics.engine.ranked import computed_once, in_order

INFAP_EPSILON = 0.00001
"""trec_eval's smoothing constant in infAP."""


def _cumulative(mask: pl.Expr) -> pl.Expr:
    """How many positions up to and including each one satisfy ``mask``."""
    return mask.cast(pl.Float64).cum_sum()


def _count(mask: pl.Expr) -> pl.Expr:
    return mask.cast(pl.Float64).sum()


Negatives: TypeAlias = Literal["unjudged", "nonrelevant"]
"""What a negative label means to bpref: in the pool but unjudged (trec_eval),
or judged non-relevant (ranx)."""


@statistic(judged_rows=True, negatives=choice(Negatives))
def bpref_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, negatives: Negatives = "unjudged"
) -> pl.Expr:
    """bpref: how few judged non-relevant rows rank above each relevant one.

    ``bpref = (1/R) · sum over relevant retrieved r of
    (1 - min(n_r, R) / min(N, R))``, where ``n_r`` counts the judged
    non-relevant rows ranked above r and N all judged non-relevant rows.
    Unjudged rows are skipped; a row with a negative label is unjudged
    (trec_eval) or, with ``negatives='nonrelevant'``, judged non-relevant (ranx).
    Rows with a null label change nothing where they are not relevant (a sum of
    zeros at their places), so the engine ranks only the labelled rows for it
    (``judged_rows``).
    """
    nonrelevant = ranked.nonrelevant_judged
    if negatives == "nonrelevant":
        nonrelevant = ranked.raw.is_not_null() & ~ranked.relevant
    n_relevant = ranked.n_relevant.cast(pl.Float64)
    # The running count and the masks once each (the count is read three times).
    # R and the scale as columns: a true division at each position (``Ranked.at_each``).
    length = ranked.code.len()
    scale = pl.min_horizontal(_count(nonrelevant), n_relevant)
    values = {
        "above": _cumulative(nonrelevant & ranked.retrieved),
        "hit": ranked.top_hit(None),
        "r": pl.repeat(n_relevant, length),
        "scale": pl.repeat(scale, length),
    }

    def summed(field: dict[str, pl.Expr]) -> pl.Expr:
        above = field["above"]
        ratio = pl.min_horizontal(above, field["r"]) / field["scale"]
        term = pl.when(above > 0).then(1.0 - ratio)
        return in_order(term.otherwise(1.0).filter(field["hit"]))

    value = computed_once(values, summed) / n_relevant
    return ranked.if_relevant(value, no_relevant)


@statistic()
def inferred_ap_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """infAP: AP estimated from a judged sample of the pool (Yilmaz and Aslam).

    At the relevant retrieved row at 0-based position j > 0, the expected
    precision is ``1/(j+1) + (j/(j+1)) · (above/j) · (rel + ε)/(rel + nonrel + 2ε)``,
    where ``above`` counts the rows above that are in the pool (judged, or with a
    negative label), and ``rel``/``nonrel`` the judged ones above. Rows with a
    null label (not in the pool) count as non-relevant. Divided by R.
    """
    hit = ranked.top_hit(None)
    # Each running count once (they are read up to four times below).
    values = {
        "hit": hit,
        "position": ranked.rank - 1.0,
        "relevant": _cumulative(hit) - hit.cast(pl.Float64),
        "nonrelevant": _cumulative(ranked.nonrelevant_judged & ranked.retrieved),
        "unjudged": _cumulative(ranked.retrieved & (ranked.raw < 0.0)),
    }

    def summed(field: dict[str, pl.Expr]) -> pl.Expr:
        position, relevant_above = field["position"], field["relevant"]
        nonrelevant_above = field["nonrelevant"]
        in_pool_above = relevant_above + nonrelevant_above + field["unjudged"]
        expected = 1.0 / (position + 1.0) + (position / (position + 1.0)) * (
            in_pool_above / position
        ) * (
            (relevant_above + INFAP_EPSILON)
            / (relevant_above + nonrelevant_above + 2.0 * INFAP_EPSILON)
        )
        term = pl.when(position == 0.0).then(1.0).otherwise(expected)
        return in_order(term.filter(field["hit"]))

    value = computed_once(values, summed) / ranked.n_relevant
    return ranked.if_relevant(value, no_relevant)


@statistic(k=check_k)
def unjudged_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int) -> pl.Expr:
    """The fraction of the top k that is unjudged; missing places count as judged (``unj``)."""
    return ranked.divide(_count(ranked.unjudged_retrieved.head(k)), k)


@statistic(k=optional(check_k))
def judged_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int | None = None) -> pl.Expr:
    """The fraction of the top ``min(k, retrieved)`` rows that have a judgement (ir_measures).

    Without ``k``, of every retrieved row. A row counts as judged when it has a
    label at all, negative included. A query with nothing retrieved gets 0.
    """
    k = MAX_CUTOFF if k is None else k
    top = ranked.code.head(k)
    judged = (top >= 0.0) & ranked.raw.is_not_null().head(k)
    depth = (top >= 0.0).sum()
    return pl.when(depth > 0).then(judged.sum() / depth).otherwise(0.0)


def _length(value: object, name: str) -> int:
    """A string length, read as trec_eval reads it: truncated to a C ``long``, negative as 0.

    A length that no ``long`` holds (NaN, an infinity, 1e30) is 0, as on x86;
    past 2**62 the string is the whole ranking anyway.
    """
    if not isinstance(value, int | float) or isinstance(value, bool):
        check_number(value, name)
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number) or abs(number) >= 2.0**63:
        return 0
    return min(max(int(number), 0), MAX_CUTOFF)


@statistic(dtype=pl.String(), length=_length)
def relevance_string_statistic(ranked: Ranked, no_relevant: NoRelevant, *, length: int) -> pl.Expr:
    """Return the labels of the top ``length`` rows as text: a digit per judged level.

    ``>`` stands for a level above 9, ``-`` for a row that is not judged (null
    label) and ``.`` for a negative label (in the pool but unjudged).
    """
    raw = ranked.raw
    symbol = (
        pl.when(raw.is_null())
        .then(pl.lit("-"))
        .when(raw < 0.0)
        .then(pl.lit("."))
        .when(raw > 9.0)
        .then(pl.lit(">"))
        # Clipped: polars casts every row, and a label beyond 2**63 would not fit.
        .otherwise(raw.clip(upper_bound=9.0).floor().cast(pl.Int64).cast(pl.String))
    )
    return symbol.filter(ranked.retrieved).head(length).str.join("")
