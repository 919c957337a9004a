"""``optimize_fusion``: ranx's grid search over a fusion method's weights or parameter."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

import polars_rankmetrics.fusion.normalization as norms
from polars_rankmetrics.evaluation import inputs
from polars_rankmetrics.evaluation.evaluate import evaluate
from polars_rankmetrics.evaluation.query_sets import QuerySet, check_query_set
from polars_rankmetrics.fusion.context import Context
from polars_rankmetrics.fusion.fuse import (
    RANK_BASED,
    WEIGHTED,
    Method,
    check_method,
    check_norm,
    check_number,
    check_params,
    finish,
)
from polars_rankmetrics.fusion.methods import METHODS
from polars_rankmetrics.fusion.normalize_runs import normalize
from polars_rankmetrics.fusion.runs import Runs, read_runs

_SCALAR_GRIDS: dict[str, tuple[str, float, float, float]] = {
    # method: (parameter, ranx's min, max, step)
    "gmnz": ("gamma", 0.01, 1.0, 0.01),
    "logn_isr": ("sigma", 0.01, 1.0, 0.01),
    "rbc": ("phi", 0.01, 1.0, 0.01),
}
_INTEGER_GRIDS: dict[str, tuple[str, int, int, int]] = {
    "rrf": ("k", 10, 100, 10),
    "probfuse": ("n_segments", 1, 100, 1),
    "slidefuse": ("w", 1, 100, 1),
}


MAX_TRIALS = 100_000
"""The most trials a grid may hold (each fuses and evaluates every run)."""


def _digits(step: float) -> int:
    """Ranx's rounding: the number of digits after the point of ``str(step)``."""
    return str(step)[::-1].find(".")


def _float_grid(low: float, high: float, step: float) -> list[float]:
    digits = _digits(step)
    return [round(float(x), digits) for x in np.arange(low, high + step, step)]


def _weight_grid(step: float, n_runs: int) -> list[tuple[float, ...]]:
    """Ranx's weights: every combination of ``0, step, ..., 1`` (rounded) summing to exactly 1.0."""
    values = _float_grid(0, 1, step)
    return [combo for combo in itertools.product(values, repeat=n_runs) if sum(combo) == 1.0]


