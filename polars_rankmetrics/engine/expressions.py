"""What the fast paths read from polars expressions: a literal's value, a read of the element.

Both are asked many times per build of a set of statistics, so they answer from
the expression's serialized form where they can (microseconds) instead of
evaluating or walking the expression (milliseconds per build).
"""

from __future__ import annotations

import warnings
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
    """Whether ``expr`` reads ``pl.element()`` itself (outside recorded aggregates)."""
    # Its JSON form (~10 µs) names every node: without the element anywhere in
    # it, the walk below (a `meta.pop` per node, 3-4 ms per build) finds none.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            text = expr.meta.serialize(format="json")
    except Exception:  # what cannot be serialized is walked
        text = '"Element"'
    return '"Element"' in text and _walks_to_element(expr)


def _walks_to_element(expr: pl.Expr) -> bool:
    if expr.meta.eq(pl.element()):
        return True
    return any(_walks_to_element(part) for part in expr.meta.pop())
