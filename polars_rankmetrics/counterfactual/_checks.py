"""The checks of a log's columns, shared by every estimator of the family.

A parameter that is wrong (not a column name or an expression) raises
``ValueError`` when the expression is built. Data that is wrong is found at
collect: each estimator counts its bad rows in the same pass as its value
(:func:`Check`), and one Python call over the aggregated counts raises
``ValueError`` naming the column and the problem (:func:`checked`). A column
of the wrong type is refused by :func:`numeric`, an identity over each batch
that only looks at the batch's type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankmetrics._validate import as_expr


@dataclass(frozen=True)
class Column:
    """A column parameter: its expression and how a message names it."""

    expr: pl.Expr
    label: str


@dataclass(frozen=True)
class Check:
    """A count of bad rows, computed with the value; ``message`` if it is not 0.

    ``message`` may name the count as ``{n}``. Several checks computed in one
    pass share one Check: ``count`` is then a struct of counts and ``message``
    a tuple of messages, one per field, reported in that order.
    """

    count: pl.Expr
    message: str | tuple[str, ...]


def column(value: object, parameter: str) -> Column:
    """The column a parameter names (a column name or an expression)."""
    expr = as_expr(value, parameter)
    shown = repr(value) if isinstance(value, str) else "(an expression)"
    return Column(expr, f"the `{parameter}` column {shown}")


def _numeric_batch(label: str, integer: bool) -> Callable[[pl.Series], pl.Series]:
    def check(batch: pl.Series) -> pl.Series:
        dtype = batch.dtype
        ok = dtype.is_integer() if integer else dtype.is_numeric() or dtype == pl.Boolean
        if not ok and dtype != pl.Null:
            kind = "integers" if integer else "numbers (or booleans)"
            msg = f"{label} must hold {kind}, got {dtype}"
            raise ValueError(msg)
        return batch.cast(pl.Int64 if integer else pl.Float64)

    return check


def numeric(col: Column, *, integer: bool = False) -> pl.Expr:
    """The column as Float64 (or in its integer type); another type fails at collect.

    The check looks at each batch's type only, so it costs one Python call per
    batch, not per row.
    """
    check = _numeric_batch(col.label, integer)
    dtype = pl.Int64 if integer else pl.Float64
    return col.expr.map_batches(check, return_dtype=dtype, is_elementwise=True)


def finite_checks(values: pl.Expr, label: str) -> list[Check]:
    """Nulls and NaN refused."""
    return [
        Check((values.is_null() | values.is_nan()).sum(), f"{label} holds null or NaN ({{n}} rows)")
    ]


def propensity_checks(values: pl.Expr, label: str, *, zero: bool) -> list[Check]:
    """Null, NaN, and a value outside (0, 1] (``zero=True``: [0, 1]) refused."""
    low = "[0, 1]" if zero else "(0, 1]"
    outside = (values < 0) if zero else (values <= 0)
    return [
        *finite_checks(values, label),
        Check(
            (outside | (values > 1)).sum(),
            f"{label} must hold probabilities in {low} ({{n}} rows outside)",
        ),
    ]


def checked(value: pl.Expr, checks: Sequence[Check], name: str) -> pl.Expr:
    """``value``, or ``ValueError`` at collect with the first check that counts a row."""
    fields = [value.alias("value"), *(c.count.alias(f"check_{i}") for i, c in enumerate(checks))]
    messages = [c.message for c in checks]

    def raise_first(batch: pl.Series) -> pl.Series:
        frame = batch.struct.unnest()
        for i, message in enumerate(messages):
            counts = frame[f"check_{i}"]
            if isinstance(message, str):
                pairs = [(counts, message)]
            else:
                pairs = list(zip(counts.struct.unnest().iter_columns(), message, strict=True))
            for count, text in pairs:
                bad = count.fill_null(0)
                if bool((bad > 0).any()):
                    raise ValueError(text.format(n=int(bad.max())))  # type: ignore[arg-type]
        return frame["value"]

    return (
        pl.struct(fields)
        .map_batches(raise_first, return_dtype=pl.Float64, is_elementwise=True)
        .alias(name)
    )
