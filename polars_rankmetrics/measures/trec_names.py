"""trec_eval's spellings: ``P``, ``P.5,10``, ``P_10``, ``ndcg.1=3,2=9``, ``all_trec``.

Each trec_eval measure (a :class:`TrecFamily`) is a measure of the registry and
the way its ``.params`` suffix is read: a list of cutoffs gives one column per
cutoff (``P.5,10`` gives ``P_5`` and ``P_10``), other parameters give one
column. The families are listed in the order trec_eval computes and prints
them; the nicknames (``official``, ``all_trec``, ``set``) expand to sets.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from polars_rankmetrics.measures.registry import BY_KEY, Column

ParameterKind: TypeAlias = Literal["none", "long_cutoffs", "double_cutoffs", "doubles", "pairs"]
"""How a family's ``.params`` suffix is read (trec_eval's ``PARAMS`` types)."""


def _first(values: list[Any]) -> Any:
    return values[0]


@dataclass(frozen=True)
class TrecFamily:
    """A trec_eval measure: the registry entry it names, and how its parameters read.

    ``param`` is the registry parameter its values set; ``read`` turns the parsed
    values (doubles, or ``name=value`` pairs) into that parameter's value.
    """

    name: str
    key: str | None
    kind: ParameterKind = "none"
    default: str = ""
    param: str = ""
    read: Callable[[Any], Any] = _first


def _long_cutoffs(family: str, text: str) -> list[int]:
    """trec_eval's cutoffs: each part read like ``atol`` (leading digits), sorted."""
    values = []
    for part in text.split(","):
        match = re.match(r"\s*[+-]?[0-9]+", part)
        if match is None:
            msg = f"measure {family!r}: cutoff {part!r} is not an integer"
            raise ValueError(msg)
        values.append(int(match.group()))
    values.sort()
    if values[0] <= 0:
        msg = f"measure {family!r}: cutoffs must be positive, got {text!r}"
        raise ValueError(msg)
    if len(set(values)) != len(values):
        msg = f"measure {family!r}: duplicate cutoffs in {text!r}"
        raise ValueError(msg)
    return values


def _doubles(family: str, text: str) -> list[float]:
    values = []
    for part in text.split(","):
        try:
            values.append(float(part))
        except ValueError:
            msg = f"measure {family!r}: parameter {part!r} is not a number"
            raise ValueError(msg) from None
    return values


def _double_cutoffs(family: str, text: str) -> list[float]:
    values = sorted(_doubles(family, text))
    if len(set(values)) != len(values):
        msg = f"measure {family!r}: duplicate cutoffs in {text!r}"
        raise ValueError(msg)
    return values


def _pairs(family: str, text: str) -> list[tuple[str, float]]:
    pairs = []
    for part in text.split(","):
        name, equals, value = part.partition("=")
        if not equals or not name:
            msg = f"measure {family!r}: parameters must be name=value pairs, got {text!r}"
            raise ValueError(msg)
        pairs.append((name, _doubles(family, value)[0]))
    return pairs


def _level_gains(pairs: list[tuple[str, float]]) -> tuple[tuple[int, float], ...]:
    """``level=gain`` pairs, for the nDCG-like measures."""
    gains = []
    for name, value in pairs:
        if not re.fullmatch(r"[+-]?[0-9]+", name):
            msg = f"{name!r} is not a relevance level"
            raise ValueError(msg)
        gains.append((int(name), value))
    return tuple(gains)


def _persistence(pairs: list[tuple[str, float]]) -> float:
    """Rbp's ``p=<persistence>``; it takes no level gains."""
    if any(name != "p" for name, _ in pairs):
        msg = "custom level gains are not supported; only p=<persistence>"
        raise ValueError(msg)
    return dict(pairs).get("p", 0.9)


_CUTOFFS = "5,10,15,20,30,100,200,500,1000"
_LEVELS = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"


def _cutoffs(name: str, key: str, default: str = _CUTOFFS) -> TrecFamily:
    return TrecFamily(name, key, "long_cutoffs", default, "k")


def _gains(name: str, key: str) -> TrecFamily:
    return TrecFamily(name, key, "pairs", "", "gains", _level_gains)


