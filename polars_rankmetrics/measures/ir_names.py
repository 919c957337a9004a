"""ir_measures' spellings, ``Name(param=value,...)@cutoff``, and ranx's.

An ir_measures name is a measure, optional parameters in parentheses (Python
literals: ``rel=2``, ``gains={0: 0, 1: 1}``) and an optional cutoff after ``@``
(``P(rel=2)@10``). ``rel`` is the lowest relevant label, a column's own
relevance level. ranx's names (``hits@10``) follow the same grammar without
parentheses.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from polars_rankmetrics._validate import check_number
from polars_rankmetrics.engine import Threshold
from polars_rankmetrics.measures.registry import BY_KEY, Column


def _digits(text: str, pattern: str, read: Callable[[str], Any]) -> Any:
    """``read(text)`` if ``text`` is ASCII digits of ``pattern`` (``int`` reads ``'５'`` too)."""
    if not re.fullmatch(pattern, text):
        msg = f"{text!r} is not a number"
        raise ValueError(msg)
    return read(text)


def _integer(text: str) -> int:
    return int(_digits(text, r"[0-9]+", int))


def _level(text: str) -> float:
    return float(_digits(text, r"[0-9]*\.?[0-9]+", float))


@dataclass(frozen=True)
class Spelling:
    """A tool's name for a registry measure, and what its parameters set.

    ``cutoff`` is the registry parameter that ``@value`` sets (None: no cutoff);
    ``params`` maps the tool's parameter names to the registry's; ``rel`` says
    whether it takes ``rel=`` (a relevance level for this column alone).
    """

    key: str
    cutoff: str | None = None
    cutoff_required: bool = False
    params: Mapping[str, str] = field(default_factory=dict)
    rel: bool = False
    read_cutoff: Callable[[str], Any] = _integer


IR_MEASURES: dict[str, Spelling] = {
    "AP": Spelling("AP", cutoff="k", rel=True),
    "P": Spelling("P", cutoff="k", cutoff_required=True, rel=True),
    "R": Spelling("R", cutoff="k", cutoff_required=True, rel=True),
    "nDCG": Spelling("nDCG", cutoff="k"),
    "RR": Spelling("RR", cutoff="k", rel=True),
    "Rprec": Spelling("Rprec", rel=True),
    "Success": Spelling("Success", cutoff="k", cutoff_required=True, rel=True),
    "Bpref": Spelling("Bpref", rel=True),
    "infAP": Spelling("infAP", rel=True),
    "NumQ": Spelling("NumQ"),
    "NumRet": Spelling("NumRet"),
    "NumRel": Spelling("NumRel", rel=True),
    "NumRelRet": Spelling("NumRelRet", rel=True),
    "SetP": Spelling("SetP", rel=True),
    "SetR": Spelling("SetR", rel=True),
    "SetF": Spelling("SetF", rel=True),
    "Judged": Spelling("Judged", cutoff="k", cutoff_required=True),
    "IPrec": Spelling("IPrec", cutoff="level", cutoff_required=True, read_cutoff=_level),
}
"""ir_measures' names."""

RANX: dict[str, Spelling] = {
    "hits": Spelling("hits", cutoff="k", cutoff_required=True),
}
"""ranx's names."""

_GRAMMAR = re.compile(
    r"(?P<name>[A-Za-z_][A-Za-z0-9_\-]*)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[^@()]+))?"
)


def _parameters(name: str, text: str) -> dict[str, Any]:
    """``a=1, b={0: 1}`` as a dict of Python literals."""
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        assert isinstance(call, ast.Call) and not call.args
        return {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords}  # type: ignore[misc]
    except (SyntaxError, ValueError, AssertionError):
        msg = f"measure {name!r}: parameters must be name=value pairs of literals, got {text!r}"
        raise ValueError(msg) from None


def _threshold(value: object) -> Threshold:
    """``rel=level``: labels at or above ``level`` are relevant."""
    return Threshold(check_number(value, "rel", low=0.0, low_open=True), inclusive=True)


def parse_spelled_name(name: str, tables: tuple[Mapping[str, Spelling], ...]) -> Column | None:
    """The column of an ir_measures-style name found in ``tables``, or None."""
    match = _GRAMMAR.fullmatch(name)
    spelling = None
    if match is not None:
        spelling = next((t[match["name"]] for t in tables if match["name"] in t), None)
    if match is None or spelling is None:
        return None
    given = _parameters(name, match["params"]) if match["params"] is not None else {}
    params: dict[str, Any] = {}
    threshold = None
    for key, value in given.items():
        if key == "rel" and spelling.rel:
            threshold = _threshold(value)
        elif key in spelling.params:
            params[spelling.params[key]] = value
        elif key == "cutoff" and spelling.cutoff is not None:
            params[spelling.cutoff] = value
        else:
            allowed = sorted({*spelling.params, *(["rel"] if spelling.rel else [])})
            msg = f"measure {name!r}: unknown parameter {key!r}; it takes {allowed or 'none'}"
            raise ValueError(msg)
    if match["cutoff"] is not None:
        if spelling.cutoff is None:
            msg = f"measure {name!r}: {match['name']} takes no cutoff"
            raise ValueError(msg)
        try:
            params[spelling.cutoff] = spelling.read_cutoff(match["cutoff"])
        except ValueError:
            msg = f"measure {name!r}: the cutoff {match['cutoff']!r} is not a number"
            raise ValueError(msg) from None
    if spelling.cutoff_required and spelling.cutoff not in params:
        msg = f"measure {name!r}: {match['name']} needs a cutoff, as in {match['name']}@10"
        raise ValueError(msg)
    return Column(name, BY_KEY[spelling.key], tuple(params.items()), threshold)
