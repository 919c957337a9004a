"""Measure names, as trec_eval, ir_measures and ranx spell them, resolved in one registry.

:func:`parse_measures` turns a name into its output columns, each a measure of
the registry (:mod:`.registry`) with its parameters:

======================  ========================  ===============================
trec_eval               ir_measures / ranx        meaning
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
``num_ret``             ``NumRet``                retrieved rows (summed)
``num_rel``             ``NumRel``                relevant rows, R (summed)
``num_rel_ret``         ``NumRelRet``             relevant retrieved rows (summed)
``set_P``               ``SetP``                  precision of the retrieved set
``set_recall``          ``SetR``                  recall of the retrieved set
``set_F``               ``SetF``                  F of the retrieved set
``iprec_at_recall_0.50``  ``IPrec@0.5``           interpolated precision
``unj_10``                                        unjudged rows in the top 10 over 10
                        ``Judged@10``             judged rows over min(10, retrieved)
                        ``hits@10`` (ranx)        relevant rows in the top 10
                        ``ERR@10``                expected reciprocal rank (gdeval)
                        ``alpha_nDCG@20``         alpha-nDCG (ndeval: ``alpha-nDCG@20``)
                        ``INST(T=3.0)``           C/W/L INST (cwl_eval: ``INST-T=3.0``)
                        ``Compat(p=0.95)``        compatibility
======================  ========================  ===============================

ir_measures' ``rel=`` sets a column's own relevance level (``P(rel=2)@10``), as
ranx's ``-l2`` suffix does (``ndcg@10-l2``); see :mod:`.ir_names` for their whole
grammars. Where two tools give one name different meanings (``recall``,
``bpref``), the bare name is trec_eval's and ranx's is ``recall-l1``.
trec_eval names take trec_eval's parameter syntax: ``P.5,10`` gives the columns
``P_5`` and ``P_10``, ``ndcg.1=3,2=9`` custom gains, ``utility.2,-1,0,0`` its
coefficients; the nicknames ``official``, ``all_trec`` and ``set`` expand to
trec_eval's sets. The names of ndeval, cwl_eval, scikit-learn, torchmetrics and
NTCIREVAL are in :mod:`.peer_names`. :func:`list_measures` lists every measure
and its spellings.

Note that ``AP@10`` means what it means in ir_measures (trec_eval's
``map_cut_10``, denominator R), while :func:`polars_rankmetrics.ap_at_k`
defaults to the denominator ``min(k, R)``.
"""

from __future__ import annotations

import difflib
import re

import polars as pl

from polars_rankmetrics.measures.ir_names import (
    IR_MEASURES,
    RANX,
    parse_ir_measures_name,
    parse_ranx_name,
)
from polars_rankmetrics.measures.peer_names import parse_peer_name, peer_names, peer_spelling
from polars_rankmetrics.measures.registry import MEASURES, Column, Measure
from polars_rankmetrics.measures.trec_names import (
    FAMILIES,
    JUDGEMENT_GROUP_FAMILIES,
    NICKNAMES,
    parse_trec_name,
)

__all__ = ["Column", "Measure", "list_measures", "parse_measure", "parse_measures"]


def _known_names() -> list[str]:
    names = [family.name for family in FAMILIES] + list(NICKNAMES)
    return names + list(IR_MEASURES) + list(RANX) + peer_names()


def _unknown(name: str) -> ValueError:
    base = name.split("@")[0].split("(")[0].split(".")[0]
    close = difflib.get_close_matches(base, _known_names(), n=3, cutoff=0.6)
    close += [known for known in _known_names() if known.lower() == base.lower()]
    hint = f"; did you mean {' or '.join(repr(c) for c in dict.fromkeys(close))}?" if close else ""
    return ValueError(
        f"unknown measure {name!r}{hint} (polars_rankmetrics.list_measures() lists them all)"
    )


def parse_measures(name: str) -> list[Column]:
    """
    Parse one measure name into its output columns; raise ``ValueError`` if unknown.

    trec_eval names may carry parameters (``P.5,10`` is ``P_5`` and ``P_10``) and
    nicknames expand to sets (``all_trec``); ir_measures names give one column.

    Examples
    --------
    >>> from polars_rankmetrics.measures import parse_measures
    >>> [column.name for column in parse_measures("P.10,5")]
    ['P_5', 'P_10']
    >>> [column.name for column in parse_measures("nDCG@10")]
    ['nDCG@10']
    """
    if not isinstance(name, str):
        msg = f"a measure name must be a string, got {name!r}"
        raise ValueError(msg)
    if name in NICKNAMES:
        return [column for member in NICKNAMES[name] for column in parse_measures(member)]
    if re.fullmatch(r"rbp[.@][0-9]+(-l[0-9]+)?", name):  # ranx's, not trec_eval's rbp.p=0.8
        return [parse_ranx_name(name)]  # type: ignore[list-item]
    trec = parse_trec_name(name)
    if trec is not None:
        return trec
    column = parse_ir_measures_name(name) or parse_ranx_name(name) or parse_peer_name(name)
    if column is None:
        raise _unknown(name)
    return [column]


def parse_measure(name: str) -> Column:
    """
    Parse a measure name that gives exactly one column; raise ``ValueError`` otherwise.

    Examples
    --------
    >>> from polars_rankmetrics.measures import parse_measure
    >>> parse_measure("AP@10").name
    'AP@10'
    """
    columns = parse_measures(name)
    if len(columns) != 1:
        names = [column.name for column in columns]
        msg = f"measure {name!r} gives {len(names)} columns {names}; use parse_measures"
        raise ValueError(msg)
    return columns[0]


def _spellings(key: str) -> tuple[str, str, str]:
    """The trec_eval, ir_measures and ranx names of the measure ``key``, comma-separated."""
    trec = [
        family.name
        for family in FAMILIES
        if family.key == key and family.name not in JUDGEMENT_GROUP_FAMILIES
    ]
    ir_measures = [name for name, spelling in IR_MEASURES.items() if spelling.key == key]
    ir_measures += [
        f"{name}({spelling.switch[0]}=...)"
        for name, spelling in IR_MEASURES.items()
        if spelling.switch is not None and spelling.switch[1] == key
    ]
    ranx = [
        name
        for name, metric in RANX.items()
        if any(s is not None and s.key == key for s in (metric.at_k, metric.whole))
    ]
    return ", ".join(trec), ", ".join(ir_measures), ", ".join(ranx)


def list_measures() -> pl.DataFrame:
    """
    Every measure: its canonical name, meaning, summary over queries and spellings.

    The spelling columns list each tool's names for the measure (with
    parameters or a cutoff, as that tool writes them: ``P@10``, ``P_10``,
    ``precision@10``).

    Examples
    --------
    >>> table = rm.list_measures()
    >>> table.filter(table["measure"] == "NumRet").row(0)
    ('NumRet', 'the number of retrieved rows', 'sum', 'num_ret', 'NumRet', '', '')
    >>> table.filter(table["measure"] == "SetP").row(0)[3:]
    ('set_P', 'SetP', 'precision', '')
    >>> table.filter(table["measure"] == "AP_IA").row(0)[3:]
    ('', 'AP_IA, MAP_IA', '', 'MAP-IA')
    """
    rows = [
        (
            measure.key,
            measure.description,
            measure.summary,
            *_spellings(measure.key),
            peer_spelling(measure.key),
        )
        for measure in MEASURES
    ]
    schema = ["measure", "description", "summary", "trec_eval", "ir_measures", "ranx", "other"]
    return pl.DataFrame(rows, schema=schema, orient="row")