FAMILIES: tuple[TrecFamily, ...] = (
    TrecFamily("runid", None),
    TrecFamily("num_q", "NumQ"),
    TrecFamily("num_ret", "NumRet"),
    TrecFamily("num_rel", "NumRel"),
    TrecFamily("num_rel_ret", "NumRelRet"),
    TrecFamily("map", "AP"),
    TrecFamily("gm_map", "gm_map"),
    TrecFamily("Rprec", "Rprec"),
    TrecFamily("bpref", "Bpref"),
    TrecFamily("recip_rank", "RR"),
    TrecFamily("iprec_at_recall", "IPrec", "double_cutoffs", _LEVELS, "level"),
    _cutoffs("P", "P"),
    TrecFamily("relstring", "relstring", "doubles", "10", "length"),
    _cutoffs("recall", "R"),
    TrecFamily("infAP", "infAP"),
    TrecFamily("gm_bpref", "gm_bpref"),
    TrecFamily(
        "Rprec_mult",
        "Rprec_mult",
        "double_cutoffs",
        "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0",
        "multiple",
    ),
    TrecFamily("utility", "utility", "doubles", "1.0,-1.0,0.0,0.0", "coefficients", tuple),
    TrecFamily("11pt_avg", "11pt_avg", "doubles", _LEVELS, "levels", tuple),
    TrecFamily("binG", "binG"),
    _gains("G", "G"),
    _gains("dcg", "dcg"),
    _gains("ideal_dcg", "ideal_dcg"),
    _gains("ndcg", "nDCG"),
    _gains("ndcg_rel", "ndcg_rel"),
    _gains("Rndcg", "Rndcg"),
    _cutoffs("ndcg_cut", "nDCG"),
    _cutoffs("map_cut", "AP"),
    _cutoffs("relative_P", "relative_P"),
    _cutoffs("success", "Success", "1,5,10"),
    TrecFamily("set_P", "SetP"),
    TrecFamily("set_relative_P", "set_relative_P"),
    TrecFamily("set_recall", "SetR"),
    TrecFamily("set_map", "set_map"),
    TrecFamily("set_F", "SetF", "doubles", "1.0", "beta"),
    TrecFamily("num_nonrel_judged_ret", "num_nonrel_judged_ret"),
    TrecFamily("rbp", "RBP", "pairs", "", "p", _persistence),
    TrecFamily("rbp_resid", "rbp_resid"),
    _cutoffs("unj", "unj", "5,10,20"),
)
"""trec_eval's measures, in the order trec_eval computes and prints them."""

FAMILY_ORDER = {family.name: index for index, family in enumerate(FAMILIES)}
_BY_NAME = {family.name: family for family in FAMILIES}

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
        "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
        "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
        "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
        "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F",
    ),
}  # fmt: skip
"""trec_eval's names for sets of measures (``-m all_trec``)."""


def split_trec_name(name: str) -> tuple[str, str | None, bool] | None:
    """Split ``name`` into a trec_eval measure and its parameter text, if it is one.

    Accepts ``family``, ``family.params`` and, for measures with cutoffs,
    ``family_cutoff`` (``P_10``, ``iprec_at_recall_0.10``); the flag says the
    last form was used. pytrec_eval's ``family_cutoffs`` (``ndcg_cut_20,4``) is
    ``family.cutoffs``. Returns None when ``name`` is not a trec_eval measure.
    """
    if name in _BY_NAME:
        return name, None, False
    base, dot, params = name.partition(".")
    if dot and base in _BY_NAME:
        return base, params, False
    base, underscore, params = name.rpartition("_")
    family = _BY_NAME.get(base)
    if not underscore or family is None:
        return None
    number = r"[0-9]+" if family.kind == "long_cutoffs" else r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    if family.kind not in ("long_cutoffs", "double_cutoffs"):
        return None
    if re.fullmatch(number, params):
        return base, params, True
    if re.fullmatch(rf"{number}(?:,{number})+", params):  # pytrec_eval's P_5,10
        return base, params, False
    return None


def _named(family: TrecFamily, params: str, given: bool) -> str:
    return f"{family.name}_{params}" if given else family.name


def family_columns(family: TrecFamily, params: str | None) -> list[Column]:
    """The columns of ``family`` with the parameter text ``params`` (None: its default)."""
    if family.key is None:  # runid: printed by the command line, no column
        return []
    measure = BY_KEY[family.key]
    given = params is not None
    text = params if params is not None else family.default

    def column(name: str, value: Any) -> Column:
        return Column(name, measure, ((family.param, value),), family=family.name)

    if family.kind == "none":
        if given:
            msg = f"measure {family.name!r} takes no parameters, got {params!r}"
            raise ValueError(msg)
        return [Column(family.name, measure, family=family.name)]
    if family.kind == "long_cutoffs":
        return [column(f"{family.name}_{k}", k) for k in _long_cutoffs(family.name, text)]
    if family.kind == "double_cutoffs":
        values = _double_cutoffs(family.name, text)
        return [column(f"{family.name}_{value:3.2f}", value) for value in values]
    if family.kind == "pairs" and not given:  # the measure's own gains or persistence
        return [Column(family.name, measure, family=family.name)]
    parsed = _doubles(family.name, text) if family.kind == "doubles" else _pairs(family.name, text)
    try:
        value = family.read(parsed)
    except ValueError as error:
        msg = f"measure {family.name!r}: {error}"
        raise ValueError(msg) from None
    return [column(_named(family, text, given), value)]


def parse_trec_name(name: str) -> list[Column] | None:
    """Return the columns of a trec_eval measure name, or None if it is not one."""
    split = split_trec_name(name)
    if split is None:
        return None
    base, params, single = split
    if params == "":
        msg = f"measure {name!r}: empty parameter list after '.'"
        raise ValueError(msg)
    columns = family_columns(_BY_NAME[base], params)
    if single:
        # `P_10` names one cutoff and keeps its own spelling.
        return [Column(name, c.measure, c.params, c.threshold, c.family) for c in columns]
    return columns
