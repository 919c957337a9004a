"""Compare every pair of systems, or several baselines with the rest: :func:`compare_pairs`.

One table of tests, :data:`TESTS`: the pairwise tests (paired t, Wilcoxon, sign,
randomization, bootstrap) take two aligned vectors and return a p-value, and
the multiple-comparison correction then runs over every pair of a metric; the
Tukey tests take the whole (system x query) matrix and return p-values that
already hold the family-wise error rate over all pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeAlias

import numpy as np
import polars as pl

from polars_rankmetrics._validate import check_choice, check_seed
from polars_rankmetrics.comparisons.comparison import Missing, _check_alpha
from polars_rankmetrics.comparisons.corrections import Method, check_method, correct
from polars_rankmetrics.comparisons.grid import grid
from polars_rankmetrics.comparisons.rank_tests import (
    WilcoxonMethod,
    ZeroMethod,
    sign_test,
    wilcoxon_test,
)
from polars_rankmetrics.comparisons.significance import (
    FloatArray,
    bootstrap_test,
    check_n_resamples,
    paired_t_test,
    randomization_test,
)
from polars_rankmetrics.comparisons.tukey import (
    randomised_tukey_hsd,
    tukey_hsd,
    tukey_hsd_two_way,
)

PairTest: TypeAlias = Literal[
    "t",
    "wilcoxon",
    "sign",
    "randomization",
    "bootstrap",
    "tukey",
    "tukey-two-way",
    "randomised-tukey",
]
"""A test of two systems' difference, or a Tukey HSD over all of them."""

PAIRWISE: dict[str, str] = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "randomization": "Fisher's randomization test",
    "bootstrap": "paired bootstrap test",
}
"""The tests of one pair at a time, and their names in reports."""

FAMILY: dict[str, str] = {
    "tukey": "Tukey's HSD test",
    "tukey-two-way": "two-way Tukey HSD test",
    "randomised-tukey": "randomised Tukey HSD test",
}
"""The tests of all pairs at once (family-wise by construction), and their names."""

TESTS: dict[str, str] = {**PAIRWISE, **FAMILY}
"""Every test of :func:`compare_pairs`, and its name in reports."""

PAIRS_SCHEMA: dict[str, Any] = {
    "metric": pl.String,
    "system_a": pl.String,
    "system_b": pl.String,
    "mean_a": pl.Float64,
    "mean_b": pl.Float64,
    "delta": pl.Float64,
    "p_value": pl.Float64,
    "p_value_adjusted": pl.Float64,
    "significant": pl.Boolean,
    "better": pl.String,
    "n_queries": pl.Int64,
    "note": pl.String,
}
"""The columns of :func:`compare_pairs`'s result."""


def _note(test: str, differences: FloatArray) -> str | None:
    """Why a p-value is degenerate, or None."""
    n = differences.size
    if n < 2:
        return f"{n} paired {'query' if n == 1 else 'queries'}: the test is undefined"
    if test == "t" and np.ptp(differences) <= 1e-12 * np.abs(differences).max():
        if not differences.any():
            return "every difference is 0: t is undefined (zero variance); p set to 1"
        return "the differences are constant and non-zero: t is undefined (zero variance)"
    if test == "wilcoxon" and not differences.any():
        return (
            "every difference is 0: Wilcoxon's test is degenerate "
            "(as in scipy, p is 1 up to 13 queries, else undefined)"
        )
    if test == "sign" and not differences.any():
        return "every difference is 0: no query favours either system; p set to 1"
    if test == "bootstrap" and _beyond_resamples(differences):
        return (
            "no resample can reach the observed mean difference (it exceeds every "
            "centred difference): p is the floor 1 / (n_resamples + 1)"
        )
    return None


def _beyond_resamples(differences: FloatArray) -> bool:
    """Whether no bootstrap resample's mean reaches ``|mean(d)|`` (the bootstrap test's floor).

    A resampled mean of the centred differences is at most their largest absolute
    value; the comparison uses the bootstrap test's own slack.
    """
    mean = differences.mean()
    slack = 1e-10 * float(np.abs(differences).sum()) / differences.size
    return bool(np.abs(differences - mean).max() < abs(mean) - slack)


