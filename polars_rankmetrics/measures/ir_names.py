"""ir_measures' spellings, ``Name(param=value,...)@cutoff``, and ranx's, ``name@k-lN``.

An ir_measures name is a measure, optional parameters in parentheses (Python
literals: ``rel=2``, ``gains={0: 0, 1: 1}``) and an optional cutoff after ``@``
(``P(rel=2)@10``); ``cutoff=10`` is the same as ``@10``. ``rel`` is the lowest
relevant label, a column's own relevance level; ``judged_only=True`` ranks only
the judged documents. Each name means what ir_measures computes with it, down
to the order in which its provider breaks tied scores (:class:`Spelling`).

A ranx name is lower case, ``name``, ``name@k`` or ``rbp.p``, with an optional
relevance level suffix ``-lN`` (``ndcg@10-l2``, ``map-l2``); without ``@k`` a
ranx measure reads the whole run (``precision`` is the precision of the
retrieved set).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from polars_rankmetrics._validate import MAX_CUTOFF, DocOrder, check_bool, check_number
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

    ``cutoff`` is the registry parameter that ``@value`` (or ``cutoff=``) sets
    (None: no cutoff); ``params`` maps the tool's parameter names to the
    registry's, and ``values`` translates a parameter's values
    (``dcg='exp-log2'`` is ``gain='exponential'``); ``fixed`` are registry
    parameters the name always sets. ``rel`` says whether it takes ``rel=``
    (a relevance level for this column alone), ``judged_only`` whether it takes
    ``judged_only=``. ``switch`` names a parameter that, when given (and not
    False), makes the name another registry measure: ``SetP(relative=True)`` is
    ``set_relative_P``. ``order`` is how the tool breaks tied scores for this
    name, when not by document id descending, and ``cutoff_order`` the same
    when a cutoff is given (ir_measures computes ``RR@10`` with another
    provider than ``RR``).
    """

    key: str
    cutoff: str | None = None
    cutoff_required: bool = False
    params: Mapping[str, str] = field(default_factory=dict)
    rel: bool = False
    read_cutoff: Callable[[str], Any] = _integer
    fixed: Mapping[str, Any] = field(default_factory=dict)
    values: Mapping[str, Mapping[Any, Any]] = field(default_factory=dict)
    judged_only: bool = False
    switch: tuple[str, str] | None = None
    rel_required: bool = False
    order: DocOrder | None = None
    cutoff_order: DocOrder | None = None


def _ranked(key: str, **options: Any) -> Spelling:
    """A measure ir_measures computes with pytrec_eval: it takes ``rel`` and ``judged_only``."""
    return Spelling(key, rel=True, judged_only=True, **options)


_ALPHA = {"alpha": "alpha"}
_ALPHA_BETA = {"alpha": "alpha", "beta": "beta"}
_CWL = {"T": "target", "max_rel": "max_rel", "min_rel": "min_rel"}


def _diversity(key: str, **options: Any) -> Spelling:
    """A measure ir_measures computes with pyndeval: tied scores by document id ascending.

    ``rel`` is not taken (the subtopic lists are binarised at ``evaluate()``'s
    ``relevance_level``), nor ``judged_only``, which ir_measures 0.4.3's
    pyndeval provider cannot compute (it indexes the run, a generator).
    """
    return Spelling(key, order="doc_ascending", **options)


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
        read_cutoff=_level,
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
"""ranx's names (``rbp`` takes its persistence as ``rbp.95``)."""

