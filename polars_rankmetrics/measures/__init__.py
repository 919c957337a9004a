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
ranx's ``-l2`` suffix does (``ndcg@10-l2``); see :mod:`.ir_names` and
:mod:`.ranx_names` for their whole grammars. Where two tools give one name
different meanings (``recall``, ``bpref``), the bare name is trec_eval's and
ranx's is ``recall-l1``.
trec_eval names take trec_eval's parameter syntax: ``P.5,10`` gives the columns
``P_5`` and ``P_10``, ``ndcg.1=3,2=9`` custom gains, ``utility.2,-1,0,0`` its
coefficients; the nicknames ``official``, ``all_trec`` and ``set`` expand to
trec_eval's sets. The names of ndeval, cwl_eval, scikit-learn, torchmetrics and
NTCIREVAL are in :mod:`.peer_names`. :func:`list_measures` lists every measure
and its spellings. How a name is resolved (one dialect after another, down to the
registry) is in :mod:`.resolve`; ir_measures' measure objects
(``ir_measures.nDCG@10``) are read as their names (:mod:`.objects`).

Note that ``AP@10`` means what it means in ir_measures (trec_eval's
``map_cut_10``, denominator R), while :func:`polars_rankmetrics.ap_at_k`
defaults to the denominator ``min(k, R)``.
"""

import importlib
from typing import TYPE_CHECKING, Any

from polars_rankmetrics.measures.registry import Column, Measure

if TYPE_CHECKING:
    from polars_rankmetrics.measures.listing import list_measures
    from polars_rankmetrics.measures.resolve import parse_measure, parse_measures

_LAZY = {
    "list_measures": "polars_rankmetrics.measures.listing",
    "parse_measure": "polars_rankmetrics.measures.resolve",
    "parse_measures": "polars_rankmetrics.measures.resolve",
}
"""Imported on first use: the name grammars of ir_measures, ranx and the other peers
cost milliseconds, and ``rankmetrics trec-eval`` reads trec_eval's names only."""


def __getattr__(name: str) -> Any:
    """Import :data:`_LAZY`'s names on first access."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    msg = f"module 'polars_rankmetrics.measures' has no attribute {name!r}"
    raise AttributeError(msg)


__all__ = ["Column", "Measure", "list_measures", "parse_measure", "parse_measures"]