def _pairwise_p(
    test: str,
    values: FloatArray,
    pairs: list[tuple[int, int]],
    *,
    n_resamples: int,
    seed: int,
    zero_method: ZeroMethod,
    continuity: bool,
    wilcoxon_method: WilcoxonMethod,
) -> list[float]:
    functions: dict[str, Callable[[FloatArray, FloatArray], float]] = {
        "t": paired_t_test,
        "wilcoxon": lambda a, b: wilcoxon_test(
            a, b, zero_method=zero_method, correction=continuity, method=wilcoxon_method
        ),
        "sign": sign_test,
        "randomization": lambda a, b: randomization_test(a, b, n_resamples=n_resamples, seed=seed),
        "bootstrap": lambda a, b: bootstrap_test(a, b, n_resamples=n_resamples, seed=seed),
    }
    function = functions[test]
    if values.shape[1] < 2:  # one query is no sample: every test is undefined
        return [float("nan")] * len(pairs)
    return [function(values[j], values[i]) for i, j in pairs]


def family_p_values(
    test: str, values: FloatArray, *, n_resamples: int = 10_000, seed: int = 0
) -> FloatArray:
    """The (k, k) p-values of a Tukey test (see :data:`FAMILY`) on one matrix."""
    if test == "tukey":
        return tukey_hsd(values)
    if test == "tukey-two-way":
        return tukey_hsd_two_way(values)
    return randomised_tukey_hsd(values, n_trials=n_resamples, seed=seed)


def _shared_trials(
    test: str, matrices: list[FloatArray], n_resamples: int, seed: int
) -> FloatArray | None:
    """The randomised Tukey p-values of every metric at once, when they share a query set.

    The metrics then share the trials (one permutation per topic and trial for
    all of them), which costs one set of permutations instead of one per
    metric; each metric's p-values are those of its own call with the same seed.
    """
    shapes = {matrix.shape for matrix in matrices}
    if test != "randomised-tukey" or len(shapes) != 1 or matrices[0].shape[1] < 2:
        return None
    return randomised_tukey_hsd(np.stack(matrices), n_trials=n_resamples, seed=seed)


def _pairs(systems: list[str], baselines: Sequence[str] | None) -> list[tuple[int, int]]:
    if baselines is None:
        return [(i, j) for i in range(len(systems)) for j in range(i + 1, len(systems))]
    if isinstance(baselines, str) or not baselines:
        msg = f"`baselines` must be a non-empty list of system names or None, got {baselines!r}"
        raise ValueError(msg)
    index = {name: position for position, name in enumerate(systems)}
    for name in baselines:
        if str(name) not in index:
            msg = f"`baselines`: system {name!r} not found; the systems are {systems}"
            raise ValueError(msg)
    chosen = [index[str(name)] for name in dict.fromkeys(baselines)]
    pairs: list[tuple[int, int]] = []
    for i in chosen:
        pairs.extend((i, j) for j in range(len(systems)) if j != i and (j, i) not in pairs)
    return pairs


def check_family_correction(test: object, correction: object) -> None:
    """Refuse a ``correction`` with a test whose p-values are already family-wise (Tukey's)."""
    if test in FAMILY and correction is not None:
        msg = (
            f"`correction` must be None with test={test!r}: Tukey p-values already "
            f"control the family-wise error rate over all pairs, got {correction!r}"
        )
        raise ValueError(msg)


