"""The engine's entry point: every statistic over each group's ranking, by one sort.

:func:`evaluate` (several statistics, one struct) and :func:`evaluate_one` (one
value) are the only ways the metric functions, :func:`polars_rankmetrics.metrics`,
``evaluate()`` and Spark compute statistics. Here, and only here, the path is
chosen:

1. ``ties='average'``: statistics without an exact tie-averaged form are
   refused, naming them; the others read the tie-annotated ``{code, score,
   ...}`` list (:mod:`.ties`), each with ``list.agg``;
2. a statistic reads fields (raw labels for bpref, infAP, unj, custom gains;
   the score for AUC; subtopics for the diversity measures; see
   :data:`.ranked.FIELDS`): it reads the ``{code, field, ...}`` list, with
   ``list.agg``, and the statistics that read no field take the fast paths of 3
   beside it; a statistic that reads only the judged rows (bpref) reads a list
   of those alone; a field the ranking cannot give is refused, naming the
   statistic and what it needs;
3. otherwise the fast paths of :mod:`.staged`: one statistic that reads nothing
   beyond its cutoff ranks only the top k rows; any other set shares its
   per-position quantities and per-list aggregates.

Every path gives the values of :func:`plain`, the reference path (one sorted
list, each statistic computed on it from scratch), bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import polars as pl

from polars_rankmetrics.engine.ranked import FIELDS, Ranked
from polars_rankmetrics.engine.ranking import Ranking
from polars_rankmetrics.engine.staged import (
    Usage,
    probe,
    staged_parts,
    staged_struct,
)
from polars_rankmetrics.engine.statistic import Bound
from polars_rankmetrics.engine.top import staged_value, top_value

_LISTED = "_rankmetrics_listed"
_PLAIN = "_rankmetrics_plain"
_STAGED = "_rankmetrics_staged"
_JUDGED = "_rankmetrics_judged_rows"

FAST_PATHS = True
"""Whether :func:`evaluate` and :func:`evaluate_one` may take the fast paths.

The tests turn it off to build the same expressions by :func:`plain` and
compare the two bit for bit.
"""


def _check(ranking: Ranking, statistics: Sequence[Bound], usage: Usage) -> None:
    """Refuse what no path can compute correctly, saying which contract fails."""
    names = [bound.name for bound in statistics]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        msg = f"`measures` give the same output column more than once: {repeated}"
        raise ValueError(msg)
    for bound, fields in zip(statistics, usage.fields, strict=True):
        missing = sorted(fields - ranking.fields)
        if missing:
            needs = "; ".join(FIELDS[name] for name in missing)
            msg = f"{bound.name} needs {needs}"
            raise ValueError(msg)
    if ranking.ties != "average":
        return
    refused = [bound.name for bound in statistics if not bound.exact_average]
    if refused:
        msg = (
            f"`ties='average'` has no exact expected value for {', '.join(refused)}; "
            "use ties='stable', 'optimistic' or 'pessimistic' for "
            f"{'it' if len(refused) == 1 else 'these'}"
        )
        raise ValueError(msg)


def _listed(ranking: Ranking, usage: Usage) -> tuple[pl.Expr, Ranked]:
    """The list the plain path reads, and the vocabulary over it."""
    if ranking.ties == "average" or usage.read_fields:
        return ranking.listed(usage.read_fields), ranking.listed_vocabulary()
    return ranking.ranked(), ranking.vocabulary()


def _own(vocabulary: Ranked, bound: Bound) -> Ranked:
    """``vocabulary`` with the statistic's own threshold, if it has one."""
    if bound.threshold is None:
        return vocabulary
    return replace(vocabulary, threshold=bound.threshold)


def _probe(ranking: Ranking, statistics: Sequence[Bound]) -> Usage:
    return probe(statistics, ranking.threshold, ranking.fields)


def _plain(ranking: Ranking, statistics: Sequence[Bound], usage: Usage) -> pl.Expr:
    listed, vocabulary = _listed(ranking, usage)
    fields = [bound.build(_own(vocabulary, bound)).alias(bound.name) for bound in statistics]
    return listed.list.agg(pl.struct(fields))


def plain(ranking: Ranking, statistics: Sequence[Bound]) -> pl.Expr:
    """The reference path: each statistic computed whole on one sorted list, as a struct."""
    usage = _probe(ranking, statistics)
    _check(ranking, statistics, usage)
    return _plain(ranking, statistics, usage)


def evaluate(ranking: Ranking, statistics: Sequence[Bound]) -> pl.Expr:
    """Every statistic over each group's ranking, as a struct with one field each.

    One sort per group serves them all. The fields are named by the statistics'
    names and come in their order.
    """
    usage = _probe(ranking, statistics)
    _check(ranking, statistics, usage)
    if ranking.ties == "average" or not FAST_PATHS:
        return _plain(ranking, statistics, usage)
    if usage.read_fields:
        return _split(ranking, statistics, usage)
    return staged_struct(ranking, statistics, usage)


