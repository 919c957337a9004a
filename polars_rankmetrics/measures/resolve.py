"""Measure-name resolution: one pipeline from a name (or a measure object) to registry columns.

A name goes down once, and each module on the way is visited at most once::

    parse_measures(name)                      this module
      a measure object -> its tool's name     objects.py (ir_measures' objects)
      the first dialect that claims the name:
        ranx's ``rbp.95``, before trec_eval's ``rbp.p=0.8``    ranx_names.py
        trec_eval (and pytrec_eval's ``P_5,10``), nicknames     trec_names.py
        ir_measures                                             ir_names.py
        ranx                                                    ranx_names.py
        ndeval, cwl_eval, scikit-learn, torchmetrics, NTCIREVAL peer_names.py
      -> the shared grammar                   grammar.py (``Name(params)@cutoff``)
      -> registry columns                     registry.py (the measure, its statistic)

Each dialect is a parser, ``name -> list of columns | None``: None says the name
is not the dialect's, and it says so at once, from its own tables, without
calling anything below it; a name of the dialect with bad parameters raises
``ValueError``. The dialects import only :mod:`.grammar` and :mod:`.registry`,
never each other, and the registry imports no dialect. Where two dialects
could read one name, the order below decides, here and nowhere else.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from typing import Literal, TypeAlias

from polars_rankmetrics.measures.ir_names import IR_MEASURES, parse_ir_measures_name
from polars_rankmetrics.measures.objects import ir_measures_name
from polars_rankmetrics.measures.peer_names import PEER_NAMES, parse_peer_name
from polars_rankmetrics.measures.ranx_names import RANX, parse_ranx_name
from polars_rankmetrics.measures.registry import Column
from polars_rankmetrics.measures.trec_names import (
    FAMILIES,
    NICKNAMES,
    merge_pytrec_eval,
    parse_trec_name,
)

Dialect: TypeAlias = Literal["trec_eval", "ir_measures", "ranx", "peers"]
"""The dialects of measure names, in the order they are tried."""


def _one(parse: Callable[[str], Column | None]) -> Callable[[str], list[Column] | None]:
    def parse_one(name: str) -> list[Column] | None:
        column = parse(name)
        return None if column is None else [column]

    return parse_one


DIALECTS: dict[Dialect, Callable[[str], list[Column] | None]] = {
    "trec_eval": parse_trec_name,
    "ir_measures": _one(parse_ir_measures_name),
    "ranx": _one(parse_ranx_name),
    "peers": _one(parse_peer_name),
}
"""Each dialect's parser, in the order a name is offered to them."""

_RANX_FIRST = re.compile(r"rbp[.@][0-9]+(-l[0-9]+)?")
"""ranx's ``rbp.95`` (persistence 0.95): read as ranx's, not as trec_eval's ``rbp``."""

OBJECTS: tuple[tuple[Callable[[object], str | None], Dialect], ...] = (
    (ir_measures_name, "ir_measures"),
)
"""Measure objects: how each tool's object becomes a name, and the dialect that reads it."""


def resolve(name: str, dialects: Sequence[Dialect] = tuple(DIALECTS)) -> list[Column] | None:
    """The columns of ``name`` in the first of ``dialects`` that claims it, or None.

    Raises ``ValueError`` for a claimed name with bad parameters.
    """
    if "ranx" in dialects and _RANX_FIRST.fullmatch(name):
        return DIALECTS["ranx"](name)
    for dialect in DIALECTS:
        if dialect in dialects:
            columns = DIALECTS[dialect](name)
            if columns is not None:
                return columns
    return None


def _known_names() -> list[str]:
    names = [family.name for family in FAMILIES] + list(NICKNAMES)
    return names + list(IR_MEASURES) + list(RANX) + list(PEER_NAMES)


