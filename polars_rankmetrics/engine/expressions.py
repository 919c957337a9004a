"""What the fast paths read from polars expressions: a literal's value, a read of the element.

Both are asked many times per build of a set of statistics. A literal's value is
read from its serialized form and remembered (microseconds, where evaluating it
costs about 70); the element is found by a walk over the nodes.
"""

from __future__ import annotations

from typing import Any

import polars as pl

_LITERALS: dict[str, Any] = {}  # by the literal's JSON form (which names its type too)


def literal_value(literal: pl.Expr) -> Any:
    """The value of a literal expression (a cutoff), remembered per process.

    Evaluating one (``pl.select``) costs ~70 µs, its JSON form ~8 µs; a build of
    the default measures reads about 150 literals, of a dozen distinct values.
    """
    key = literal.meta.serialize(format="json")
    if key not in _LITERALS:
        value = pl.select(literal).item()
        if len(_LITERALS) >= 10_000:
            return value
        _LITERALS[key] = value
    return _LITERALS[key]


def reads_element(expr: pl.Expr) -> bool:
    """Whether ``expr`` reads ``pl.element()`` itself (outside recorded aggregates).

    A walk over the nodes (a ``meta.pop`` each). Checking the JSON form for the
    element first saved 3-5 ms per build of the default measures but cost about
    90 ms for ``all_trec``'s, whose large expressions mostly read it: not kept.
    The walk goes over polars' own expression objects (``meta_pop``/``meta_eq`` of
    ``Expr._pyexpr``), without wrapping each node in an ``Expr``: 7.7 -> 1.1 ms for
    the default measures' build, 23 -> 2 ms for ``all_trec``'s; where those are not
    there (another polars), the same walk through the public ``meta`` namespace.
    """
    try:
        return _reads_element_fast(expr._pyexpr)
    except (AttributeError, TypeError):
        return _reads_element(expr)


_ELEMENT = pl.element()


def _reads_element_fast(node: Any) -> bool:
    if node.meta_eq(_ELEMENT._pyexpr):
        return True
    return any(_reads_element_fast(part) for part in node.meta_pop(None))


def _reads_element(expr: pl.Expr) -> bool:
    if expr.meta.eq(_ELEMENT):
        return True
    return any(_reads_element(part) for part in expr.meta.pop())