def _on_judged_rows(ranking: Ranking, bound: Bound) -> bool:
    """Whether ``bound`` may read a list of the labelled rows only (``Statistic.judged_rows``).

    Only where no label of 0 is relevant: an unlabelled row's label reads as 0.
    """
    threshold = bound.threshold or ranking.threshold
    admits_zero = threshold.value < 0 or (threshold.value == 0 and threshold.inclusive)
    return bound.statistic.judged_rows and ranking.ties != "average" and not admits_zero


def _split(ranking: Ranking, statistics: Sequence[Bound], usage: Usage) -> pl.Expr:
    """The statistics that read fields on lists of fields, the others staged.

    One statistic that reads a field (bpref's raw labels, in trec_eval's default
    measures) would otherwise put every statistic on the list of fields, each
    computed whole. A statistic that reads only the labelled rows (bpref: a few
    dozen judged rows per query, see :meth:`.Ranking.labelled`) reads a list of
    those alone, sorted on its own; the others that read fields read the list of
    fields, sorted once, and the staged part reads its codes (the values of
    :meth:`.Ranking.ranked`), or sorts its own list where no other reads fields.
    The parts are structs of one struct, read once by ``struct.eval`` (polars
    shares no subexpression, so reading each field of a struct expression would
    compute it again), then unnested into one flat struct that the statistics
    read by name: polars copies the type of the struct a field is read from at
    each read, so a read through the struct of both parts costs about twice a
    flat one (``-m all_trec``: 860 reads, 35 ms of planning). The fields come in
    the order of ``statistics``.
    """
    pairs = list(zip(statistics, usage.fields, strict=True))
    judged = [
        (bound, fields) for bound, fields in pairs if fields and _on_judged_rows(ranking, bound)
    ]
    alone = {id(bound) for bound, _ in judged}
    readers = [(bound, fields) for bound, fields in pairs if fields and id(bound) not in alone]
    others = [bound for bound, fields in pairs if not fields]
    if not others and readers:
        return _plain(ranking, statistics, usage)
    vocabulary = ranking.listed_vocabulary()

    def built(bounds: Sequence[tuple[Bound, frozenset[str]]]) -> pl.Expr:
        return pl.struct(
            [bound.build(_own(vocabulary, bound)).alias(bound.name) for bound, _ in bounds]
        )

    parts: list[pl.Expr] = []
    if judged:
        read = frozenset().union(*(fields for _, fields in judged))
        part = ranking.labelled(read).list.agg(built(judged))
        if not others:
            return part
        parts.append(part.alias(_JUDGED))
    others_usage = _probe(ranking, others)
    if readers:
        listed = pl.field(_LISTED)
        plain_part = listed.list.agg(built(readers))
        codes = listed.list.eval(pl.element().struct[0])
        aggregates, staged = staged_parts(ranking, others, others_usage, codes)
        # Steps, none nested: polars reads a `pl.field` inside the input of a
        # nested `struct.eval` against the inner struct.
        read = frozenset().union(*(fields for _, fields in readers))
        sorted_once = pl.struct(ranking.listed(read).alias(_LISTED), *parts)
        kept = [pl.field(_JUDGED)] if judged else []
        both = sorted_once.struct.eval(plain_part.alias(_PLAIN), aggregates.alias(_STAGED), *kept)
        unnested = [_PLAIN, _STAGED, *([_JUDGED] if judged else [])]
    else:
        aggregates, staged = staged_parts(ranking, others, others_usage)
        both = pl.struct(*parts, aggregates.alias(_STAGED))
        unnested = [_JUDGED, _STAGED]
    flat = both.struct.eval(*(pl.field(name).struct.unnest() for name in unnested))
    values = dict(zip([bound.name for bound in others], staged, strict=True))
    combined = flat.struct.eval(
        [values.get(bound.name, pl.field(bound.name)) for bound in statistics]
    )
    name = ranking.ranked().meta.output_name(raise_if_undetermined=False)
    return combined if name is None else combined.alias(name)  # the name of either path


def evaluate_one(ranking: Ranking, bound: Bound) -> pl.Expr:
    """One statistic over each group's ranking, named like the relevance column."""
    usage = _probe(ranking, [bound])
    _check(ranking, [bound], usage)
    fast = FAST_PATHS and usage.staged[0] and not usage.read_fields
    if ranking.ties == "average" or not fast:
        listed, vocabulary = _listed(ranking, usage)
        if FAST_PATHS and usage.read_fields and _on_judged_rows(ranking, bound):
            listed = ranking.labelled(usage.read_fields)
        return listed.list.agg(bound.build(_own(vocabulary, bound)))
    k = bound.top_k
    if k is not None and ranking.by:
        return top_value(ranking, bound, k, usage)
    return staged_value(ranking, bound, usage)
