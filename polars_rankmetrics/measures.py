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


def _cutoff(text: str, name: str) -> int:
    k = int(text)
    if k < 1:
        msg = f"measure {name!r}: the cutoff must be a positive int"
        raise ValueError(msg)
    return k


def _builders() -> list[tuple[re.Pattern[str], Callable[[str, re.Match[str]], Statistic]]]:
    def k_of(name: str, match: re.Match[str]) -> int:
        return _cutoff(match.group("k"), name)

    table: list[tuple[str, Callable[[str, re.Match[str]], Statistic]]] = [
        (r"map|AP", lambda n, m: average_precision_statistic),
        (
            r"map_cut[_.](?P<k>\d+)|AP@(?P<k2>\d+)",
            lambda n, m: _ap_cut(_cutoff(m.group("k") or m.group("k2"), n)),
        ),
        (
            r"P[_.@](?P<k>\d+)",
            lambda n, m: lambda r, e, k=k_of(n, m): precision_statistic(r, k),
        ),
        (
            r"(recall[_.]|R@)(?P<k>\d+)",
            lambda n, m: lambda r, e, k=k_of(n, m): recall_statistic(r, k, e),
        ),
        (
            r"ndcg|nDCG",
            lambda n, m: lambda r, e: ndcg_statistic(r, _WHOLE_RANKING, "linear", e),
        ),
        (
            r"(ndcg_cut[_.]|nDCG@)(?P<k>\d+)",
            lambda n, m: lambda r, e, k=k_of(n, m): ndcg_statistic(r, k, "linear", e),
        ),
        (r"recip_rank|RR|MRR", lambda n, m: lambda r, e: reciprocal_rank_statistic(r, None, e)),
        (
            r"(RR|MRR)@(?P<k>\d+)",
            lambda n, m: lambda r, e, k=k_of(n, m): reciprocal_rank_statistic(r, k, e),
        ),
        (r"Rprec|R-prec", lambda n, m: r_precision_statistic),
        (
            r"(success[_.]|Success@)(?P<k>\d+)",
            lambda n, m: lambda r, e, k=k_of(n, m): hit_rate_statistic(r, k),
        ),
    ]
    return [(re.compile(pattern), build) for pattern, build in table]


def _ap_cut(k: int) -> Statistic:
    return lambda ranked, no_relevant: ap_at_k_statistic(ranked, k, "r", no_relevant)


_TABLE = _builders()


def parse_measure(name: str) -> Measure:
    """Parse one measure name; raise ``ValueError`` naming it if it is unknown."""
    for pattern, build in _TABLE:
        match = pattern.fullmatch(name)
        if match:
            return Measure(name, build(name, match))
    msg = f"unknown measure {name!r}; known forms include map, AP@10, P@10, P_10, R@100, nDCG@10, ndcg_cut_10, RR, Rprec, Success@5"
    raise ValueError(msg)
