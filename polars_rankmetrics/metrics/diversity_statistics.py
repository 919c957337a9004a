"""The statistics of the intent-aware diversity measures, over (document, subtopic) pairs.

The data model: each row carries the list of subtopics (intents) its document
is relevant to, the :data:`~polars_rankmetrics.engine.ranked.SUBTOPICS` field
(null: unjudged; empty: judged, relevant to none), and optionally the intent
probabilities of those subtopics, a parallel list
(:data:`~polars_rankmetrics.engine.ranked.INTENT_WEIGHTS`). Inside the ranked
list the lists are exploded into one element per (position, subtopic) pair, in
rank order, so that every measure is a sum over pairs:

- the subtopics of the query, S, are the distinct subtopics of any row,
  retrieved or not (ndeval counts only subtopics with a relevant document);
- ``c``, the documents above a pair's position that cover its subtopic, is the
  pair's ordinal rank among the pairs of its subtopic (pairs of unretrieved
  rows come last, so they never count above a retrieved one);
- the novelty gain of a pair is ``w_j (1 - alpha)**c`` with ``w_j = 1/S``
  (or the normalised intent probability).

References
----------
C. L. A. Clarke et al., "Novelty and diversity in information retrieval
evaluation", SIGIR 2008 (alpha-nDCG); O. Chapelle et al., CIKM 2009 (ERR-IA);
C. L. A. Clarke, M. Kolla and O. Vechtomova, "An effectiveness measure for
ambiguous and underspecified queries", ICTIR 2009 (NRBP); R. Agrawal et al.,
"Diversifying search results", WSDM 2009 (intent-aware measures); C. Zhai,
W. Cohen and J. Lafferty, SIGIR 2003 (subtopic recall). ``ndeval`` 4.5 (TREC
Web track), the reference implementation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from typing import Any, Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import (
    IntoExpr,
    NoRelevant,
    Ties,
    as_expr,
    check_bool,
    check_k,
    check_number,
    choice,
)
from polars_rankmetrics.engine import Bound, Ranked, Ranking, Statistic, evaluate_one, statistic
from polars_rankmetrics.engine.ranked import DOC, INTENT_WEIGHTS, SUBTOPICS
from polars_rankmetrics.engine.ties import tie_mean
from polars_rankmetrics.metrics.diversity_ideal import Discount, Ideal, ideal_expr
from polars_rankmetrics.metrics.diversity_input import subtopic_columns, weights_valid

Gain: TypeAlias = Literal["log", "reciprocal", "geometric"]


def check_alpha(value: object, name: str) -> float:
    """Return a redundancy penalty alpha: a number in [0, 1]."""
    return check_number(value, name, low=0.0, high=1.0)


def check_beta(value: object, name: str) -> float:
    """Return a patience beta: a number in (0, 1)."""
    return check_number(value, name, low=0.0, high=1.0, low_open=True, high_open=True)


@dataclass(frozen=True)
class Pairs:
    """One element per (position, subtopic) pair of a ranked list, in rank order."""

    ranked: Ranked

    @property
    def _lists(self) -> pl.Expr:
        return self.ranked.field(SUBTOPICS)

    @property
    def subtopic(self) -> pl.Expr:
        """The subtopic of each pair."""
        return self._lists.explode(keep_nulls=False)

    def _per_pair(self, values: pl.Expr) -> pl.Expr:
        """A per-position value, repeated for each of the position's pairs."""
        return values.repeat_by(self._lists.list.len().fill_null(0)).explode(keep_nulls=False)

    @property
    def rank(self) -> pl.Expr:
        """The 1-based rank of each pair's position (Float64)."""
        return self._per_pair(pl.int_range(1, pl.len() + 1)).cast(pl.Float64)

    @property
    def retrieved(self) -> pl.Expr:
        """Whether each pair's row was retrieved."""
        return self._per_pair(self.ranked.retrieved)

    @property
    def n_subtopics(self) -> pl.Expr:
        """S: the distinct subtopics of the query (Float64)."""
        return self.subtopic.n_unique().cast(pl.Float64)

    @property
    def earlier(self) -> pl.Expr:
        """c: the pairs of the same subtopic at earlier positions (Float64)."""
        subtopic = self.subtopic
        return (subtopic.rank("ordinal") - subtopic.rank("min")).cast(pl.Float64)

    @property
    def covering(self) -> pl.Expr:
        """R_j: the rows, retrieved or not, that cover each pair's subtopic (Float64)."""
        subtopic = self.subtopic
        return (subtopic.rank("max") - subtopic.rank("min") + 1).cast(pl.Float64)

    @property
    def weighted(self) -> bool:
        """Whether the ranking carries intent probabilities."""
        return INTENT_WEIGHTS in self.ranked.fields

    @property
    def weight(self) -> pl.Expr:
        """w_j of each pair: 1/S, or its intent probability over the query's total."""
        if not self.weighted:
            return 1.0 / self.n_subtopics
        raw = self.ranked.field(INTENT_WEIGHTS).explode(keep_nulls=False).cast(pl.Float64)
        return raw / raw.filter(self.subtopic.is_first_distinct()).sum()

    @property
    def position_weight(self) -> pl.Expr:
        """The total weight of each position's subtopics (P-IA's per-position gain)."""
        lists = self._lists
        if not self.weighted:
            return lists.list.len().fill_null(0).cast(pl.Float64) / self.n_subtopics
        raw = self.ranked.field(INTENT_WEIGHTS).explode(keep_nulls=False).cast(pl.Float64)
        total = raw.filter(self.subtopic.is_first_distinct()).sum()
        return self.ranked.field(INTENT_WEIGHTS).list.sum().fill_null(0.0) / total

    def novelty(self, alpha: float) -> pl.Expr:
        """The novelty gain of each pair, ``w_j (1 - alpha)**c``."""
        return self.weight * pl.lit(1.0 - alpha).pow(self.earlier)

    def discounted(self, alpha: float, gain: Gain, k: int | None, beta: float = 0.5) -> pl.Expr:
        """The sum over retrieved pairs within rank ``k`` of novelty times the discount."""
        rank = self.rank
        if gain == "log":
            discount = 1.0 / (rank + 1.0).log(2)
        elif gain == "reciprocal":
            discount = 1.0 / rank
        else:
            discount = pl.lit(beta).pow(rank - 1.0)
        inside = self.retrieved if k is None else self.retrieved & (rank <= k)
        return (self.novelty(alpha) * discount).filter(inside).sum()

    @property
    def weights_valid(self) -> pl.Expr:
        """Whether the intent weights form a distribution (see :func:`.weights_valid`)."""
        raw = self.ranked.field(INTENT_WEIGHTS).explode(keep_nulls=False)
        return weights_valid(self.subtopic, raw, self._per_pair(pl.int_range(pl.len())))

    def defined(self, value: pl.Expr, no_relevant: NoRelevant, *, weighted: bool = True) -> pl.Expr:
        """``value`` where the query has a subtopic (null for invalid weights), else null or 0.

        ``weighted``: whether the statistic reads the intent weights (S-recall does not).
        """
        fallback = None if no_relevant == "null" else 0.0
        if weighted and self.weighted:
            value = pl.when(self.weights_valid).then(value)
        return pl.when(self.n_subtopics > 0.0).then(value).otherwise(fallback)

    def ideal(
        self, alpha: float, discount: Discount, depth: int | None, **options: object
    ) -> pl.Expr:
        """The ideal ranking's discounted gain (see :mod:`.diversity_ideal`)."""
        fields = [self._lists.alias("subtopics")]
        if self.weighted:
            # Invalid weights make the value null (see `defined`); the ideal's
            # search still runs, on weights read as 0 where they are not usable.
            usable = pl.element().is_finite() & (pl.element() >= 0.0)
            weights = self.ranked.field(INTENT_WEIGHTS).list.eval(
                pl.when(usable).then(pl.element()).otherwise(0.0)
            )
            fields.append(weights.alias("weights"))
        if DOC in self.ranked.fields:
            fields.append(self.ranked.field(DOC).alias("doc"))
        # Only the rows that cover a subtopic can enter the ideal with a gain.
        relevant = pl.struct(fields).filter(self._lists.list.len() > 0)
        if options.get("ideal", "greedy") == "greedy":
            # Imported here: the batched ideal is not needed to import the package.
            from polars_rankmetrics.metrics.diversity_greedy import greedy_expr

            beta = float(options.get("beta", 0.5))  # type: ignore[arg-type]
            return greedy_expr(relevant, alpha=alpha, discount=discount, depth=depth, beta=beta)
        return ideal_expr(relevant, alpha=alpha, discount=discount, depth=depth, **options)