def grid(
    method: str, n_runs: int, *, step: float | None = None, **bounds: float
) -> tuple[str, list[Any]]:
    """The parameter ranx searches for ``method`` and its trial values, in ranx's order.

    Refused up front, naming ``step`` or the bound: a grid without a trial (a
    weight step whose multiples never sum to 1, ``min_k`` above ``max_k``), and
    a grid holding a value :func:`~.fuse.fuse` refuses (``min_sigma=-1``,
    ``min_n_segments=0``), so that ``fuse(**best)`` accepts what it returns.
    """
    if method in WEIGHTED:
        if bounds:
            msg = f"method {method!r} searches weights; it takes `step`, not {sorted(bounds)}"
            raise ValueError(msg)
        chosen = 0.1 if step is None else step
        if not 0 < check_number(chosen, "step") <= 1:
            msg = f"`step` must be in (0, 1] for weights, got {chosen!r}"
            raise ValueError(msg)
        if (1 / chosen + 2) ** n_runs > MAX_TRIALS * 10:  # the combinations enumerated
            msg = f"`step`={step!r} for {n_runs} runs enumerates too many weight combinations"
            raise ValueError(msg)
        weights = _weight_grid(chosen, n_runs)
        if not weights:
            msg = (
                f"`step`={step!r} gives no {n_runs} weights among 0, {step}, ... that sum to "
                "exactly 1.0; use a step that divides 1 (0.1, 0.2, 0.25, 0.5)"
            )
            raise ValueError(msg)
        return "weights", weights
    if method in _SCALAR_GRIDS:
        name, low, high, default = _SCALAR_GRIDS[method]
    elif method in _INTEGER_GRIDS:
        name, low, high, default = _INTEGER_GRIDS[method]
    else:
        searchable = sorted([*WEIGHTED, *_SCALAR_GRIDS, *_INTEGER_GRIDS])
        msg = (
            f"method {method!r} has nothing to optimise (trained methods take `train_qrels` "
            f"in fuse); methods with a grid: {', '.join(searchable)}"
        )
        raise ValueError(msg)
    allowed = {f"min_{name}", f"max_{name}"}
    unknown = sorted(set(bounds) - allowed)
    if unknown:
        msg = f"method {method!r} takes {sorted(allowed)} and `step`, not {unknown}"
        raise ValueError(msg)
    if method in _INTEGER_GRIDS and method != "rrf" and step is not None:
        msg = f"method {method!r} tries every integer; it takes no `step`"
        raise ValueError(msg)
    for key, value in bounds.items():
        check_number(value, key)
    given = dict(bounds)  # as given: ranx rounds to the digits of str(step)
    chosen = default if step is None else step
    if check_number(chosen, "step") <= 0:
        msg = f"`step` must be > 0, got {chosen!r}"
        raise ValueError(msg)
    low = given.get(f"min_{name}", low)
    high = given.get(f"max_{name}", high)
    if low > high:
        msg = f"`min_{name}` ({low!r}) is above `max_{name}` ({high!r}): the grid is empty"
        raise ValueError(msg)
    if (high - low) / chosen >= MAX_TRIALS:
        msg = f"`step`={chosen!r} from {low!r} to {high!r} makes over {MAX_TRIALS:,} trials"
        raise ValueError(msg)
    if method in _INTEGER_GRIDS:
        for key, value in (("step", chosen), *given.items()):
            if value != int(value):
                msg = f"`{key}` must be an integer for the grid of `{name}`, got {value!r}"
                raise ValueError(msg)
        trials: list[Any] = list(range(int(low), int(high) + 1, int(chosen)))
    else:
        trials = _float_grid(low, high, chosen)
    for value in trials:  # fuse's own rules, on every value tried
        try:
            check_params(method, {name: value})
        except ValueError as error:
            msg = (
                f"the grid of `{name}` (`min_{name}`={low!r}, `max_{name}`={high!r}, "
                f"`step`={chosen!r}) tries {value!r}, which fuse refuses: {error}"
            )
            raise ValueError(msg) from None
    return name, trials


def _fused(method: str, frame: pl.DataFrame, read: Runs, context: Context, qrels: Any) -> Any:
    if method in ("probfuse", "slidefuse"):
        from polars_rankmetrics.fusion.trained import fuse_trained

        return fuse_trained(method, frame.lazy(), read, "none", context, qrels, None)
    return METHODS[method](frame.lazy(), context)


