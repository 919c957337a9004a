"""The names of ndeval, cwl_eval, scikit-learn, torchmetrics and NTCIREVAL for registry measures.

- ndeval (the TREC Web diversity evaluation): its output columns,
  ``alpha-nDCG@20``, ``ERR-IA@10``, ``nERR-IA@20``, ``alpha-DCG@5``, ``NRBP``,
  ``nNRBP``, ``MAP-IA``, ``P-IA@10``, ``strec@10``; ndeval's own cutoffs are 5, 10
  and 20, any cutoff is accepted here.
- cwl_eval: the names it prints, ``INST-T=1.0``, ``INSQ-T=1.0``,
  ``BPM-Static-T=1.0-K=10``, ``U-L@1000``, ``TBG-H@224``; gains are the labels
  scaled as ir_measures scales them, with ``max_rel=1`` (cwl_eval reads gains in
  [0, 1] from its qrels).
- scikit-learn: its scorers ``roc_auc`` and ``average_precision``, per query
  over the retrieved (scored) rows.
- torchmetrics: ``retrieval_fall_out@k`` (``top_k``; 0 for a query without a
  non-relevant row, as its function gives) and
  ``RetrievalRecallAtFixedPrecision(min_precision=0.5)@k`` (``max_k``; the
  recall per query; torchmetrics' class averages the curves of many queries
  before taking the maximum, a summary this library does not reproduce).
- NTCIREVAL: ``nERR@k``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from polars_rankmetrics.measures.grammar import GRAMMAR, Spelling, read_level, read_name
from polars_rankmetrics.measures.registry import BY_KEY, Column

_ALPHA = {"alpha": "alpha"}
_ALPHA_BETA = {"alpha": "alpha", "beta": "beta"}


def _ndeval(key: str, **options: Any) -> Spelling:
    """An ndeval column, with pyndeval's order of tied scores: document id ascending."""
    return Spelling(key, order="doc_ascending", **options)


NDEVAL: dict[str, Spelling] = {
    "alpha-DCG": _ndeval("alpha_DCG", cutoff="k", cutoff_required=True, params=_ALPHA),
    "alpha-nDCG": _ndeval("alpha_nDCG", cutoff="k", cutoff_required=True, params=_ALPHA),
    "ERR-IA": _ndeval("ERR_IA", cutoff="k", cutoff_required=True, params=_ALPHA),
    "nERR-IA": _ndeval("nERR_IA", cutoff="k", cutoff_required=True, params=_ALPHA),
    "P-IA": _ndeval("P_IA", cutoff="k", cutoff_required=True),
    "strec": _ndeval("StRecall", cutoff="k", cutoff_required=True),
    "MAP-IA": _ndeval("AP_IA"),
    "NRBP": _ndeval("NRBP", params=_ALPHA_BETA),
    "nNRBP": _ndeval("nNRBP", params=_ALPHA_BETA),
}
"""ndeval's column names (ndeval's ``-traditional`` breaks ties by document id
descending, ``evaluate(..., tie_break="doc_descending")``)."""


CWL_EVAL: dict[str, Spelling] = {
    "U-L": Spelling(
        "U", cutoff="length", cutoff_required=True, read_cutoff=read_level, order="input"
    ),
    "TBG-H": Spelling(
        "TBG", cutoff="half_life", cutoff_required=True, read_cutoff=read_level, order="input"
    ),
}
"""cwl_eval's names of the form ``NAME@value``; the ``NAME-T=value`` ones are below."""

_CWL_PATTERNS: dict[str, tuple[re.Pattern[str], tuple[str, ...]]] = {
    "INST": (re.compile(r"INST-T=([0-9]*\.?[0-9]+)"), ("target",)),
    "INSQ": (re.compile(r"INSQ-T=([0-9]*\.?[0-9]+)"), ("target",)),
    "BPM": (
        re.compile(r"BPM-Static-T=([0-9]*\.?[0-9]+)-K=([0-9]*\.?[0-9]+)"),
        ("target", "budget"),
    ),
}

SKLEARN: dict[str, Spelling] = {
    "roc_auc": Spelling("roc_auc"),
    "average_precision": Spelling("average_precision"),
}
"""scikit-learn's scorer names."""

TORCHMETRICS: dict[str, Spelling] = {
    "retrieval_fall_out": Spelling("FallOut", cutoff="k"),
    "RetrievalRecallAtFixedPrecision": Spelling(
        "RecallAtFixedPrecision",
        cutoff="max_k",
        params={"min_precision": "min_precision", "adaptive_k": "adaptive_k"},
    ),
}
"""torchmetrics' names."""

NTCIREVAL: dict[str, Spelling] = {"nERR": Spelling("nERR", cutoff="k", cutoff_required=True)}
"""NTCIREVAL's names."""

TABLES: tuple[Mapping[str, Spelling], ...] = (NDEVAL, CWL_EVAL, SKLEARN, TORCHMETRICS, NTCIREVAL)
"""Every table of this module, in the order names are looked up."""


def parse_peer_name(name: str) -> Column | None:
    """The column of a name of ndeval, cwl_eval, scikit-learn, torchmetrics or NTCIREVAL."""
    for key, (pattern, params) in _CWL_PATTERNS.items():
        match = pattern.fullmatch(name)
        if match is not None:
            values = zip(params, map(float, match.groups()), strict=True)
            return Column(name, BY_KEY[key], tuple(values), order="input")
    match = GRAMMAR.fullmatch(name)
    if match is None:
        return None
    for table in TABLES:
        spelling = table.get(match["name"])
        if spelling is not None:
            return read_name(name, spelling, match)
    return None


PEER_NAMES = (*(name for table in TABLES for name in table), "INST-T", "INSQ-T", "BPM-Static")
"""Every name this module knows, for suggestions."""


def peer_names() -> list[str]:
    """Every name this module knows, for suggestions."""
    return list(PEER_NAMES)


def peer_spelling(key: str) -> str:
    """The names of the other tools for the registry key ``key``, comma-separated."""
    names = [name for table in TABLES for name, spelling in table.items() if spelling.key == key]
    names += {"INST": ["INST-T=1.0"], "INSQ": ["INSQ-T=1.0"], "BPM": ["BPM-Static-T=1.0-K=10"]}.get(
        key, []
    )
    return ", ".join(names)
