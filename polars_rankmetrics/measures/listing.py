"""Every measure and its spellings in each tool: :func:`list_measures`."""

from __future__ import annotations

import polars as pl

from polars_rankmetrics.measures.ir_names import IR_MEASURES
from polars_rankmetrics.measures.peer_names import peer_spelling
from polars_rankmetrics.measures.ranx_names import RANX
from polars_rankmetrics.measures.registry import MEASURES
from polars_rankmetrics.measures.trec_names import FAMILIES, JUDGEMENT_GROUP_FAMILIES


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
