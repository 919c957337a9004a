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

    An expression whose text form does not name ``element()`` reads none (the
    text costs 1-6 µs, the staged statistics' arithmetic over fields mostly has
    none); the others are walked node by node (a ``meta.pop`` each), so a column
    that happens to be called ``element()`` cannot pass for a read. (The JSON form
    as that first check cost about 90 ms for ``all_trec``: it writes out the
    65,536 values of the ``log2`` table; the text form names the table only.)
    """
    if "element()" not in str(expr):
        return False
    return _walk(expr)


def _walk(expr: pl.Expr) -> bool:
    if expr.meta.eq(_ELEMENT):
        return True
    return any(_walk(part) for part in expr.meta.pop())


_ELEMENT = pl.element()