def compare_pairs(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    test: PairTest = "t",
    correction: Method | None = "holm",
    alpha: float = 0.05,
    baselines: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
    system: str = "system",
    query: str = "query",
    metrics: Sequence[str] | None = None,
    n_resamples: int = 10_000,
    seed: int = 0,
    zero_method: ZeroMethod = "wilcox",
    continuity: bool = False,
    wilcoxon_method: WilcoxonMethod = "auto",
    queries: Sequence[Any] | pl.Series | None = None,
    missing: Missing = "zero",
) -> pl.DataFrame:
    """
    Test every pair of systems (or each baseline against the others) on each metric.

    For each metric and each pair ``(a, b)`` (``a`` before ``b`` in the order
    systems first appear, or ``a`` a baseline), the result holds both means,
    ``delta = mean_b - mean_a``, the two-sided p-value of ``test``, the p-value
    adjusted over all pairs of that metric, and which system is significantly
    better (the higher mean, when ``p_value_adjusted <= alpha``).

    **Tests.** Paired on queries: ``"t"`` (``scipy.stats.ttest_rel``),
    ``"wilcoxon"`` (``scipy.stats.wilcoxon`` with ``zero_method``, its method
    chosen as scipy does), ``"sign"`` (``scipy.stats.binomtest``),
    ``"randomization"`` and ``"bootstrap"`` (as in
    :func:`polars_rankmetrics.compare`). Over all systems at once:
    ``"tukey"`` (one-way, ``scipy.stats.tukey_hsd``, what ranx reports),
    ``"tukey-two-way"`` (Sakai's system x topic form) and ``"randomised-tukey"``
    (Carterette 2012, ``n_resamples`` trials); see
    :mod:`polars_rankmetrics.comparisons.tukey`. Tukey p-values already hold the
    family-wise error rate over all pairs, so ``correction`` must be None with
    them; a Tukey test is computed over all the systems even when
    ``baselines`` picks the pairs shown.

    **Corrections** (:func:`~polars_rankmetrics.comparisons.corrections.correct`):
    ``bonferroni``, ``holm``, ``sidak``, ``holm-sidak``, ``fdr_bh``, ``fdr_by``,
    over the pairs of one metric, as statsmodels' ``multipletests``.

    **Degenerate pairs.** ``note`` says when a p-value is not a test result:
    constant differences (up to round-off: t undefined; p is 1 when every
    difference is 0, else about 0), every difference 0 for Wilcoxon (p 1 up
    to 13 queries, else null, as in scipy) or the sign test (p 1),
    fewer than two queries (p null, whatever the test), or a bootstrap p-value
    at its floor ``1 / (n_resamples + 1)`` because no resample can reach the
    observed mean (e.g. two queries that both favour one system). A ±inf
    value on the query set raises ``ValueError`` naming its system, query
    and column. The query-set rules (``queries``,
    ``missing``) are those of :func:`polars_rankmetrics.compare`.

    **Order.** The systems (in order of first appearance unless ``systems``)
    and the queries (likewise, unless ``queries``) lay out the matrix the
    resampling tests draw on, so the same rows in another order can give other
    random draws; pass both for results that do not depend on row order.

    Parameters
    ----------
    per_query
        One row per (system, query), one numeric column per metric.
    test : str
        One of ``'t'``, ``'wilcoxon'``, ``'sign'``, ``'randomization'``,
        ``'bootstrap'``, ``'tukey'``, ``'tukey-two-way'``, ``'randomised-tukey'``.
    correction : {'holm', 'bonferroni', 'sidak', 'holm-sidak', 'fdr_bh', 'fdr_by', None}
        Correction over the pairs of a metric (None for the Tukey tests).
    alpha
        The significance level.
    baselines
        Compare only these systems with every other one; ``None``: all pairs.
    systems
        The systems to compare, in this order; ``None``: every system, in order
        of first appearance.
    system
        The column naming the system.
    query
        The column naming the query.
    metrics
        The metric columns; ``None`` means every numeric column besides the keys.
    n_resamples
        Resamples of the randomization and bootstrap tests, and trials of the
        randomised Tukey HSD.
    seed
        Seed of every random draw (started afresh for each pair; the randomised
        Tukey HSD draws one set of trials that every metric with the same query
        set shares, and each metric's p-values are those it gets alone).
    zero_method : {'wilcox', 'pratt', 'zsplit'}
        Zero differences in Wilcoxon's test, as in scipy.
    continuity
        The continuity correction of Wilcoxon's normal approximation (scipy's
        ``correction``).
    wilcoxon_method : {'auto', 'exact', 'asymptotic'}
        How Wilcoxon's p-value is computed (scipy's ``method``).
    queries
        The query set; ``None`` means every query in ``per_query``.
    missing : {'zero', 'drop'}
        What a missing (system, query) value becomes.

    Returns
    -------
    polars.DataFrame
        One row per (metric, pair): ``metric, system_a, system_b, mean_a,
        mean_b, delta, p_value, p_value_adjusted, significant, better,
        n_queries, note``.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 3,
    ...         "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.6, 0.5, 0.7, 0.4, 0.9],
    ...     }
    ... )
    >>> rm.compare_pairs(per_query, test="tukey-two-way", correction=None).select(
    ...     "system_a", "system_b", "delta", pl.col("p_value").round(4), "better"
    ... )
    shape: (3, 5)
    ┌──────────┬──────────┬───────┬─────────┬────────┐
    │ system_a ┆ system_b ┆ delta ┆ p_value ┆ better │
    │ ---      ┆ ---      ┆ ---   ┆ ---     ┆ ---    │
    │ str      ┆ str      ┆ f64   ┆ f64     ┆ str    │
    ╞══════════╪══════════╪═══════╪═════════╪════════╡
    │ a        ┆ b        ┆ 0.125 ┆ 0.0166  ┆ b      │
    │ a        ┆ c        ┆ 0.325 ┆ 0.0001  ┆ c      │
    │ b        ┆ c        ┆ 0.2   ┆ 0.0016  ┆ c      │
    └──────────┴──────────┴───────┴─────────┴────────┘
    """
    check_choice(test, "test", PairTest)
    check_method(correction)
    check_choice(zero_method, "zero_method", ZeroMethod)
    check_choice(wilcoxon_method, "wilcoxon_method", WilcoxonMethod)
    if not isinstance(continuity, bool):
        msg = f"`continuity` must be a bool, got {continuity!r}"
        raise ValueError(msg)
    check_family_correction(test, correction)
    n_resamples = check_n_resamples(n_resamples)
    check_seed(seed)
    alpha = _check_alpha(alpha)
    aligned = grid(
        per_query,
        system=system,
        query=query,
        metrics=metrics,
        queries=queries,
        missing=missing,
        systems=systems,
    )
    names = aligned.systems
    pairs = _pairs(names, baselines)
    shared = _shared_trials(
        test, [matrix.values for matrix in aligned.metrics.values()], n_resamples, seed
    )
    rows: list[dict[str, Any]] = []
    for position, (metric, matrix) in enumerate(aligned.metrics.items()):
        values = matrix.values
        n_queries = values.shape[1]
        if test in FAMILY:
            if n_queries < 2:
                p_values = [float("nan")] * len(pairs)
            else:
                family = (
                    shared[position]
                    if shared is not None
                    else family_p_values(test, values, n_resamples=n_resamples, seed=seed)
                )
                p_values = [float(family[i, j]) for i, j in pairs]
        else:
            p_values = _pairwise_p(
                test,
                values,
                pairs,
                n_resamples=n_resamples,
                seed=seed,
                zero_method=zero_method,
                continuity=continuity,
                wilcoxon_method=wilcoxon_method,
            )
        adjusted = correct(p_values, correction)
        means = values.mean(axis=1) if n_queries else np.full(len(names), np.nan)
        for (i, j), p_value, p_adjusted in zip(pairs, p_values, adjusted, strict=True):
            testable = not np.isnan(p_adjusted)
            significant = bool(p_adjusted <= alpha) if testable else None
            better = None
            if significant and means[i] != means[j]:
                better = names[i] if means[i] > means[j] else names[j]
            rows.append(
                {
                    "metric": metric,
                    "system_a": names[i],
                    "system_b": names[j],
                    "mean_a": float(means[i]) if n_queries else None,
                    "mean_b": float(means[j]) if n_queries else None,
                    "delta": float(means[j] - means[i]) if n_queries else None,
                    "p_value": None if np.isnan(p_value) else p_value,
                    "p_value_adjusted": p_adjusted if testable else None,
                    "significant": significant,
                    "better": better,
                    "n_queries": n_queries,
                    "note": _note(test, values[j] - values[i]),
                }
            )
    return pl.DataFrame(rows, schema=PAIRS_SCHEMA)
