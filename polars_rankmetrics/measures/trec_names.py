"""trec_eval's spellings: ``P``, ``P.5,10``, ``P_10``, ``ndcg.1=3,2=9``, ``all_trec``.

Each trec_eval measure (a :class:`TrecFamily`) is a measure of the registry and
the way its ``.params`` suffix is read: a list of cutoffs gives one column per
cutoff (``P.5,10`` gives ``P_5`` and ``P_10``), other parameters give one
column. The families are listed in the order trec_eval computes and prints
them; the nicknames (``official``, ``all_trec``, ``set``, ``qrels_jg``) expand
to sets.

Parameters are read exactly as trec_eval 10 reads them (its ``meas_init.c``),
so a trec_eval name means what it means in trec_eval: numbers are read like C's
``atol``/``atof`` (the longest numeric prefix, 0 when there is none: ``P.10abc``
is ``P_10``, ``P.1.5`` is ``P_1``), integer cutoffs are sorted and must be
positive and distinct, recall levels are sorted and distinct but may lie
outside [0, 1] (``iprec_at_recall.1.5`` is 0, ``.-0.5`` and ``.nan`` the highest
precision), other number lists keep their order, ``name=value`` pairs whose
name is not an integer are ignored as gains, a measure without parameters
ignores a suffix, and a column's name is built as trec_eval builds it
(``P_9223372036854775807`` for ``P.99999999999999999999``, the suffix as typed
for ``ndcg.1=3,2=9``, ``%3.2f`` truncated for recall levels).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from polars_rankmetrics.measures.registry import BY_KEY, Column

ParameterKind: TypeAlias = Literal["none", "long_cutoffs", "double_cutoffs", "doubles", "pairs"]
"""How a family's ``.params`` suffix is read (trec_eval's ``PARAMS`` types)."""

LONG_MAX = 2**63 - 1
"""C's ``LONG_MAX``: ``atol`` saturates there."""

_SPACE = " \t\n\v\f\r"


