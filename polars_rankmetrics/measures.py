"""Measure names, as trec_eval and ir_measures spell them, parsed into statistics.

A measure is a name plus a function that builds its statistic over one ranked
list (see :class:`polars_rankmetrics._ranking.Ranked`). :func:`parse_measure`
accepts both spellings:

======================  ========================  ===============================
trec_eval               ir_measures               meaning
======================  ========================  ===============================
``map``                 ``AP``                    average precision, denominator R
``map_cut_10``          ``AP@10``                 AP@10 with denominator R
``P_10``, ``P.10``      ``P@10``                  precision at 10
``recall_100``          ``R@100``                 recall at 100
``ndcg``                ``nDCG``                  nDCG over the whole ranking
``ndcg_cut_10``         ``nDCG@10``               nDCG at 10, linear gain
``recip_rank``          ``RR``, ``RR@10``         reciprocal rank (at 10)
``Rprec``               ``Rprec``                 R-precision
``success_5``           ``Success@5``             hit rate at 5
======================  ========================  ===============================

Note that ``AP@10`` means what it means in ir_measures (trec_eval's
``map_cut_10``, denominator R), while :func:`polars_rankmetrics.ap_at_k`
defaults to the denominator ``min(k, R)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from polars_rankmetrics._ranking import NoRelevant, Ranked
from polars_rankmetrics.average_precision import (
    ap_at_k_statistic,
    average_precision_statistic,
)
from polars_rankmetrics.dcg import ndcg_statistic
from polars_rankmetrics.precision_recall import (
    hit_rate_statistic,
    precision_statistic,
    r_precision_statistic,
    recall_statistic,
)
from polars_rankmetrics.reciprocal_rank import reciprocal_rank_statistic

Statistic = Callable[[Ranked, NoRelevant], pl.Expr]

# A k large enough to mean "the whole ranking" for the cutoff statistics.
_WHOLE_RANKING = 2**62


@dataclass(frozen=True)
class Measure:
    """A parsed measure: its name as given, and how to compute it on a ranking."""

    name: str
    statistic: Statistic


def _plain(statistic: Statistic) -> Callable[[int | None], Statistic]:
    return lambda k: statistic


def _precision(k: int | None) -> Statistic:
    assert k is not None
    return lambda ranked, no_relevant: precision_statistic(ranked, k)


def _recall(k: int | None) -> Statistic:
    assert k is not None
    return lambda ranked, no_relevant: recall_statistic(ranked, k, no_relevant)


def _ap_cut(k: int | None) -> Statistic:
    assert k is not None
    return lambda ranked, no_relevant: ap_at_k_statistic(ranked, k, "r", no_relevant)


def _ndcg(k: int | None) -> Statistic:
    cutoff = _WHOLE_RANKING if k is None else k
    return lambda ranked, no_relevant: ndcg_statistic(ranked, cutoff, "linear", no_relevant)


def _reciprocal_rank(k: int | None) -> Statistic:
    return lambda ranked, no_relevant: reciprocal_rank_statistic(ranked, k, no_relevant)


def _success(k: int | None) -> Statistic:
    assert k is not None
    return lambda ranked, no_relevant: hit_rate_statistic(ranked, k)


# (pattern, factory): a pattern's optional group `k` is the cutoff given to the factory.
_TABLE: list[tuple[re.Pattern[str], Callable[[int | None], Statistic]]] = [
    (re.compile(pattern), factory)
    for pattern, factory in [
        (r"map|AP", _plain(average_precision_statistic)),
        (r"(map_cut[_.]|AP@)(?P<k>\d+)", _ap_cut),
        (r"P[_.@](?P<k>\d+)", _precision),
        (r"(recall[_.]|R@)(?P<k>\d+)", _recall),
        (r"ndcg|nDCG", _ndcg),
        (r"(ndcg_cut[_.]|nDCG@)(?P<k>\d+)", _ndcg),
        (r"recip_rank|RR|MRR", _reciprocal_rank),
        (r"(RR|MRR)@(?P<k>\d+)", _reciprocal_rank),
        (r"Rprec|R-prec", _plain(r_precision_statistic)),
        (r"(success[_.]|Success@)(?P<k>\d+)", _success),
    ]
]


def parse_measure(name: str) -> Measure:
    """Parse one measure name; raise ``ValueError`` naming it if it is unknown."""
    for pattern, factory in _TABLE:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        k = match.groupdict().get("k")
        if k is not None and int(k) < 1:
            msg = f"measure {name!r}: the cutoff must be a positive int"
            raise ValueError(msg)
        return Measure(name, factory(None if k is None else int(k)))
    msg = (
        f"unknown measure {name!r}; known forms include map, AP@10, P@10, P_10, "
        "R@100, nDCG@10, ndcg_cut_10, RR, Rprec, Success@5"
    )
    raise ValueError(msg)