def _unknown(name: str) -> ValueError:
    base = name.split("@")[0].split("(")[0].split(".")[0]
    close = difflib.get_close_matches(base, _known_names(), n=3, cutoff=0.6)
    close += [known for known in _known_names() if known.lower() == base.lower()]
    hint = f"; did you mean {' or '.join(repr(c) for c in dict.fromkeys(close))}?" if close else ""
    return ValueError(
        f"unknown measure {name!r}{hint} (polars_rankmetrics.list_measures() lists them all)"
    )


def parse_measures(name: str | object) -> list[Column]:
    """
    Parse one measure name into its output columns; raise ``ValueError`` if unknown.

    trec_eval names may carry parameters (``P.5,10`` is ``P_5`` and ``P_10``) and
    nicknames expand to sets (``all_trec``); ir_measures names give one column.
    An ir_measures measure object (``ir_measures.nDCG@10``) means what its name
    means in ir_measures.

    Examples
    --------
    >>> from polars_rankmetrics.measures import parse_measures
    >>> [column.name for column in parse_measures("P.10,5")]
    ['P_5', 'P_10']
    >>> [column.name for column in parse_measures("nDCG@10")]
    ['nDCG@10']
    """
    if isinstance(name, str):
        text, dialects = name, tuple(DIALECTS)
    else:
        for spell, dialect in OBJECTS:
            spelled = spell(name)
            if spelled is not None:
                text, dialects = spelled, (dialect,)
                break
        else:
            msg = f"a measure name must be a string, got {name!r}"
            raise ValueError(msg)
    columns = resolve(text, dialects)
    if columns is None:
        raise _unknown(text)
    return columns


def parse_measure(name: str | object) -> Column:
    """
    Parse a measure name that gives exactly one column; raise ``ValueError`` otherwise.

    Examples
    --------
    >>> from polars_rankmetrics.measures import parse_measure
    >>> parse_measure("AP@10").name
    'AP@10'
    """
    columns = parse_measures(name)
    if len(columns) != 1:
        names = [column.name for column in columns]
        msg = f"measure {name!r} gives {len(names)} columns {names}; use parse_measures"
        raise ValueError(msg)
    return columns[0]


def measure_names(measures: object, name: str = "measures") -> list[str]:
    """The measure names of ``measures``: one name, or a non-empty list of names.

    Every entry point that takes measure names reads them here, so that a bad
    value gets one message everywhere. An ir_measures measure object
    (``ir_measures.nDCG@10``) stands for its name
    (:func:`~polars_rankmetrics.measures.objects.ir_measures_name`, which never
    imports ir_measures).
    """

    def _is_ir_measure(value: object) -> bool:
        return ir_measures_name(value) is not None

    items = [measures] if isinstance(measures, str) or _is_ir_measure(measures) else measures
    if isinstance(items, Sequence | set | frozenset) and not isinstance(items, bytes) and not items:
        msg = f"`{name}` must name at least one measure, got {measures!r}"
        raise ValueError(msg)
    if (
        isinstance(items, str | bytes | dict)
        or not isinstance(items, Sequence | set | frozenset | tuple)
        or not items
    ):
        msg = (
            f"`{name}` must be a measure name or a non-empty list of measure names "
            f"(strings, or ir_measures measures), got {measures!r}"
        )
        raise ValueError(msg)
    names = []
    # A set is pytrec_eval's form: its names are sorted, and a trec_eval family
    # named with cutoffs takes only those (pytrec_eval's merging).
    ordered = sorted(items, key=str) if isinstance(items, set | frozenset) else items
    for item in ordered:
        if _is_ir_measure(item):
            names.append(str(item))
        elif isinstance(item, str):
            names.append(item)
        else:
            msg = (
                f"`{name}` must hold measure names (strings, or ir_measures measures), "
                f"got {item!r} ({type(item).__name__})"
            )
            raise ValueError(msg)
    if isinstance(items, set | frozenset):
        names = merge_pytrec_eval(names)
    return names