def c_atol(text: str) -> int:
    """C's ``atol``: leading white space, a sign, digits; saturated; 0 without digits."""
    match = re.match(r"[+-]?[0-9]+", text.lstrip(_SPACE))
    if match is None:
        return 0
    return max(-LONG_MAX - 1, min(int(match.group()), LONG_MAX))


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile(
    r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)"
)
_SPECIAL = re.compile(r"([+-]?)(inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)


def c_atof(text: str) -> float:
    """C's ``atof`` (``strtod`` in the C locale): the longest numeric prefix, else 0.

    Reads decimal and hexadecimal numbers, ``inf``/``infinity`` and ``nan``
    (case-insensitive, with a sign); ``1e400`` is ``inf``.
    """
    text = text.lstrip(_SPACE)
    special = _SPECIAL.match(text)
    if special:
        value = math.inf if special.group(2)[0] in "iI" else math.nan
        return -value if special.group(1) == "-" else value
    hexadecimal = _HEX.match(text)
    if hexadecimal:
        body = hexadecimal.group(2)
        value = float.fromhex("0x" + (body if re.search("[pP]", body) else body + "p0"))
        return -value if hexadecimal.group(1) == "-" else value
    decimal = _DECIMAL.match(text)
    return float(decimal.group()) if decimal else 0.0


def c_double_text(value: float) -> str:
    """``printf("%3.2f", value)`` as glibc prints it (``-nan`` keeps its sign)."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return f"{value:3.2f}"


class TrecParameterError(ValueError):
    """A measure's parameters that trec_eval refuses when it initialises the measure."""


@dataclass(frozen=True)
class TrecFamily:
    """A trec_eval measure: the registry entry it names, and how its parameters read.

    ``param`` names the registry parameter set per column for cutoff lists;
    ``read`` turns the parsed values (doubles, or ``(name, value)`` pairs) into
    the statistic's parameters.
    """

    name: str
    key: str | None
    kind: ParameterKind = "none"
    default: str = ""
    param: str = ""
    read: Callable[[Any], dict[str, Any]] = dict


def _long_cutoffs(family: str, text: str) -> list[int]:
    """trec_eval's ``get_long_cutoffs``: ``atol`` each, sorted, positive and distinct."""
    values = sorted(c_atol(part) for part in text.split(","))
    if values[0] <= 0:
        msg = f"measure {family!r}: cutoffs must be positive (trec_eval: Negative cutoff detected)"
        raise TrecParameterError(msg)
    if len(set(values)) != len(values):
        msg = f"measure {family!r}: duplicate cutoffs in {text!r}"
        raise TrecParameterError(msg)
    return values


def _doubles(text: str) -> list[float]:
    return [c_atof(part) for part in text.split(",")]


def _double_cutoffs(family: str, text: str) -> list[float]:
    """trec_eval's ``get_double_cutoffs``: ``atof`` each, sorted, distinct."""
    values = _doubles(text)
    values.sort(key=lambda value: (math.isnan(value), value))
    if any(a == b for a, b in itertools.pairwise(values)):
        msg = f"measure {family!r}: duplicate cutoffs in {text!r}"
        raise TrecParameterError(msg)
    return values


def _pairs(family: str, text: str) -> list[tuple[str, float]]:
    """trec_eval's ``get_param_pairs``: ``name=value`` pairs separated by commas."""
    if not re.fullmatch(r"[^,=]*=[^,=]*(?:,[^,=]*=[^,=]*)*", text):
        msg = f"measure {family!r}: malformed pair parameters in {text!r}"
        raise TrecParameterError(msg)
    pairs = []
    for part in text.split(","):
        name, _, value = part.partition("=")
        pairs.append((name, c_atof(value)))
    return pairs


def _level_gains(pairs: list[tuple[str, float]]) -> dict[str, Any]:
    """``level=gain`` pairs for the gain measures; names that are not integers are ignored.

    A level given twice keeps its first gain.
    """
    gains: dict[int, float] = {}
    for name, value in pairs:
        if re.fullmatch(r"[+-]?[0-9]+", name):
            gains.setdefault(c_atol(name), value)
    return {"gains": tuple(gains.items())}


def _persistence(pairs: list[tuple[str, float]]) -> dict[str, Any]:
    """Rbp's ``p=<persistence>`` (the last one given) and its level gains."""
    persistence = [value for name, value in pairs if name == "p"]
    params = _level_gains(pairs)
    if persistence:
        params["p"] = persistence[-1]
    return params


def _residual(pairs: list[tuple[str, float]]) -> dict[str, Any]:
    persistence = [value for name, value in pairs if name == "p"]
    return {"p": persistence[-1]} if persistence else {}


def _first(name: str) -> Callable[[list[float]], dict[str, Any]]:
    return lambda values: {name: values[0]}


def _all(name: str) -> Callable[[list[float]], dict[str, Any]]:
    return lambda values: {name: tuple(values)}


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
    TrecFamily("relstring", "relstring", "doubles", "10", "length", _first("length")),
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
    TrecFamily(
        "utility", "utility", "doubles", "1.0,-1.0,0.0,0.0", "coefficients", _all("coefficients")
    ),
    TrecFamily("11pt_avg", "11pt_avg", "doubles", _LEVELS, "levels", _all("levels")),
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
    TrecFamily("set_F", "SetF", "doubles", "1.0", "beta", _first("beta")),
    TrecFamily("num_nonrel_judged_ret", "num_nonrel_judged_ret"),
    TrecFamily("map_avgjg", "AP"),
    _cutoffs("P_avgjg", "P"),
    TrecFamily(
        "Rprec_mult_avgjg",
        "Rprec_mult",
        "double_cutoffs",
        "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0",
        "multiple",
    ),
    TrecFamily("yaap", "yaap"),
    TrecFamily("rbp", "RBP", "pairs", "", "p", _persistence),
    TrecFamily("rbp_resid", "rbp_resid", "pairs", "", "p", _residual),
    _cutoffs("unj", "unj", "5,10,20"),
)
"""trec_eval's measures, in the order trec_eval computes and prints them.

The ``_avgjg`` measures average their base measure over the judgement groups of
``-R qrels_jg`` qrels (``rankmetrics trec-eval`` only).
"""

JUDGEMENT_GROUP_FAMILIES = frozenset({"map_avgjg", "P_avgjg", "Rprec_mult_avgjg"})
"""The measures of ``-R qrels_jg``: the mean over judgement groups of their base measure."""

FAMILY_ORDER = {family.name: index for index, family in enumerate(FAMILIES)}
BY_NAME = {family.name: family for family in FAMILIES}

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
        "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
        "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
        "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
        "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
    ),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}  # fmt: skip
"""trec_eval's names for sets of measures (``-m all_trec``)."""

PREFERENCE_MEASURES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp",
)  # fmt: skip
"""trec_eval's measures of preference judgements (``-R prefs``), which this library lacks."""

PREFERENCE_NICKNAMES: dict[str, tuple[str, ...]] = {
    "all_prefs": ("runid", "num_q", *PREFERENCE_MEASURES),
    "prefs": ("runid", "num_q", *PREFERENCE_MEASURES[:6]),
}
"""trec_eval's nicknames for sets of preference measures."""