def optimize_fusion(
    qrels: object,
    runs: object,
    *,
    method: Method = "rrf",
    norm: str | None = "min-max",
    metric: str = "ndcg",
    queries: QuerySet = "qrels",
    step: float | None = None,
    return_optimization_report: bool = False,
    **bounds: float,
) -> dict[str, Any] | tuple[dict[str, Any], pl.DataFrame]:
    """
    Search ranx's grid for the best weights or parameter of a fusion method.

    Every trial fuses the runs (as :func:`polars_rankmetrics.fuse`, after the
    normalisation ``norm``) and scores the fused run with ``metric``, the mean
    over the qrels' queries (:func:`polars_rankmetrics.evaluate` with
    ``complete=True``). The best trial is the last one whose score is at least
    the best so far, as in ranx (so among equal scores, the last trial wins).

    The grids are ranx's:

    - weights (``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse``, ``w_condorcet``):
      every combination of ``0, step, ..., 1`` (``step`` 0.1 by default, values
      rounded to its digits) whose sum is exactly ``1.0`` in floating point, in
      ``itertools.product`` order;
    - ``k`` of ``rrf``: 10, 20, ..., 100 (``min_k``, ``max_k``, ``step``);
    - ``gamma`` (``gmnz``), ``sigma`` (``logn_isr``), ``phi`` (``rbc``):
      0.01 to 1.0 by 0.01 (``min_<name>``, ``max_<name>``, ``step``);
    - ``n_segments`` (``probfuse``) and ``w`` (``slidefuse``): 1 to 100, each
      trained on ``qrels`` and the runs themselves.

    Parameters
    ----------
    qrels
        The judgements (any input :func:`polars_rankmetrics.evaluate` reads).
    runs
        The runs, as for :func:`polars_rankmetrics.fuse`.
    method
        A method with weights or a parameter (see above); ``'rrf'`` (its ``k``) by
        default, as :func:`polars_rankmetrics.fuse` and ``rankmetrics fuse --optimize``.
    norm
        The normalisation, as for :func:`polars_rankmetrics.fuse`.
    metric
        The measure to maximise, by any name the registry knows (``ndcg``,
        ranx's ``ndcg@10``, trec_eval's ``map``, ...). The default ``'ndcg'``
        (ranx's) is over the whole fused run: name a cutoff to optimise the top.
    queries : {'qrels', 'trec_eval', 'relevant', 'run'}
        The queries each trial's mean covers, as for
        :func:`polars_rankmetrics.evaluate`; ``'qrels'`` (default): every query
        of the qrels, a query the fused run lacks scoring 0 (trec_eval's ``-c``).
    step
        The grid's step (see above).
    return_optimization_report
        Also return every trial's score as a frame (the parameter, ``score``).
    **bounds
        ``min_<parameter>`` and ``max_<parameter>`` of a scalar grid.

    Returns
    -------
    dict or (dict, pl.DataFrame)
        ``{parameter: best value}`` (ranx's form, ready for ``fuse(**best)``),
        and with ``return_optimization_report`` the table of trials.

    Examples
    --------
    >>> import polars_rankmetrics as rm
    >>> qrels = {"q1": {"d1": 1, "d4": 1}, "q2": {"d2": 1}}
    >>> bm25 = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d2": 2.0, "d5": 1.0}}
    >>> dense = {"q1": {"d4": 0.9, "d3": 0.8}, "q2": {"d5": 0.9, "d2": 0.1}}
    >>> best, table = rm.optimize_fusion(
    ...     qrels, [bm25, dense], method="wsum", step=0.25, return_optimization_report=True
    ... )
    >>> best  # two trials score best: the last wins, as in ranx
    {'weights': [1.0, 0.0]}
    >>> table
    shape: (5, 2)
    ┌──────────────┬──────────┐
    │ weights      ┆ score    │
    │ ---          ┆ ---      │
    │ list[f64]    ┆ f64      │
    ╞══════════════╪══════════╡
    │ [0.0, 1.0]   ┆ 0.754073 │
    │ [0.25, 0.75] ┆ 0.815465 │
    │ [0.5, 0.5]   ┆ 0.815465 │
    │ [0.75, 0.25] ┆ 0.95986  │
    │ [1.0, 0.0]   ┆ 0.95986  │
    └──────────────┴──────────┘
    """
    chosen = check_method(method)
    norm = check_norm(norm)
    check_query_set(queries)
    read = read_runs(runs)
    if read.n_systems < 2:
        msg = "`runs` must hold at least two runs to optimise their fusion"
        raise ValueError(msg)
    name, trials = grid(chosen, read.n_systems, step=step, **bounds)
    judged = inputs.read_qrels(qrels)
    frame = normalize(read, norm)
    if chosen in RANK_BASED:
        frame = frame.with_columns(rank=norms.run_rank().over("system", "query"))
    collected = frame.collect()
    scores: list[float] = []
    for value in trials:
        weights = tuple(value) if name == "weights" else None
        params: Mapping[str, float] = {} if name == "weights" else {name: value}
        context = Context(read.n_systems, weights, params)
        fused = finish(_fused(chosen, collected, read, context, judged)).collect()
        result = evaluate(judged, fused, metric, queries=queries)
        scores.append(float(result.aggregate.item(0, 0)))
    best_index = 0
    best_score = 0.0
    for index, score in enumerate(scores):
        if score >= best_score:  # ranx's rule: the last of equal scores wins
            best_index, best_score = index, score
    best = {name: list(trials[best_index]) if name == "weights" else trials[best_index]}
    if not return_optimization_report:
        return best
    values: Any = [list(t) for t in trials] if name == "weights" else trials
    table = pl.DataFrame({name: values, "score": scores})
    return best, table
