"""The grammar the dialects share: ``Name(param=value,...)@cutoff`` and what a name's parts set.

A :class:`Spelling` is a tool's name for a registry measure and what its
parameters set. ir_measures' names follow :data:`GRAMMAR` (a measure, optional
parameters in parentheses as Python literals, an optional cutoff after ``@``),
and so do ndeval's, torchmetrics' and NTCIREVAL's (:mod:`.peer_names`);
:func:`read_name` reads such a name against its spelling. ranx's grammar
differs (:mod:`.ranx_names`) but its parameters end the same way, in
:func:`spelled_column`. Nothing here knows a tool's names: the tables of names
are in the dialect modules, which import this one, never each other.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from polars_rankmetrics._validate import DocOrder, check_bool, check_number
from polars_rankmetrics.engine import Threshold
from polars_rankmetrics.measures.registry import BY_KEY, Column


def _digits(text: str, pattern: str, read: Callable[[str], Any]) -> Any:
    """``read(text)`` if ``text`` is ASCII digits of ``pattern`` (``int`` reads ``'５'`` too)."""
    if not re.fullmatch(pattern, text):
        msg = f"{text!r} is not a number"
        raise ValueError(msg)
    return read(text)


def read_integer(text: str) -> int:
    """A cutoff of ASCII digits, as an int."""
    return int(_digits(text, r"[0-9]+", int))


def read_level(text: str) -> float:
    """A non-negative decimal of ASCII digits (``0.5``, ``.5``, ``5``), as a float."""
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
    read_cutoff: Callable[[str], Any] = read_integer
    fixed: Mapping[str, Any] = field(default_factory=dict)
    values: Mapping[str, Mapping[Any, Any]] = field(default_factory=dict)
    judged_only: bool = False
    switch: tuple[str, str] | None = None
    rel_required: bool = False
    order: DocOrder | None = None
    cutoff_order: DocOrder | None = None


GRAMMAR = re.compile(
    r"(?P<name>[A-Za-z_][A-Za-z0-9_\-]*)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[^@()]+))?"
)
"""A name in ir_measures' grammar: ``name``, ``(params)`` and ``cutoff`` groups."""


def parameters(name: str, text: str) -> dict[str, Any]:
    """``a=1, b={0: 1}`` as a dict of Python literals."""
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        assert isinstance(call, ast.Call) and not call.args
        return {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords}  # type: ignore[misc]
    except (SyntaxError, ValueError, AssertionError):
        msg = f"measure {name!r}: parameters must be name=value pairs of literals, got {text!r}"
        raise ValueError(msg) from None


def threshold(value: object) -> Threshold:
    """``rel=level``: labels at or above ``level`` are relevant."""
    return Threshold(check_number(value, "rel", low=0.0, low_open=True), inclusive=True)


@dataclass
class Parsed:
    """What the parameters of one name set, as they are read."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)
    threshold: Threshold | None = None
    judged_only: bool = False


def read_parameter(name: str, spelling: Spelling, parsed: Parsed, key: str, value: Any) -> None:
    """Apply ``key=value`` of ``name`` to ``parsed``, or raise naming the parameter."""
    if spelling.switch is not None and key == spelling.switch[0]:
        if key == "rel":
            parsed.threshold = threshold(value)
        elif not check_bool(value, key):
            return
        parsed.key = spelling.switch[1]
    elif key == "rel" and spelling.rel:
        parsed.threshold = threshold(value)
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


def spelled_column(name: str, spelling: Spelling, parsed: Parsed) -> Column:
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


def given_column(
    name: str, spelling: Spelling, params: dict[str, Any], level: int | None
) -> Column:
    """The column of ``name``: ``spelling`` with the registry parameters ``params``.

    ``level``, if given, is the column's own relevance level (labels at or above
    it are relevant).
    """
    relevant = None if level is None else threshold(level)
    return spelled_column(name, spelling, Parsed(spelling.key, params, relevant))


def read_name(name: str, spelling: Spelling, match: re.Match[str]) -> Column:
    """The column of ``name``, a :data:`GRAMMAR` match whose ``name`` is spelled ``spelling``."""
    parsed = Parsed(spelling.key)
    if match["params"] is not None:
        for key, value in parameters(name, match["params"]).items():
            read_parameter(name, spelling, parsed, key, value)
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
    return spelled_column(name, spelling, parsed)
