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
``bpref``               ``Bpref``                 binary preference
``infAP``               ``infAP``                 inferred AP
``num_ret``             ``NumRet``                retrieved rows
``num_rel``             ``NumRel``                relevant rows (R)
``num_rel_ret``         ``NumRelRet``             relevant retrieved rows
``set_P``               ``SetP``                  precision of the retrieved set
``set_recall``          ``SetR``                  recall of the retrieved set
``set_F``               ``SetF``                  F1 of the retrieved set
``iprec_at_recall_0.50``  ``IPrec@0.5``           interpolated precision
``unj_10``              ``Judged@10`` (1 - it)    unjudged fraction of the top 10
======================  ========================  ===============================

Every other trec_eval measure is accepted under its trec_eval name, with
trec_eval's parameter syntax (see :mod:`polars_rankmetrics.trec_measures`):
``P.5,10`` gives the columns ``P_5`` and ``P_10``, ``ndcg.1=3,2=9`` custom
gains, ``utility.2,-1,0,0`` its coefficients. The nicknames ``official``,
``all_trec`` and ``set`` expand to trec_eval's sets.

Note that ``AP@10`` means what it means in ir_measures (trec_eval's
``map_cut_10``, denominator R), while :func:`polars_rankmetrics.ap_at_k`
defaults to the denominator ``min(k, R)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from polars_rankmetrics._measure import Measure, Statistic
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
from polars_rankmetrics.trec_measures import (
    NICKNAMES,
    bpref_statistic,
    interpolated_precision_statistic,
    num_rel_ret_statistic,
    num_rel_statistic,
    num_ret_statistic,
    parse_trec_measure,
    set_f_statistic,
    set_p_statistic,
    set_recall_statistic,
    unjudged_statistic,
)

__all__ = ["Measure", "parse_measure", "parse_measures"]

# The core measures: exact under ties='average', and staged (see Measure).
_CORE: dict[str, bool] = {"averages_ties": True, "staged": True}

# A k large enough to mean "the whole ranking" for the cutoff statistics.
_WHOLE_RANKING = 2**62


def _cutoff(text: str, name: str) -> int:
    k = int(text)
    if k < 1:
        msg = f"measure {name!r}: the cutoff must be a positive int"
        raise ValueError(msg)
    return k


def _judged_fraction(k: int) -> Statistic:
    unjudged = unjudged_statistic(k)
    return lambda ranked, no_relevant: 1.0 - unjudged(ranked, no_relevant)


Builder = Callable[[str, re.Match[str]], Measure]


def _plain(statistic: Statistic, **options: bool) -> Builder:
    return lambda name, match: Measure(name, statistic, **options)  # type: ignore[arg-type]


def _with_k(make: Callable[[int], Statistic], **options: bool) -> Builder:
    def build(name: str, match: re.Match[str]) -> Measure:
        return Measure(name, make(_cutoff(match.group("k"), name)), **options)  # type: ignore[arg-type]

    return build


