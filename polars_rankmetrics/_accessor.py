"""The ``.rank`` accessor: polars' own ``Expr.rank`` when called, the metrics as attributes.

``Expr.rank`` is a built-in polars method, so ``pl.api.register_expr_namespace``
refuses the name. Instead :func:`install` replaces the class attribute with a
descriptor:

- ``pl.Expr.rank`` (class access) is still polars' own function;
- ``expr.rank(...)`` calls polars' own method with the same arguments;
- ``expr.rank.ap_at_k(...)`` forwards to :func:`polars_rankmetrics.ap_at_k`.

Type checkers cannot see this accessor; the typed functions
(``polars_rankmetrics.ap_at_k(relevance, ...)``) are the checked path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from polars_rankmetrics.namespace import RankNameSpace

_MARKER = "_polars_rankmetrics_accessor"


class _RankDescriptor:
    """Class access gives the built-in; instance access gives a callable namespace."""

    _polars_rankmetrics_accessor = True

    def __init__(self, builtin: Callable[..., pl.Expr]) -> None:
        self.builtin = builtin
        self.__doc__ = builtin.__doc__

    def __get__(self, instance: pl.Expr | None, owner: type | None = None) -> Any:
        if instance is None:
            return self.builtin
        return RankNameSpace(instance, self.builtin)


def _is_polars_builtin(attribute: Any) -> bool:
    return (
        callable(attribute)
        and getattr(attribute, "__module__", None) == "polars.expr.expr"
        and getattr(attribute, "__qualname__", None) == "Expr.rank"
    )


def install() -> None:
    """Install the ``.rank`` accessor on ``pl.Expr``; a second call does nothing.

    Raises
    ------
    RuntimeError
        If ``pl.Expr.rank`` has already been replaced by something else.
    """
    current = pl.Expr.__dict__.get("rank")
    if getattr(current, _MARKER, False):
        return
    if current is None or not _is_polars_builtin(current):
        msg = (
            f"pl.Expr.rank has already been replaced by {current!r}; "
            "polars_rankmetrics will not override it. Use the functions "
            "(polars_rankmetrics.ap_at_k(...)) instead of the .rank accessor."
        )
        raise RuntimeError(msg)
    pl.Expr.rank = _RankDescriptor(current)  # type: ignore[method-assign,assignment]