MAX_NORMALISED_K = 1_000_000
"""The largest cutoff of alpha-DCG and ERR-IA: their normalisation sums ``k`` terms."""


def check_normalised_k(value: object, name: str) -> int:
    """Return a cutoff of at most :data:`MAX_NORMALISED_K`."""
    k = check_k(value, name)
    if k > MAX_NORMALISED_K:
        msg = (
            f"`{name}` must be at most {MAX_NORMALISED_K} for alpha-DCG and ERR-IA "
            f"(their normalisation sums k terms), got {k}"
        )
        raise ValueError(msg)
    return k


@cache
def _ideal_ideal(alpha: float, gain: Gain, k: int) -> float:
    """A ranking whose every document covers every subtopic: gain ``(1-alpha)**(r-1)``."""
    if gain == "log":
        return math.fsum((1.0 - alpha) ** (r - 1) / math.log2(r + 1.0) for r in range(1, k + 1))
    return math.fsum((1.0 - alpha) ** (r - 1) / r for r in range(1, k + 1))


def _normalised(pairs: Pairs, alpha: float, gain: Gain, k: int, ndeval_k1: bool) -> pl.Expr:
    """The collection-independent normalisation of ndeval (alpha-DCG, ERR-IA)."""
    value = pairs.discounted(alpha, gain, k)
    if ndeval_k1 and k == 1:
        # ndeval's division loop starts at rank 2: at k = 1 the sum stays S times larger.
        return value * pairs.n_subtopics
    return value / _ideal_ideal(alpha, gain, k)