def _builders() -> list[tuple[re.Pattern[str], Builder]]:
    table: list[tuple[str, Builder]] = [
        (r"AP", _plain(average_precision_statistic, **_CORE)),
        (
            r"AP@(?P<k>\d+)",
            _with_k(lambda k: lambda r, e: ap_at_k_statistic(r, k, "r", e), **_CORE),
        ),
        (
            r"P@(?P<k>\d+)",
            _with_k(lambda k: lambda r, e: precision_statistic(r, k), **_CORE),
        ),
        (
            r"R@(?P<k>\d+)",
            _with_k(lambda k: lambda r, e: recall_statistic(r, k, e), **_CORE),
        ),
        (
            r"nDCG",
            _plain(lambda r, e: ndcg_statistic(r, _WHOLE_RANKING, "linear", e), **_CORE),
        ),
        (
            r"nDCG@(?P<k>\d+)",
            _with_k(lambda k: lambda r, e: ndcg_statistic(r, k, "linear", e), **_CORE),
        ),
        (
            r"RR|MRR",
            _plain(lambda r, e: reciprocal_rank_statistic(r, None, e), **_CORE),
        ),
        (
            r"(RR|MRR)@(?P<k>\d+)",
            _with_k(lambda k: lambda r, e: reciprocal_rank_statistic(r, k, e), **_CORE),
        ),
        (r"R-prec", _plain(r_precision_statistic, **_CORE)),
        (
            r"Success@(?P<k>\d+)",
            _with_k(lambda k: lambda r, e: hit_rate_statistic(r, k), **_CORE),
        ),
        (r"Bpref", _plain(bpref_statistic, judged=True)),
        (r"NumRet", _plain(num_ret_statistic, averages_ties=True)),
        (r"NumRel", _plain(num_rel_statistic, averages_ties=True)),
        (r"NumRelRet", _plain(num_rel_ret_statistic, averages_ties=True)),
        (r"SetP", _plain(set_p_statistic, averages_ties=True)),
        (r"SetR", _plain(set_recall_statistic, averages_ties=True)),
        (r"SetF", _plain(set_f_statistic(1.0), averages_ties=True)),
        (r"Judged@(?P<k>\d+)", _with_k(_judged_fraction, judged=True)),
        (
            r"IPrec@(?P<level>\d*\.?\d+)",
            lambda name, match: Measure(
                name, interpolated_precision_statistic(_level(match.group("level"), name))
            ),
        ),
    ]
    return [(re.compile(pattern), build) for pattern, build in table]


def _level(text: str, name: str) -> float:
    level = float(text)
    if not 0.0 <= level <= 1.0:
        msg = f"measure {name!r}: the recall level must be in [0, 1]"
        raise ValueError(msg)
    return level


_TABLE = _builders()

_KNOWN = (
    "known forms include map, AP, AP@10, P@10, P_10, P.5,10, R@100, recall_100, nDCG@10, "
    "ndcg_cut_10, ndcg.1=3,2=9, RR, recip_rank, Rprec, Success@5, success_5, bpref, infAP, "
    "iprec_at_recall_0.10, Rprec_mult_0.20, utility, relstring, unj_10, and the sets "
    "official, all_trec, set"
)


def parse_measures(name: str) -> list[Measure]:
    """
    Parse one measure name into its output columns; raise ``ValueError`` if unknown.

    trec_eval names may carry parameters (``P.5,10`` is ``P_5`` and ``P_10``) and
    nicknames expand to sets (``all_trec``); ir_measures names give one column.

    Examples
    --------
    >>> from polars_rankmetrics.measures import parse_measures
    >>> [m.name for m in parse_measures("P.10,5")]
    ['P_5', 'P_10']
    >>> [m.name for m in parse_measures("nDCG@10")]
    ['nDCG@10']
    """
    if not isinstance(name, str):
        msg = f"a measure name must be a string, got {name!r}"
        raise TypeError(msg)
    if name in NICKNAMES:
        return [measure for member in NICKNAMES[name] for measure in parse_measures(member)]
    trec = parse_trec_measure(name)
    if trec is not None:
        return trec
    for pattern, build in _TABLE:
        match = pattern.fullmatch(name)
        if match:
            return [build(name, match)]
    msg = f"unknown measure {name!r}; {_KNOWN}"
    raise ValueError(msg)


def parse_measure(name: str) -> Measure:
    """
    Parse a measure name that gives exactly one column; raise ``ValueError`` otherwise.

    Examples
    --------
    >>> from polars_rankmetrics.measures import parse_measure
    >>> parse_measure("AP@10").name
    'AP@10'
    """
    measures = parse_measures(name)
    if len(measures) != 1:
        names = [measure.name for measure in measures]
        msg = f"measure {name!r} gives {len(names)} columns {names}; use parse_measures"
        raise ValueError(msg)
    return measures[0]


def needs_judged(measures: list[Measure]) -> bool:
    """Whether any of ``measures`` needs the ``{code, raw}`` ranking."""
    return any(measure.judged for measure in measures)