def split_trec_name(name: str) -> tuple[str, str | None, bool] | None:
    """Split ``name`` into a trec_eval measure and its parameter text, if it is one.

    Accepts ``family``, ``family.params`` (split at the first ``.``, as trec_eval
    does) and, for measures with cutoffs, ``family_cutoff`` (``P_10``,
    ``iprec_at_recall_0.10``, a spelling of this library that trec_eval itself
    refuses); the flag says the last form was used. pytrec_eval's
    ``family_cutoffs`` (``ndcg_cut_20,4``) is ``family.cutoffs``. Returns None
    when ``name`` is not a trec_eval measure.
    """
    if name in BY_NAME:
        return name, None, False
    base, dot, params = name.partition(".")
    if dot and base in BY_NAME:
        return base, params, False
    base, underscore, params = name.rpartition("_")
    family = BY_NAME.get(base)
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


def _column(family: TrecFamily, name: str, params: dict[str, Any]) -> Column:
    measure = BY_KEY[family.key or ""]
    return Column(name, measure, tuple(params.items()), family=family.name)


def family_columns(family: TrecFamily, params: str | None) -> list[Column]:
    """The columns of ``family`` with the parameter text ``params`` (None: its default).

    Raises :class:`TrecParameterError` (a ``ValueError``) for parameters
    trec_eval refuses when it initialises the measure.
    """
    if family.key is None:  # runid: printed by the command line, no column
        return []
    given = params is not None
    text = params if params is not None else family.default
    if family.kind == "none":
        return [_column(family, family.name, {})]
    if family.kind == "long_cutoffs":
        return [
            _column(family, f"{family.name}_{k}", {family.param: k})
            for k in _long_cutoffs(family.name, text)
        ]
    if family.kind == "double_cutoffs":
        width = len(family.name) + 9  # trec_eval's buffer truncates longer names
        return [
            _column(family, f"{family.name}_{c_double_text(value)}"[:width], {family.param: value})
            for value in _double_cutoffs(family.name, text)
        ]
    name = f"{family.name}_{text}" if given else family.name
    if family.kind == "pairs" and not given:  # the measure's own gains or persistence
        return [_column(family, name, {})]
    values = _doubles(text) if family.kind == "doubles" else _pairs(family.name, text)
    try:
        return [_column(family, name, family.read(values))]
    except ValueError as error:
        message = str(error).removeprefix(f"measure {name!r}: ")
        msg = f"measure {family.name!r}: {message}"
        raise TrecParameterError(msg) from None


def parse_trec_name(name: str) -> list[Column] | None:
    """Return the columns of a trec_eval measure name or nickname, or None if it is neither.

    A nickname (``official``, ``all_trec``, ``set``) gives its members' columns.
    """
    if name in NICKNAMES:
        return [column for member in NICKNAMES[name] for column in parse_trec_name(member) or []]
    split = split_trec_name(name)
    if split is None:
        return None
    base, params, single = split
    if base in JUDGEMENT_GROUP_FAMILIES:
        msg = (
            f"measure {name!r} averages over the judgement groups of `-R qrels_jg` qrels: "
            "use it with `rankmetrics trec-eval -R qrels_jg`"
        )
        raise ValueError(msg)
    if params == "":
        msg = f"measure {name!r}: empty parameter list after '.' (trec_eval: illegal measure)"
        raise ValueError(msg)
    columns = family_columns(BY_NAME[base], params)
    if single:
        # `P_10` names one cutoff and keeps its own spelling.
        return [Column(name, c.measure, c.params, c.threshold, c.family) for c in columns]
    return columns


def merge_pytrec_eval(names: list[str]) -> list[str]:
    """Read a set of names as pytrec_eval reads its measure set: one name per family.

    pytrec_eval merges the parameters of a family's names (``ndcg_cut.1`` and
    ``ndcg_cut_4`` are ``ndcg_cut.1,4``), and a family named with parameters
    takes only those: its bare name (``ndcg_cut``) then adds none of the
    default cutoffs. Only the families whose parameters are cutoffs are
    merged; every other name passes unchanged. The result is sorted.

    Examples
    --------
    >>> merge_pytrec_eval(["ndcg_cut", "ndcg_cut.1,4", "P_5", "map"])
    ['P.5', 'map', 'ndcg_cut.1,4']
    """
    merged: dict[str, set[str]] = {}
    others = []
    for name in names:
        split = split_trec_name(name)
        family = None if split is None else BY_NAME.get(split[0])
        if split is None or family is None or family.kind not in ("long_cutoffs", "double_cutoffs"):
            others.append(name)
            continue
        base, params, _ = split
        merged.setdefault(base, set()).update(params.split(",") if params else ())
    families = [
        f"{base}.{','.join(sorted(params, key=float))}" if params else base
        for base, params in merged.items()
    ]
    return sorted(families + others)
