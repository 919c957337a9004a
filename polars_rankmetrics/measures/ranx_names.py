"""ranx's spellings, ``name@k-lN``: the ranx dialect.

A ranx name is lower case, ``name``, ``name@k`` or ``rbp.p``, with an optional
relevance level suffix ``-lN`` (``ndcg@10-l2``, ``map-l2``); without ``@k`` a
ranx measure reads the whole run (``precision`` is the precision of the
retrieved set).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from polars_rankmetrics._validate import MAX_CUTOFF
from polars_rankmetrics.measures.grammar import Spelling, given_column
from polars_rankmetrics.measures.registry import Column


@dataclass(frozen=True)
class RanxName:
    """A ranx metric: its measure with ``@k`` and without (the whole run)."""

    at_k: Spelling | None
    whole: Spelling | None


def _ranx(key: str, whole: str | None = None, **fixed: Any) -> RanxName:
    """A ranx metric: ``@k`` sets ``k`` of ``key``; no k means ``whole`` (or ``key``, all ranks)."""
    at_k = Spelling(key, cutoff="k", cutoff_required=True, fixed=fixed)
    if whole is None:
        return RanxName(at_k, Spelling(key, fixed={**fixed, "k": MAX_CUTOFF}))
    return RanxName(at_k, Spelling(whole, fixed=fixed if whole == key else {}))


RANX: dict[str, RanxName] = {
    "hits": _ranx("hits"),
    "hit_rate": _ranx("Success"),
    "precision": _ranx("P", "SetP"),
    "recall": _ranx("R", "SetR"),
    "f1": _ranx("f1", "SetF"),
    "r-precision": RanxName(None, Spelling("Rprec")),
    "mrr": _ranx("RR", "RR"),
    "map": _ranx("AP", "AP"),
    "dcg": _ranx("dcg_cut", gain="linear", relevant_only=True),
    "dcg_burges": _ranx("dcg_cut", gain="exponential", relevant_only=True),
    "ndcg": _ranx("nDCG", "nDCG", relevant_only=True),
    "ndcg_burges": _ranx("nDCG", "nDCG", gain="exponential", relevant_only=True),
    "bpref": RanxName(None, Spelling("Bpref", fixed={"negatives": "nonrelevant"})),
    "rbp": RanxName(None, Spelling("RBP", fixed={"gain": "label"})),
}

RANX_GRAMMAR = re.compile(
    r"(?P<name>[a-z][a-z0-9_\-]*?)(?:@(?P<cutoff>[0-9]+)|\.(?P<p>[0-9]+))?(?:-l(?P<level>[0-9]+))?"
)


def parse_ranx_name(name: str) -> Column | None:
    """The column of a ranx name (``ndcg@10``, ``map-l2``, ``rbp.95``), or None."""
    match = RANX_GRAMMAR.fullmatch(name)
    if match is None or match["name"] not in RANX:
        return None
    metric = RANX[match["name"]]
    if match["name"] == "rbp":
        # ranx reads the persistence after a dot, or after `@` (rbp@8 is p = 0.8).
        digits = match["p"] or match["cutoff"]
        if digits is None:
            msg = f"measure {name!r}: ranx's rbp needs its persistence, as in rbp.95"
            raise ValueError(msg)
        spelling, given = metric.whole, {"p": float("0." + digits)}
    elif match["p"] is not None:
        return None
    elif match["cutoff"] is not None:
        spelling, given = metric.at_k, {"k": int(match["cutoff"])}
        if spelling is None:
            msg = f"measure {name!r}: ranx's {match['name']} takes no cutoff"
            raise ValueError(msg)
    else:
        spelling, given = metric.whole, {}
    assert spelling is not None
    level = None if match["level"] is None else int(match["level"])
    return given_column(name, spelling, given, level)