_DIVERSITY: dict[str, Any] = {"k": check_k, "alpha": check_alpha}
_NORMALISED: dict[str, Any] = {**_DIVERSITY, "k": check_normalised_k, "ndeval_k1": check_bool}


@statistic(**_NORMALISED)
def alpha_dcg_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int, alpha: float = 0.5, ndeval_k1: bool = False
) -> pl.Expr:
    """alpha-DCG@k over the DCG@k of a ranking whose documents cover every subtopic."""
    pairs = Pairs(ranked)
    return pairs.defined(_normalised(pairs, alpha, "log", k, ndeval_k1), no_relevant)


@statistic(**_NORMALISED)
def err_ia_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int, alpha: float = 0.5, ndeval_k1: bool = False
) -> pl.Expr:
    """ERR-IA@k over the ERR-IA@k of a ranking whose documents cover every subtopic."""
    pairs = Pairs(ranked)
    return pairs.defined(_normalised(pairs, alpha, "reciprocal", k, ndeval_k1), no_relevant)


def _over_ideal(
    pairs: Pairs, value: pl.Expr, ideal: pl.Expr, no_relevant: NoRelevant, kind: Ideal
) -> pl.Expr:
    """``value / ideal``, undefined without a subtopic (then both are 0).

    The exact ideal is the largest value of any ranking, so the ratio is at
    most 1; the two sums add the same terms in different orders, and a
    ranking as good as the ideal could come out 1 ulp above it: 1. (The greedy
    ideal can fall short of a ranking, and then the ratio is above 1.)
    The ideal must appear once in the expression: polars does not share
    subexpressions inside ``list.agg``, so each mention would rank it again.
    """
    ratio = value / ideal
    if kind == "exact":
        ratio = ratio.clip(upper_bound=1.0)  # keeps null and NaN; the ideal is read once
    return pairs.defined(ratio, no_relevant)


def _batched(
    pairs: Pairs,
    expression: pl.Expr,
    ideal: Ideal,
    no_relevant: NoRelevant,
    **options: Any,
) -> pl.Expr:
    """``expression``, or the same values for all lists in one call where that applies.

    With equal intent weights and the greedy ideal (and numpy), see
    :mod:`.diversity_batched`; ``expression`` is still built (the engine learns
    from it which fields the statistic reads) and serves lists it cannot take.
    """
    if ideal != "greedy" or pairs.weighted or find_spec("numpy") is None:
        return expression
    # Imported here: the batched measures are not needed to import the package.
    from polars_rankmetrics.metrics.diversity_batched import normalised_expr

    return normalised_expr(expression, no_relevant=no_relevant, **options)


Normalised: TypeAlias = tuple["Pairs", pl.Expr, dict[str, Any]]
"""A normalised measure's pairs, its expression, and the options of its batched computation."""


def _alpha_ndcg(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int, alpha: float = 0.5, ideal: Ideal = "greedy"
) -> Normalised:
    pairs = Pairs(ranked)
    best = pairs.ideal(alpha, "log", k, ideal=ideal)
    value = _over_ideal(pairs, pairs.discounted(alpha, "log", k), best, no_relevant, ideal)
    return pairs, value, {"alpha": alpha, "discount": "log", "k": k, "beta": 0.5, "scale": 1.0}


