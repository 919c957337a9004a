"""Orderings of systems and of queries: ranking agreement, QPP, discriminative power, swap rate.

- :func:`system_scores`: each run's mean measure under two qrels or two
  measures, from :func:`polars_rankmetrics.evaluate`, in one call.
- :func:`ranking_agreement`: every rank correlation between two such orderings.
- :func:`qpp_evaluation`: a query performance predictor against a per-query
  metric (Pearson, Spearman, Kendall tau-b, sMARE).
- :func:`discriminative_power` (Sakai 2006): the share of system pairs a paired
  test separates at level ``alpha``; :func:`swap_rate` (Voorhees and Buckley
  2002): how often two disjoint topic subsets order a pair of systems oppositely.

References
----------
- T. Sakai, "Evaluating Evaluation Metrics based on the Bootstrap", SIGIR 2006.
- E. M. Voorhees and C. Buckley, "The Effect of Topic Set Size on Retrieval
  Experiment Error", SIGIR 2002.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias, get_args

import numpy as np
import polars as pl

from polars_rankmetrics.comparisons.comparison import _check_columns, check_finite
from polars_rankmetrics.comparisons.significance import (
    bootstrap_test,
    paired_t_test,
    randomization_test,
)
from polars_rankmetrics.meta_evaluation.correlation import (
    check_finite_scores,
    check_no_ties,
    kendall_tau,
    paired_scores,
    pearson,
    smare,
    spearman,
)
from polars_rankmetrics.meta_evaluation.correlation import tau_ap as tau_ap_correlation

PairedTest: TypeAlias = Literal["t", "randomization", "bootstrap"]
"""The library's paired tests (:mod:`polars_rankmetrics.comparisons.significance`)."""


def _named_runs(runs: Mapping[str, object] | Sequence[object]) -> dict[str, object]:
    if isinstance(runs, Mapping):
        named = {str(name): run for name, run in runs.items()}
    else:
        named = {}
        for position, run in enumerate(runs, start=1):
            name = Path(run).name if isinstance(run, str | Path) else f"run{position}"
            named[name if name not in named else f"{name}#{position}"] = run
    if not named:
        msg = "`runs` is empty: give at least two runs to order"
        raise ValueError(msg)
    return named


