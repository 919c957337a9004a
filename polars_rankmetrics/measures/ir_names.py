"""ir_measures' spellings, ``Name(param=value,...)@cutoff``: the ir_measures dialect.

An ir_measures name is a measure, optional parameters in parentheses (Python
literals: ``rel=2``, ``gains={0: 0, 1: 1}``) and an optional cutoff after ``@``
(``P(rel=2)@10``); ``cutoff=10`` is the same as ``@10``. ``rel`` is the lowest
relevant label, a column's own relevance level; ``judged_only=True`` ranks only
the judged documents. Each name means what ir_measures computes with it, down
to the order in which its provider breaks tied scores (:class:`.grammar.Spelling`).
The grammar is :mod:`.grammar`'s; this module holds ir_measures' table of names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from polars_rankmetrics.measures.grammar import GRAMMAR, Spelling, read_level, read_name
from polars_rankmetrics.measures.registry import Column


def _ranked(key: str, **options: Any) -> Spelling:
    """A measure ir_measures computes with pytrec_eval: it takes ``rel`` and ``judged_only``."""
    return Spelling(key, rel=True, judged_only=True, **options)


_ALPHA = {"alpha": "alpha"}
_ALPHA_BETA = {"alpha": "alpha", "beta": "beta"}
_CWL = {"T": "target", "max_rel": "max_rel", "min_rel": "min_rel"}


def _diversity(key: str, **options: Any) -> Spelling:
    """A measure ir_measures computes with pyndeval: tied scores by document id ascending.

    ``rel`` is pyndeval's relevance level: a subtopic judgement at or above it
    is relevant (``evaluate()`` builds the subtopic lists at each level asked
    for; without ``rel``, at its ``relevance_level``). ``judged_only`` is not
    taken: ir_measures 0.4.3's pyndeval provider cannot compute it (it indexes
    the run, a generator).
    """
    return Spelling(key, order="doc_ascending", rel=True, **options)


IR_MEASURES: dict[str, Spelling] = {
    "AP": _ranked("AP", cutoff="k"),
    "P": _ranked("P", cutoff="k", cutoff_required=True),
    "R": _ranked("R", cutoff="k", cutoff_required=True),
    "nDCG": Spelling(
        "nDCG",
        cutoff="k",
        params={"dcg": "gain", "gains": "gains"},
        values={"dcg": {"log2": "linear", "exp-log2": "exponential"}},
        judged_only=True,
    ),
    "RR": _ranked("RR", cutoff="k", cutoff_order="doc_ascending"),
    "Rprec": _ranked("Rprec"),
    "Success": _ranked("Success", cutoff="k", cutoff_required=True),
    "Bpref": Spelling("Bpref", rel=True),
    "infAP": Spelling("infAP", rel=True),
    "NumQ": Spelling("NumQ"),
    "NumRet": Spelling("NumRet", switch=("rel", "NumRelRet")),
    "NumRel": Spelling("NumRel", rel=True),
    "NumRelRet": Spelling("NumRelRet", rel=True),
    "SetP": _ranked("SetP", switch=("relative", "set_relative_P")),
    "SetR": Spelling("SetR", rel=True),
    "SetF": _ranked("SetF", params={"beta": "beta"}),
    "Judged": Spelling("Judged", cutoff="k", order="doc_ascending"),
    "IPrec": _ranked(
        "IPrec",
        cutoff="level",
        cutoff_required=True,
        read_cutoff=read_level,
        params={"recall": "level"},
        fixed={"trec_version": "9"},
    ),
    # ir_measures' names for trec_eval's set measures.
    "SetRelP": _ranked("set_relative_P"),
    "SetAP": _ranked("set_map"),
    # cwl_eval's RBP: binary gains at level `rel` (required), the first 1000
    # ranks, tied scores in the run's order.
    "RBP": Spelling(
        "RBP",
        params={"p": "p"},
        fixed={"gain": "binary", "k": 1000, "p": 0.8},
        rel=True,
        rel_required=True,
        order="input",
    ),
    # gdeval.pl's ERR (ir_measures has no provider for ERR without a cutoff).
    "ERR": Spelling("ERR", cutoff="k", cutoff_required=True),
    # ndeval's diversity measures, through pyndeval (ties by document id ascending);
    # the subtopic qrels are binarised at evaluate()'s relevance_level.
    "alpha_DCG": _diversity("alpha_DCG", cutoff="k", cutoff_required=True, params=_ALPHA),
    "alpha_nDCG": _diversity("alpha_nDCG", cutoff="k", cutoff_required=True, params=_ALPHA),
    "ERR_IA": _diversity("ERR_IA", cutoff="k", cutoff_required=True, params=_ALPHA),
    "nERR_IA": _diversity("nERR_IA", cutoff="k", cutoff_required=True, params=_ALPHA),
    "NRBP": _diversity("NRBP", params=_ALPHA_BETA),
    "nNRBP": _diversity("nNRBP", params=_ALPHA_BETA),
    "P_IA": _diversity("P_IA", cutoff="k", cutoff_required=True),
    "StRecall": _diversity("StRecall", cutoff="k", cutoff_required=True),
    "AP_IA": _diversity("AP_IA"),
    # cwl_eval's user models (labels scaled by min_rel and max_rel; ties in input order).
    "INST": Spelling("INST", params=_CWL, order="input"),
    "INSQ": Spelling("INSQ", params=_CWL, order="input"),
    "BPM": Spelling("BPM", cutoff="budget", cutoff_required=True, params=_CWL, order="input"),
    "Compat": Spelling(
        "Compat", params={"p": "p", "normalize": "normalize"}, order="doc_ascending"
    ),
}
"""ir_measures' names."""

IR_ALIASES = {
    "MAP": "AP",
    "Precision": "P",
    "Recall": "R",
    "NDCG": "nDCG",
    "MRR": "RR",
    "RPrec": "Rprec",
    "BPref": "Bpref",
    "MAP_IA": "AP_IA",
}
"""ir_measures' aliases: the same measure under another name."""

IR_MEASURES.update({alias: IR_MEASURES[name] for alias, name in IR_ALIASES.items()})


def parse_ir_measures_name(name: str, table: Mapping[str, Spelling] = IR_MEASURES) -> Column | None:
    """The column of an ir_measures name (``P(rel=2)@10``), or None if it is not one.

    ``table`` holds the spellings (ir_measures' by default).
    """
    match = GRAMMAR.fullmatch(name)
    if match is None or match["name"] not in table:
        return None
    return read_name(name, table[match["name"]], match)