@statistic(**_DIVERSITY, ideal=choice(Ideal))
def alpha_ndcg_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int, alpha: float = 0.5, ideal: Ideal = "greedy"
) -> pl.Expr:
    """alpha-nDCG@k: alpha-DCG@k over that of the ideal ranking."""
    pairs, value, options = _alpha_ndcg(ranked, no_relevant, k=k, alpha=alpha, ideal=ideal)
    return _batched(pairs, value, ideal, no_relevant, **options)


def _nerr_ia(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int, alpha: float = 0.5, ideal: Ideal = "greedy"
) -> Normalised:
    pairs = Pairs(ranked)
    best = pairs.ideal(alpha, "reciprocal", k, ideal=ideal)
    value = _over_ideal(pairs, pairs.discounted(alpha, "reciprocal", k), best, no_relevant, ideal)
    options = {"alpha": alpha, "discount": "reciprocal", "k": k, "beta": 0.5, "scale": 1.0}
    return pairs, value, options


@statistic(**_DIVERSITY, ideal=choice(Ideal))
def nerr_ia_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, k: int, alpha: float = 0.5, ideal: Ideal = "greedy"
) -> pl.Expr:
    """nERR-IA@k: ERR-IA@k over that of the ideal ranking."""
    pairs, value, options = _nerr_ia(ranked, no_relevant, k=k, alpha=alpha, ideal=ideal)
    return _batched(pairs, value, ideal, no_relevant, **options)


def _nrbp(pairs: Pairs, alpha: float, beta: float) -> pl.Expr:
    return (1.0 - (1.0 - alpha) * beta) * pairs.discounted(alpha, "geometric", None, beta)


@statistic(alpha=check_alpha, beta=check_beta)
def nrbp_statistic(
    ranked: Ranked, no_relevant: NoRelevant, *, alpha: float = 0.5, beta: float = 0.5
) -> pl.Expr:
    """NRBP: ``(1 - (1 - alpha) beta) · sum_r beta**(r-1) gain_r`` over the whole ranking."""
    pairs = Pairs(ranked)
    return pairs.defined(_nrbp(pairs, alpha, beta), no_relevant)


def _nnrbp(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    ideal: Ideal = "greedy",
) -> Normalised:
    pairs = Pairs(ranked)
    scale = 1.0 - (1.0 - alpha) * beta
    best = scale * pairs.ideal(alpha, "geometric", None, beta=beta, ideal=ideal)
    value = _over_ideal(pairs, _nrbp(pairs, alpha, beta), best, no_relevant, ideal)
    options = {"alpha": alpha, "discount": "geometric", "k": None, "beta": beta, "scale": scale}
    return pairs, value, options


@statistic(alpha=check_alpha, beta=check_beta, ideal=choice(Ideal))
def nnrbp_statistic(
    ranked: Ranked,
    no_relevant: NoRelevant,
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    ideal: Ideal = "greedy",
) -> pl.Expr:
    """nNRBP: NRBP over the NRBP of the ideal ranking (every relevant document)."""
    pairs, value, options = _nnrbp(ranked, no_relevant, alpha=alpha, beta=beta, ideal=ideal)
    return _batched(pairs, value, ideal, no_relevant, **options)


_NORMALISED_PARTS: tuple[tuple[Statistic, Callable[..., Normalised]], ...] = (
    (alpha_ndcg_statistic, _alpha_ndcg),
    (nerr_ia_statistic, _nerr_ia),
    (nnrbp_statistic, _nnrbp),
)
"""The batched measures (:func:`_batched`) and their parts."""


@statistic(exact_average=True, k=check_k)
def precision_ia_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int) -> pl.Expr:
    """P-IA@k: ``sum_j w_j · (documents in the top k relevant to j) / k``."""
    pairs = Pairs(ranked)
    gain = pl.when(ranked.retrieved).then(pairs.position_weight).otherwise(0.0)
    return pairs.defined(tie_mean(ranked, gain).head(k).sum() / k, no_relevant)


@statistic(k=check_k)
def subtopic_recall_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int) -> pl.Expr:
    """S-recall@k: the subtopics covered by the top k over S (unweighted)."""
    pairs = Pairs(ranked)
    inside = pairs.retrieved & (pairs.rank <= k)
    covered = pairs.subtopic.filter(inside).n_unique().cast(pl.Float64)
    return pairs.defined(covered / pairs.n_subtopics, no_relevant, weighted=False)