def system_scores(
    qrels: object,
    runs: Mapping[str, object] | Sequence[object],
    measure: str,
    *,
    other_qrels: object | None = None,
    other_measure: str | None = None,
) -> pl.DataFrame:
    """
    Each run's mean ``measure`` under two settings: ``system, score_a, score_b``.

    ``score_a`` is the mean of ``measure`` under ``qrels``; ``score_b`` the
    mean of ``other_measure`` (default: ``measure``) under ``other_qrels``
    (default: ``qrels``), both from :func:`polars_rankmetrics.evaluate` with
    its defaults (queries in both the run and the qrels).

    Parameters
    ----------
    qrels
        The judgements of the first ordering.
    runs
        The systems: a mapping from name to run, or a sequence of runs
        (a path is named by its file name, anything else ``run1``, ...).
    measure
        A measure name :func:`polars_rankmetrics.evaluate` knows.
    other_qrels
        The judgements of the second ordering.
    other_measure
        The measure of the second ordering.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import system_scores
    >>> qrels = {"q1": {"a": 1, "b": 0}}
    >>> runs = {"bm25": {"q1": {"a": 2.0, "b": 1.0}}, "dense": {"q1": {"a": 1.0, "b": 2.0}}}
    >>> system_scores(qrels, runs, "RR", other_measure="P@1")
    shape: (2, 3)
    ┌────────┬─────────┬─────────┐
    │ system ┆ score_a ┆ score_b │
    │ ---    ┆ ---     ┆ ---     │
    │ str    ┆ f64     ┆ f64     │
    ╞════════╪═════════╪═════════╡
    │ bm25   ┆ 1.0     ┆ 1.0     │
    │ dense  ┆ 0.5     ┆ 0.0     │
    └────────┴─────────┴─────────┘
    """
    from polars_rankmetrics.evaluation.evaluate import evaluate

    second_qrels = qrels if other_qrels is None else other_qrels
    second_measure = measure if other_measure is None else other_measure
    rows = []
    for name, run in _named_runs(runs).items():
        first = evaluate(qrels, run, [measure]).aggregate.item(0, measure)
        second = evaluate(second_qrels, run, [second_measure]).aggregate.item(0, second_measure)
        rows.append((name, float(first), float(second)))
    schema = {"system": pl.String, "score_a": pl.Float64, "score_b": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def ranking_agreement(
    scores: Sequence[float] | pl.Series,
    other: Sequence[float] | pl.Series,
    *,
    tau_ap: bool = True,
    names: Sequence[str] | None = None,
) -> dict[str, float]:
    """
    Every rank correlation between two orderings of the same systems.

    Returns ``n_systems``, Kendall's ``tau_a`` and ``tau_b``, ``spearman``,
    ``pearson`` and tau_AP (``tau_ap_a``: ``scores`` as the reference and
    ``other`` top-weighted; ``tau_ap_b``: the reverse; ``tau_ap``: their
    mean). Undefined values are said, as the single functions say them:
    fewer than two systems, a side giving every system the same score, NaN or
    (for Pearson's r) ±inf raise ``ValueError``, and so do tied scores on
    either side while ``tau_ap`` is asked (it is undefined there, as
    :func:`~polars_rankmetrics.meta_evaluation.correlation.tau_ap` says);
    ``tau_ap=False`` leaves the three tau_AP keys out.

    Parameters
    ----------
    scores, other
        One score per system, aligned (e.g. the ``score_a`` and ``score_b``
        columns of :func:`system_scores`).
    tau_ap
        Compute tau_AP (which refuses ties); False leaves it out.
    names
        The systems' names, aligned, to name tied systems in the error
        (default: their positions).

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import ranking_agreement
    >>> agreement = ranking_agreement([0.31, 0.28, 0.25, 0.22], [0.40, 0.30, 0.41, 0.20])
    >>> {name: round(value, 4) for name, value in agreement.items()}
    {'n_systems': 4.0, 'tau_a': 0.3333, 'tau_b': 0.3333, 'spearman': 0.4, 'pearson': 0.6426,
     'tau_ap_a': 0.0, 'tau_ap_b': 0.3333, 'tau_ap': 0.1667}
    """
    size = np.asarray(scores).size
    if size < 2 and np.shape(scores) == np.shape(other):
        msg = f"ranking agreement needs at least two systems, got {size}"
        raise ValueError(msg)
    first, second = paired_scores(scores, other, ("scores", "other"))
    check_finite_scores(first, "scores")
    check_finite_scores(second, "other")
    if not isinstance(tau_ap, bool):
        msg = f"`tau_ap` must be a bool, got {tau_ap!r}"
        raise ValueError(msg)
    items = None if names is None else [str(name) for name in names]
    if items is not None and len(items) != first.size:
        msg = f"`names` must name each of the {first.size} systems, got {len(items)} names"
        raise ValueError(msg)
    result = {
        "n_systems": float(first.size),
        "tau_a": kendall_tau(first, second, variant="a"),
        "tau_b": kendall_tau(first, second),
        "spearman": spearman(first, second),
        "pearson": pearson(first, second),
    }
    if tau_ap:
        check_no_ties(first, "scores", items, what="systems")
        check_no_ties(second, "other", items, what="systems")
        result["tau_ap_a"] = tau_ap_correlation(first, second)
        result["tau_ap_b"] = tau_ap_correlation(second, first)
        result["tau_ap"] = (result["tau_ap_a"] + result["tau_ap_b"]) / 2.0
    return result


def qpp_evaluation(frame: pl.DataFrame, predictor: str, metric: str) -> pl.DataFrame:
    """
    How well a query performance predictor predicts a per-query metric.

    One row: ``n_queries``, ``pearson``, ``spearman``, ``kendall`` (tau-b) and
    ``smare`` between the two columns (rows with a null in either are left
    out). Equal to ``scipy.stats.pearsonr``, ``spearmanr`` and ``kendalltau``;
    sMARE as Faggioli et al. (2021) define it (lower is better). A constant
    column raises ``ValueError``: every correlation is undefined.

    Parameters
    ----------
    frame
        One row per query.
    predictor
        The column of predicted difficulty (higher: easier).
    metric
        The column of actual effectiveness (e.g. AP).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.meta_evaluation import qpp_evaluation
    >>> frame = pl.DataFrame({"clarity": [0.1, 0.4, 0.2, 0.9], "ap": [0.2, 0.3, 0.5, 0.8]})
    >>> qpp_evaluation(frame, "clarity", "ap")
    shape: (1, 5)
    ┌───────────┬──────────┬──────────┬──────────┬───────┐
    │ n_queries ┆ pearson  ┆ spearman ┆ kendall  ┆ smare │
    │ ---       ┆ ---      ┆ ---      ┆ ---      ┆ ---   │
    │ i64       ┆ f64      ┆ f64      ┆ f64      ┆ f64   │
    ╞═══════════╪══════════╪══════════╪══════════╪═══════╡
    │ 4         ┆ 0.849591 ┆ 0.8      ┆ 0.666667 ┆ 0.125 │
    └───────────┴──────────┴──────────┴──────────┴───────┘
    """
    for column in (predictor, metric):
        if column not in frame.columns:
            msg = f"no column {column!r} in the frame (columns: {frame.columns})"
            raise ValueError(msg)
    both = frame.select(predictor, metric).drop_nulls()
    x = both[predictor].to_numpy().astype(np.float64)
    y = both[metric].to_numpy().astype(np.float64)
    for values, column in ((x, predictor), (y, metric)):
        if values.size >= 1 and (values == values[0]).all():
            msg = f"column {column!r} is constant: its correlation with anything is undefined"
            raise ValueError(msg)
    return pl.DataFrame(
        {
            "n_queries": [both.height],
            "pearson": [pearson(x, y)],
            "spearman": [spearman(x, y)],
            "kendall": [kendall_tau(x, y)],
            "smare": [smare(x, y)],
        }
    )


def _matrix(
    per_query: pl.DataFrame, system: str, query: str, value: str
) -> tuple[list[str], np.ndarray]:
    for column in (system, query, value):
        if column not in per_query.columns:
            msg = f"no column {column!r} in `per_query` (columns: {per_query.columns})"
            raise ValueError(msg)
    _check_columns(per_query, system, query)
    check_finite(per_query, value, system=system, query=query)
    wide = per_query.pivot(on=system, index=query, values=value, aggregate_function=None).sort(
        query
    )
    names = sorted(c for c in wide.columns if c != query)
    if len(names) < 2:
        msg = f"comparing systems needs at least two systems in `{system}`, got {len(names)}"
        raise ValueError(msg)
    matrix = wide.select(names).to_numpy().astype(np.float64)
    if np.isnan(matrix).any():
        msg = f"every system needs a `{value}` for every query: some (system, query) are missing"
        raise ValueError(msg)
    return names, matrix


@dataclass(frozen=True)
class Discrimination:
    """The result of :func:`discriminative_power`.

    Attributes
    ----------
    power
        The share of system pairs whose p-value is below ``alpha``.
    pairs
        ``system_a, system_b, mean_difference, p_value, significant``: one row
        per unordered pair (``system_a < system_b``), ``mean_difference`` = a - b.
    """

    power: float
    pairs: pl.DataFrame


def discriminative_power(
    per_query: pl.DataFrame,
    *,
    test: PairedTest = "t",
    alpha: float = 0.05,
    system: str = "system",
    query: str = "query",
    value: str = "value",
    n_resamples: int = 10_000,
    seed: int = 0,
) -> Discrimination:
    """
    Discriminative power (Sakai 2006): the share of system pairs a paired test separates.

    Every unordered pair of systems is tested on the queries (each system
    needs one finite value for every query, and there must be two queries at
    least), with one of the library's paired tests; a pair is separated when
    its two-sided p-value is below ``alpha``. On very few topics the bootstrap
    test's p-value can sit at its floor ``1 / (n_resamples + 1)`` (see
    :func:`~polars_rankmetrics.comparisons.significance.bootstrap_test`), and
    the randomization test's cannot fall below ``2 / 2**n``.

    Parameters
    ----------
    per_query
        Long frame: one row per (system, query) with the measure's value.
    test : {'t', 'randomization', 'bootstrap'}
        :func:`~polars_rankmetrics.comparisons.significance.paired_t_test`,
        ``randomization_test`` or ``bootstrap_test``.
    alpha
        The significance level, in (0, 1).
    system, query, value
        The column names.
    n_resamples, seed
        For the resampling tests.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.meta_evaluation import discriminative_power
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 5 + ["b"] * 5 + ["c"] * 5,
    ...     "query": [1, 2, 3, 4, 5] * 3,
    ...     "value": [0.9, 0.8, 0.85, 0.95, 0.9, 0.1, 0.2, 0.15, 0.1, 0.2]
    ...     + [0.12, 0.18, 0.2, 0.1, 0.22],
    ... })
    >>> discriminative_power(per_query).power
    0.6666666666666666
    """
    if test not in get_args(PairedTest):
        msg = f"`test` must be one of 't', 'randomization', 'bootstrap', got {test!r}"
        raise ValueError(msg)
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0.0 < alpha < 1.0:
        msg = f"`alpha` must be a number in (0, 1), got {alpha!r}"
        raise ValueError(msg)
    names, matrix = _matrix(per_query, system, query, value)
    if matrix.shape[0] < 2:
        msg = f"a paired test needs at least two topics in `{query}`, got {matrix.shape[0]}"
        raise ValueError(msg)
    run_test: Callable[[np.ndarray, np.ndarray], float]
    if test == "t":
        run_test = paired_t_test
    elif test == "randomization":
        run_test = lambda a, b: randomization_test(a, b, n_resamples=n_resamples, seed=seed)  # noqa: E731
    else:
        run_test = lambda a, b: bootstrap_test(a, b, n_resamples=n_resamples, seed=seed)  # noqa: E731
    rows = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            p_value = run_test(matrix[:, i], matrix[:, j])
            difference = float((matrix[:, i] - matrix[:, j]).mean())
            rows.append((names[i], names[j], difference, p_value, bool(p_value < alpha)))
    schema = {
        "system_a": pl.String,
        "system_b": pl.String,
        "mean_difference": pl.Float64,
        "p_value": pl.Float64,
        "significant": pl.Boolean,
    }
    pairs = pl.DataFrame(rows, schema=schema, orient="row")
    power = float(np.mean([row[4] for row in rows]))
    return Discrimination(power=power, pairs=pairs)


def swap_rate(
    per_query: pl.DataFrame,
    *,
    subset_size: int | None = None,
    n_trials: int = 1000,
    seed: int = 0,
    system: str = "system",
    query: str = "query",
    value: str = "value",
) -> float:
    """
    The swap rate (Voorhees and Buckley 2002) of a measure over a set of systems.

    Each trial draws two disjoint random subsets of ``subset_size`` queries
    (default: half of them, rounded down) and, for every unordered pair of
    systems, compares the sign of their mean difference on each subset; a
    swap is a pair ordered one way on one subset and the other way on the
    other (a zero difference is no swap). The rate is swaps / (trials x
    pairs). Deterministic for a given ``seed`` (``numpy.random.default_rng``).

    Parameters
    ----------
    per_query
        Long frame: one row per (system, query) with the measure's value.
    subset_size
        Queries in each subset, at most half of them.
    n_trials
        The number of random splits.
    seed
        The random seed.
    system, query, value
        The column names.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.meta_evaluation.systems import swap_rate
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4,
    ...     "query": [1, 2, 3, 4] * 2,
    ...     "value": [0.9, 0.8, 0.7, 0.6, 0.1, 0.2, 0.3, 0.4],
    ... })
    >>> swap_rate(per_query, n_trials=100)
    0.0
    """
    names, matrix = _matrix(per_query, system, query, value)
    n_queries = matrix.shape[0]
    size = n_queries // 2 if subset_size is None else subset_size
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= n_queries // 2:
        half = n_queries // 2
        msg = f"`subset_size` must be an int in [1, {half}] (half the queries), got {size!r}"
        raise ValueError(msg)
    if isinstance(n_trials, bool) or not isinstance(n_trials, int) or n_trials < 1:
        msg = f"`n_trials` must be a positive int, got {n_trials!r}"
        raise ValueError(msg)
    rng = np.random.default_rng(seed)
    order = rng.random((n_trials, n_queries)).argsort(axis=1)
    first = matrix[order[:, :size]].mean(axis=1)
    second = matrix[order[:, size : 2 * size]].mean(axis=1)
    upper = np.triu_indices(len(names), k=1)
    sign_first = np.sign(first[:, :, None] - first[:, None, :])[:, upper[0], upper[1]]
    sign_second = np.sign(second[:, :, None] - second[:, None, :])[:, upper[0], upper[1]]
    return float((sign_first * sign_second < 0).mean())
