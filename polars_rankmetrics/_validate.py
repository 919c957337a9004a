"""Option types and parameter validation, shared by every entry point.

The metric functions, :func:`polars_rankmetrics.metrics`, ``evaluate()``, Spark
and the command line check a parameter with the same function here, so that a
bad value gets the same message wherever it is given, when the expression is
built rather than when it runs.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeAlias, get_args

import polars as pl

IntoExpr: TypeAlias = str | pl.Expr
"""A column name or an expression."""

NoRelevant: TypeAlias = Literal["null", "zero"]
"""What a metric that is undefined without relevant documents returns for such a query."""

Gain: TypeAlias = Literal["linear", "exponential"]
"""How a relevance label becomes a DCG gain: the label itself, or ``2**label - 1``."""

Ties: TypeAlias = Literal["stable", "optimistic", "pessimistic", "average"]
"""How rows with equal primary scores are ordered.

``'stable'``: input order, or the tie-breakers in ``by``. ``'optimistic'``: higher
labels (relevant rows) first. ``'pessimistic'``: lower labels first. ``'average'``:
the exact expected value over every ordering of each tie group.
"""

DocOrder: TypeAlias = Literal["doc_descending", "doc_ascending", "input"]
"""How equal scores are ordered in a run: by document id, descending (trec_eval) or
ascending (some ir_measures providers), or in the run's input order (cwl_eval)."""

TieBreak: TypeAlias = Literal["tool", "doc_descending", "doc_ascending", "input"]
"""How ``evaluate()`` orders equal scores: as the tool that owns each measure name
does (``'tool'``), or one :data:`DocOrder` for every measure."""

MAX_CUTOFF = 2**63 - 1
"""The largest cutoff accepted: C's ``LONG_MAX``, where trec_eval's ``atol`` saturates."""

MAX_LIST = 2**32 - 1
"""The longest list polars holds; a cutoff computed in an expression is clipped to it
(``head()`` wraps a larger count)."""


def as_expr(value: object, name: str = "relevance") -> pl.Expr:
    """Return ``value`` as an expression; a string is a column name."""
    if isinstance(value, pl.Expr):
        return value
    if isinstance(value, str):
        return pl.col(value)
    msg = f"`{name}` must be a column name or a polars expression, got {value!r}"
    raise ValueError(msg)