@statistic()
def ap_ia_statistic(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """AP-IA: ``sum_j w_j AP_j``, AP_j over the documents relevant to subtopic j."""
    pairs = Pairs(ranked)
    terms = pairs.weight * (pairs.earlier + 1.0) / pairs.rank / pairs.covering
    return pairs.defined(terms.filter(pairs.retrieved).sum(), no_relevant)


# ------------------------------------------------------------ the ranking


def subtopic_ranking(
    subtopics: IntoExpr,
    by: IntoExpr | Sequence[IntoExpr] | None,
    descending: bool | Sequence[bool],
    ties: Ties,
    intent_weights: IntoExpr | None = None,
    docs: IntoExpr | None = None,
    *,
    as_given: bool = False,
) -> Ranking:
    """The ranking of a subtopic-list column: the label is the number of subtopics covered.

    So a row is relevant when it covers a subtopic, and ``ties='optimistic'``
    puts the rows that cover more subtopics first. The ranking carries the
    subtopic lists cleaned (see :func:`.subtopic_columns`), or ``as_given``
    for a statistic that cleans them itself (:func:`reads_lists_as_given`).
    """
    weights = None if intent_weights is None else as_expr(intent_weights, "intent_weights")
    given = as_expr(subtopics, "subtopics")
    lists, weights = subtopic_columns(given, weights)
    carried = {
        SUBTOPICS: given if as_given else lists,
        INTENT_WEIGHTS: weights,
        DOC: None if docs is None else as_expr(docs, "docs"),
    }
    # With stable ties no statistic reads the label beyond whether the row was retrieved
    # (the sign of its code), so a constant 0 serves, named like the column (the result
    # takes its name): the cleaned lists cost 3-4x the sort in each mention, and even the
    # given list's length 0.2x more than the constant.
    label = lists.list.len()
    name = given.meta.output_name(raise_if_undetermined=False)
    if ties == "stable":
        label = given.list.len() if name is None else pl.lit(0, dtype=pl.Int8).alias(name)
    return Ranking.build(label, by, descending, 0, ties=ties, carried=carried)


def evaluate_on_subtopics(
    bound: Bound,
    subtopics: IntoExpr,
    by: IntoExpr | Sequence[IntoExpr] | None,
    descending: bool | Sequence[bool],
    ties: Ties,
    intent_weights: IntoExpr | None = None,
    docs: IntoExpr | None = None,
) -> pl.Expr:
    """``bound`` over the ranking of a subtopic-list column (see :func:`subtopic_ranking`)."""
    as_given = intent_weights is None and reads_lists_as_given(bound)
    ranking = subtopic_ranking(
        subtopics, by, descending, ties, intent_weights, docs, as_given=as_given
    )
    if as_given and ties != "average" and bound.threshold is None:
        return _on_all_lists(ranking, bound)
    return evaluate_one(ranking, bound)


def _on_all_lists(ranking: Ranking, bound: Bound) -> pl.Expr:
    """A batched measure (:func:`_batched`) applied to every group's ranked list in one call.

    The list :func:`.evaluate_one` builds, given to the batched function
    directly (marked elementwise: polars calls it with the lists of all groups)
    rather than through ``list.agg``, whose round trip (exploding the lists and
    imploding them again) costs half the sort of the lists.
    """
    # Imported here: the batched measures are not needed to import the package.
    from polars_rankmetrics.metrics.diversity_batched import normalised_values

    parts = next(parts for known, parts in _NORMALISED_PARTS if known == bound.statistic)
    vocabulary = ranking.listed_vocabulary()
    _, value, options = parts(vocabulary, bound.no_relevant, **bound.keywords)
    fields = [field for field in (SUBTOPICS, DOC) if field in ranking.fields]

    def compute(lists: pl.Series) -> pl.Series:
        return normalised_values(lists, value, no_relevant=bound.no_relevant, **options)

    return ranking.listed(fields).map_batches(compute, return_dtype=pl.Float64, is_elementwise=True)


def reads_lists_as_given(bound: Bound) -> bool:
    """Whether ``bound``, without intent weights, is batched and cleans the lists itself.

    The cleaning of :func:`.subtopic_columns` costs more than the sort of the
    lists in a ``group_by``; the batched measures (:func:`_batched`) drop the
    nulls and repeats of the lists they read for less.
    """
    batched = tuple(known for known, _ in _NORMALISED_PARTS)
    greedy = bound.keywords.get("ideal", "greedy") == "greedy"
    return bound.statistic in batched and greedy and find_spec("numpy") is not None
