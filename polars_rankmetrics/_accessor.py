"""The ``.rank`` accessor: polars' own ``Expr.rank`` when called, the metrics as attributes.

``Expr.rank`` is a built-in polars method, so ``pl.api.register_expr_namespace``
refuses the name. Instead :func:`install` replaces the class attribute with a
descriptor:

- ``pl.Expr.rank`` (class access) is still polars' own function;
- ``expr.rank(...)`` calls polars' own method with the same arguments;
- ``expr.rank.ap_at_k(...)`` forwards to :func:`polars_rankmetrics.ap_at_k`.

The namespace's methods are generated from the metric functions: each has the
function's signature without ``relevance`` (the receiving expression) and the
function's whole docstring, so ``help()``, tab completion and IDE hovers show
the real documentation. Static type checkers cannot see the accessor; the typed
functions (``polars_rankmetrics.ap_at_k(relevance, ...)``) are the checked path.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import polars as pl

_MARKER = "_polars_rankmetrics_accessor"


class _RankNameSpace:
    """Ranking metrics with the receiving expression as the relevance label."""

    _accessor = "rank"
    _populated = False

    def __init__(self, expr: pl.Expr, builtin: Callable[..., pl.Expr]) -> None:
        self._expr = expr
        self._builtin = builtin

    def __call__(self, *args: Any, **kwargs: Any) -> pl.Expr:
        """Polars' own ``Expr.rank``: assign ranks to data."""
        return self._builtin(self._expr, *args, **kwargs)


def _method(function: Callable[..., pl.Expr]) -> Callable[..., pl.Expr]:
    """``function`` as a method whose receiver is the ``relevance`` argument."""

    @functools.wraps(function)
    def method(self: _RankNameSpace, *args: Any, **kwargs: Any) -> pl.Expr:
        return function(self._expr, *args, **kwargs)

    signature = inspect.signature(function)
    receiver = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    parameters = [receiver, *list(signature.parameters.values())[1:]]
    method.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    method.__qualname__ = f"RankNameSpace.{function.__name__}"
    del method.__wrapped__  # help() and inspect read __signature__, not the function's
    return method


def _namespace_doc(functions: tuple[Callable[..., pl.Expr], ...]) -> str:
    """The namespace's docstring: polars' own ``rank``, then one line per metric."""
    builtin = inspect.signature(pl.Expr.rank)
    call = builtin.replace(parameters=list(builtin.parameters.values())[1:])
    summary = (inspect.getdoc(pl.Expr.rank) or "").split("\n\n")[0]
    metrics_lines = "\n".join(
        f"- ``{f.__name__}``: {(inspect.getdoc(f) or '').splitlines()[0]}" for f in functions
    )
    return (
        "Ranking metrics under ``pl.col(relevance).rank``, and polars' own ``Expr.rank``.\n\n"
        'Name the scores with ``by=``: ``pl.col("relevance").rank.ndcg_at_k(10, by="score")``.\n'
        "Without ``by=`` the rows are ranked in the order they come in (for data already\n"
        "in rank order), and nothing warns: on the demo's digits, mean nDCG@10 is 0.971\n"
        'ranked ``by="score"`` and 0.099 in row order.\n\n'
        f"Calling the namespace is polars' built-in ``Expr.rank``, ``pl.col(x).rank{call}``:\n"
        f"{summary} See ``help(pl.Expr.rank)``.\n\n"
        "Its attributes are the metrics of polars_rankmetrics, with the receiving\n"
        f"expression as the relevance label:\n\n{metrics_lines}\n"
    )


_RankNameSpace.__name__ = _RankNameSpace.__qualname__ = "RankNameSpace"
if TYPE_CHECKING:
    RankNameSpace = _RankNameSpace


def _populate(namespace: type[_RankNameSpace]) -> type[_RankNameSpace]:
    """Give the namespace its methods and docstring (once), importing the metrics."""
    if not namespace._populated:
        from polars_rankmetrics.metrics import FUNCTIONS
        from polars_rankmetrics.multi import metrics

        functions = (*FUNCTIONS, metrics)
        for function in functions:
            setattr(namespace, function.__name__, _method(function))
        namespace.__doc__ = _namespace_doc(functions)
        namespace._populated = True
    return namespace


def __getattr__(name: str) -> Any:
    """:class:`RankNameSpace`, with its methods (the metrics are imported on first access)."""
    if name == "RankNameSpace":
        return _populate(_RankNameSpace)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


class _RankDescriptor:
    """Class access gives the built-in; instance access gives a callable namespace."""

    _polars_rankmetrics_accessor = True

    def __init__(self, builtin: Callable[..., pl.Expr]) -> None:
        self.builtin = builtin
        self.namespace = _RankNameSpace
        self.__doc__ = builtin.__doc__

    def __get__(self, instance: pl.Expr | None, owner: type | None = None) -> Any:
        if instance is None:
            return self.builtin
        namespace = self.namespace
        if not namespace._populated:
            _populate(namespace)
        return namespace(instance, self.builtin)


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
