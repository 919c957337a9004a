"""How a statistic is declared: its formula, its parameters, and what it supports.

A statistic is a function of a :class:`~.ranked.Ranked` list (and of what to
return without relevant documents), with keyword parameters::

    @statistic(exact_average=True, top_k="k", k=check_k)
    def precision_statistic(ranked: Ranked, no_relevant: NoRelevant, *, k: int) -> pl.Expr:
        return hits_at_k(ranked, k) / k

The decorator records what the engine cannot see by itself:

- ``exact_average``: the statistic computes the exact expectation over tied
  scores when ``ranked.ties == 'average'`` (see :mod:`.ties`); the engine
  refuses ``ties='average'`` for every other statistic;
- ``top_k``: the parameter that bounds what it reads: nothing beyond that rank
  but R and the ideal ranking's top k, so that a single such statistic may rank
  only the top k rows of each group;
- ``judged_rows``: its value is the same on the list without the unjudged rows
  (a null raw label) wherever no label of 0 is relevant (then those rows are
  neither relevant nor judged, as in bpref), so the engine may rank only the
  judged rows for it;
- one validator per parameter, shared by every entry point (the metric
  functions, :func:`polars_rankmetrics.metrics`, ``evaluate()``, the CLI), so a
  bad value gets the same message everywhere.

What a statistic reads (the raw labels of a judged list, or only per-list
aggregates, which lets the engine share them) the engine finds out by building
it once against a recording vocabulary; nothing has to be declared for it.
:meth:`Statistic.bind` gives a :class:`Bound` statistic: parameters checked,
ready for :func:`polars_rankmetrics.engine.evaluate`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_rankmetrics._validate import NoRelevant, check_choice
from polars_rankmetrics.engine.ranked import Ranked, Threshold

Formula = Callable[..., pl.Expr]
"""``formula(ranked, no_relevant, **params)``: the statistic's expression over one list."""

Check = Callable[[Any, str], Any]
"""``check(value, name)``: the validated value, or ``ValueError`` naming the parameter."""


@dataclass(frozen=True)
class Statistic:
    """A formula over one ranked list, with its parameters and what it supports.

    Attributes
    ----------
    formula
        ``formula(ranked, no_relevant, **params) -> pl.Expr``.
    params
        A validator for each keyword parameter of the formula.
    exact_average
        Whether the formula gives the exact expectation over tied scores under
        ``ties='average'``; a callable decides from the parameters.
    top_k
        The parameter that bounds the ranks the formula reads (see the module
        docstring), or None.
    dtype
        The value's type.
    judged_rows
        Whether the value reads only the judged rows (see the module docstring).
    """

    formula: Formula
    params: Mapping[str, Check] = field(default_factory=dict)
    exact_average: bool | Callable[[Mapping[str, Any]], bool] = False
    top_k: str | None = None
    dtype: pl.DataType = field(default_factory=pl.Float64)
    judged_rows: bool = False

    def __call__(self, ranked: Ranked, no_relevant: NoRelevant = "null", **params: Any) -> pl.Expr:
        """Build the formula's expression (parameters unchecked)."""
        return self.formula(ranked, no_relevant, **params)

    def check(self, params: Mapping[str, Any], name: str) -> dict[str, Any]:
        """``params`` checked by their validators; ``name`` is for the messages."""
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            msg = f"{name}: unknown parameter(s) {unknown}; it takes {sorted(self.params)}"
            raise ValueError(msg)
        missing = sorted(set(self.required) - set(params))
        if missing:
            msg = f"{name}: missing parameter(s) {missing}"
            raise ValueError(msg)
        return {key: self.params[key](value, key) for key, value in params.items()}

    def bind(
        self,
        name: str,
        no_relevant: NoRelevant = "null",
        threshold: Threshold | None = None,
        **params: Any,
    ) -> Bound:
        """Check ``params`` and give the statistic named ``name`` (for its field and errors)."""
        check_choice(no_relevant, "no_relevant", NoRelevant)
        checked = self.check(params, name)
        return Bound(name, self, no_relevant, tuple(checked.items()), threshold)

    @functools.cached_property
    def _signature(self) -> inspect.Signature:
        """The formula's signature, read once (``bind`` checks parameters against it)."""
        return inspect.signature(self.formula)

    @property
    def defaults(self) -> dict[str, Any]:
        """The parameters with a default in the formula's signature, and their defaults."""
        signature = self._signature
        return {
            name: parameter.default
            for name, parameter in signature.parameters.items()
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY
            and parameter.default is not inspect.Parameter.empty
        }

    @property
    def required(self) -> list[str]:
        """The parameters without a default in the formula's signature."""
        signature = self._signature
        return [
            name
            for name, parameter in signature.parameters.items()
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY
            and parameter.default is inspect.Parameter.empty
        ]


def statistic(
    *,
    exact_average: bool | Callable[[Mapping[str, Any]], bool] = False,
    top_k: str | None = None,
    dtype: pl.DataType | None = None,
    judged_rows: bool = False,
    **params: Check,
) -> Callable[[Formula], Statistic]:
    """Declare a statistic: decorate its formula (see the module docstring)."""

    def declare(formula: Formula) -> Statistic:
        return Statistic(formula, params, exact_average, top_k, dtype or pl.Float64(), judged_rows)

    return declare


@dataclass(frozen=True)
class Bound:
    """A statistic with its parameters checked: one field of the engine's result.

    ``threshold``, when given, replaces the ranking's for this statistic alone
    (ir_measures' per-measure ``rel=2``).
    """

    name: str
    statistic: Statistic
    no_relevant: NoRelevant
    params: tuple[tuple[str, Any], ...]
    threshold: Threshold | None = None

    @property
    def keywords(self) -> dict[str, Any]:
        """The parameters, as keyword arguments of the formula."""
        return dict(self.params)

    @property
    def exact_average(self) -> bool:
        """Whether the statistic is exact under ``ties='average'`` with these parameters."""
        exact = self.statistic.exact_average
        return exact(self.keywords) if callable(exact) else exact

    @property
    def top_k(self) -> int | None:
        """The rank beyond which the statistic reads nothing (see :class:`Statistic`)."""
        if self.statistic.top_k is None:
            return None
        k = self.keywords.get(self.statistic.top_k)
        return None if k is None else int(k)

    def build(self, ranked: Ranked) -> pl.Expr:
        """The expression over ``ranked``, cast to the statistic's type."""
        return self.statistic.formula(ranked, self.no_relevant, **self.keywords).cast(
            self.statistic.dtype
        )