def is_integral(value: object) -> bool:
    """Whether ``value`` is an integer (Python's or numpy's), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_bool(value: object) -> bool:
    """Whether ``value`` is a bool, Python's or numpy's."""
    kind = type(value)
    return isinstance(value, bool) or (
        kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")
    )


def check_k(k: object, name: str = "k") -> int:
    """Return ``k`` as an int if it is a positive integer (at most :data:`MAX_CUTOFF`)."""
    value = int(k) if isinstance(k, numbers.Integral) and not isinstance(k, bool) else 0
    if 1 <= value <= MAX_CUTOFF:
        return value
    msg = f"`{name}` must be a positive int, got {k!r}"
    if value > MAX_CUTOFF:
        msg = f"`{name}` must be a positive int of at most 2**63 - 1, got {k!r}"
    raise ValueError(msg)


def check_seed(seed: object) -> None:
    """Raise ``ValueError`` unless ``seed`` is a non-negative int (a resampling test's seed)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        msg = f"`seed` must be a non-negative int, got {seed!r}"
        raise ValueError(msg)


def check_choice(value: object, name: str, alias: object) -> None:
    """Raise ``ValueError`` unless ``value`` is one of the ``Literal`` alias's options."""
    allowed = get_args(alias)
    if not isinstance(value, str) or value not in allowed:
        options = ", ".join(repr(option) for option in allowed)
        msg = f"`{name}` must be one of {options}, got {value!r}"
        raise ValueError(msg)


def check_number(
    value: object,
    name: str,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a float if it is a finite real number within the bounds.

    The bounds are closed unless ``low_open``/``high_open``; NaN and infinities
    are refused.
    """
    ok = isinstance(value, numbers.Real) and not is_bool(value)
    number = float(value) if ok else math.nan  # type: ignore[arg-type]
    if ok and math.isfinite(number):
        above = number > low if low_open else number >= low
        below = number < high if high_open else number <= high
        if above and below:
            return number
    left = "(" if low_open else "["
    right = ")" if high_open else "]"
    if low == -math.inf and high == math.inf:
        allowed = "a finite number"
    elif high == math.inf:
        allowed = f"a finite number {'>' if low_open else '>='} {low:g}"
    else:
        allowed = f"a number in {left}{low:g}, {high:g}{right}"
    msg = f"`{name}` must be {allowed}, got {value!r}"
    raise ValueError(msg)


def check_bool(value: object, name: str) -> bool:
    """Return ``value`` as a bool if it is one (Python's or numpy's)."""
    if not is_bool(value):
        msg = f"`{name}` must be True or False, got {value!r}"
        raise ValueError(msg)
    return bool(value)


def check_by(by: object) -> tuple[pl.Expr, ...]:
    """The score and tie-breaker expressions of ``by``: empty for ``None`` (rank order)."""
    if by is None:
        return ()
    if isinstance(by, str | pl.Expr):
        return (as_expr(by, "by"),)
    if not isinstance(by, Sequence) or isinstance(by, bytes):
        msg = f"`by` must be a column name, an expression or a list of them, got {by!r}"
        raise ValueError(msg)
    exprs = tuple(as_expr(item, "by") for item in by)
    if not exprs:
        msg = "`by` must name at least one column, or be None for rows in rank order"
        raise ValueError(msg)
    return exprs


def check_descending(descending: object, n_by: int) -> tuple[bool, ...]:
    """One direction per ``by`` expression, from one bool or a list of them."""
    if is_bool(descending):
        return (bool(descending),) * n_by
    if isinstance(descending, Sequence) and not isinstance(descending, str):
        directions = tuple(descending)
        if len(directions) == n_by and all(is_bool(d) for d in directions):
            return tuple(bool(d) for d in directions)
    msg = (
        "`descending` must be a bool or one bool per `by` expression, "
        f"got {descending!r} for {n_by} expression(s)"
    )
    raise ValueError(msg)


def check_positive(value: object, name: str) -> float:
    """Return ``value`` as a float if it is a finite number > 0, and not subnormal.

    Polars' kernels may flush subnormal numbers (below 2.2e-308) to 0, so a
    parameter that divides would divide by 0.
    """
    number = check_number(value, name, low=0.0, low_open=True)
    if number < sys.float_info.min:
        msg = (
            f"`{name}` must be a finite number > 0 of at least {sys.float_info.min:g} "
            f"(smaller numbers are computed as 0), got {value!r}"
        )
        raise ValueError(msg)
    return number


def optional(check: Callable[[Any, str], Any]) -> Callable[[Any, str], Any]:
    """``check``, letting ``None`` through."""

    def checked(value: object, name: str) -> Any:
        return None if value is None else check(value, name)

    return checked


def choice(alias: object) -> Callable[[Any, str], Any]:
    """A check that ``value`` is one of the ``Literal`` alias's options."""

    def checked(value: object, name: str) -> Any:
        check_choice(value, name, alias)
        return value

    return checked


def check_label_dtype(dtype: pl.DataType, column: object, name: str = "relevance") -> None:
    """Refuse a relevance column that is not numeric or boolean, naming it.

    Where the schema is known before the work (a frame, a parquet file, a
    Spark table), the entry point checks it here; inside a bare expression the
    type is only known at collect, where polars refuses it.
    """
    if dtype.is_numeric() or dtype == pl.Boolean or dtype == pl.Null:
        return
    shown = column if isinstance(column, str) else str(column)
    msg = (
        f"the {name} column {shown!r} must hold numeric or boolean labels, got {dtype}; "
        "map text labels to numbers first"
    )
    raise ValueError(msg)