_GRAMMAR = re.compile(
    r"(?P<name>[A-Za-z_][A-Za-z0-9_\-]*)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[^@()]+))?"
)
_RANX_GRAMMAR = re.compile(
    r"(?P<name>[a-z][a-z0-9_\-]*?)(?:@(?P<cutoff>[0-9]+)|\.(?P<p>[0-9]+))?(?:-l(?P<level>[0-9]+))?"
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


@dataclass
class _Parsed:
    """What the parameters of one name set, as they are read."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)
    threshold: Threshold | None = None
    judged_only: bool = False


def _read_parameter(name: str, spelling: Spelling, parsed: _Parsed, key: str, value: Any) -> None:
    """Apply ``key=value`` of ``name`` to ``parsed``, or raise naming the parameter."""
    if spelling.switch is not None and key == spelling.switch[0]:
        if key == "rel":
            parsed.threshold = _threshold(value)
        elif not check_bool(value, key):
            return
        parsed.key = spelling.switch[1]
    elif key == "rel" and spelling.rel:
        parsed.threshold = _threshold(value)
    elif key == "judged_only" and spelling.judged_only:
        parsed.judged_only = check_bool(value, "judged_only")
    elif key in spelling.params:
        translated = spelling.values.get(key)
        if translated is not None:
            if not isinstance(value, str) or value not in translated:
                msg = (
                    f"measure {name!r}: `{key}` must be one of {sorted(translated)}, got {value!r}"
                )
                raise ValueError(msg)
            value = translated[value]
        parsed.params[spelling.params[key]] = value
    elif key == "cutoff" and spelling.cutoff is not None:
        parsed.params[spelling.cutoff] = value
    else:
        optional = [("cutoff", spelling.cutoff), ("rel", spelling.rel)]
        optional += [("judged_only", spelling.judged_only)]
        taken = [*spelling.params, *(p for p, ok in optional if ok)]
        taken += [spelling.switch[0]] if spelling.switch else []
        msg = f"measure {name!r}: unknown parameter {key!r}; it takes {sorted(taken) or 'none'}"
        raise ValueError(msg)


def _column(name: str, spelling: Spelling, parsed: _Parsed) -> Column:
    """The column of a parsed name: the spelling's fixed parameters, then the given ones."""
    params = {**spelling.fixed, **parsed.params}
    order = spelling.order
    if spelling.cutoff_order is not None and spelling.cutoff in parsed.params:
        order = spelling.cutoff_order
    return Column(
        name,
        BY_KEY[parsed.key],
        tuple(params.items()),
        parsed.threshold,
        judged_only=parsed.judged_only,
        order=order,
    )


def parse_ir_measures_name(name: str, table: Mapping[str, Spelling] = IR_MEASURES) -> Column | None:
    """The column of an ir_measures name (``P(rel=2)@10``), or None if it is not one.

    ``table`` holds the spellings; other tools whose names follow the same
    grammar (ndeval's ``alpha-nDCG@20``) pass their own.
    """
    match = _GRAMMAR.fullmatch(name)
    if match is None or match["name"] not in table:
        return None
    spelling = table[match["name"]]
    parsed = _Parsed(spelling.key)
    if match["params"] is not None:
        for key, value in _parameters(name, match["params"]).items():
            _read_parameter(name, spelling, parsed, key, value)
    if match["cutoff"] is not None:
        if spelling.cutoff is None:
            msg = f"measure {name!r}: {match['name']} takes no cutoff"
            raise ValueError(msg)
        try:
            parsed.params[spelling.cutoff] = spelling.read_cutoff(match["cutoff"])
        except ValueError:
            msg = f"measure {name!r}: the cutoff {match['cutoff']!r} is not a number"
            raise ValueError(msg) from None
    if spelling.cutoff_required and spelling.cutoff not in parsed.params:
        msg = f"measure {name!r}: {match['name']} needs a cutoff, as in {match['name']}@10"
        raise ValueError(msg)
    if spelling.rel_required and parsed.threshold is None:
        msg = (
            f"measure {name!r}: ir_measures computes {match['name']} only with a relevance "
            f"level, as in {match['name']}(rel=1)"
        )
        raise ValueError(msg)
    return _column(name, spelling, parsed)


def parse_ranx_name(name: str) -> Column | None:
    """The column of a ranx name (``ndcg@10``, ``map-l2``, ``rbp.95``), or None."""
    match = _RANX_GRAMMAR.fullmatch(name)
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
    level = None if match["level"] is None else _threshold(int(match["level"]))
    return _column(name, spelling, _Parsed(spelling.key, given, level))
