"""Tukey's honestly significant difference over all pairs of systems.

Three forms, each a function of one metric's (system x query) matrix that
returns the ``(k, k)`` matrix of p-values (diagonal 1):

- :func:`tukey_hsd` (one-way): the systems' values are independent samples;
  equal to ``scipy.stats.tukey_hsd`` (what ranx reports).
- :func:`tukey_hsd_two_way` (Sakai): the error is the residual mean square of
  the system x topic ANOVA, so the topics' difficulty is not counted as noise.
- :func:`randomised_tukey_hsd` (Carterette 2012): a permutation test that
  needs no normality; each trial shuffles every topic's values across the
  systems and records the largest difference between two system means.

References
----------
- J. W. Tukey, "The Problem of Multiple Comparisons", 1953.
- B. Carterette, "Multiple Testing in Statistical Analysis of Systems-Based
  Information Retrieval Experiments", ACM TOIS 30(1), 2012.
- T. Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018, 4.4.
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from polars_rankmetrics._validate import check_k, check_seed
from polars_rankmetrics.comparisons.anova import error_is_zero, residual_mean_square

FloatArray: TypeAlias = npt.NDArray[np.float64]

# A block of trials holds at most this many (trial, query, system) cells.
_BLOCK_CELLS = 1 << 19

# Sums equal in exact arithmetic may differ in the last bits; the slack counts them equal.
_RELATIVE_SLACK = 1e-10


def _check_matrix(values: npt.ArrayLike, name: str = "values") -> FloatArray:
    matrix = np.asarray(values, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] < 2 or matrix.shape[1] < 2:
        msg = f"`{name}` must be a (systems x queries) matrix of at least 2 x 2, got {matrix.shape}"
        raise ValueError(msg)
    if not np.isfinite(matrix).all():
        msg = f"`{name}` must be finite: align or drop missing queries first"
        raise ValueError(msg)
    return matrix


def _studentized_p(values: FloatArray, error_ms: float, df: int) -> FloatArray:
    """P-values of ``|m_i - m_j| / sqrt(error_ms / n)`` in the studentized range (k, df)."""
    from scipy import stats  # type: ignore[import-untyped]
    from scipy.integrate import IntegrationWarning  # type: ignore[import-untyped]

    k, n = values.shape
    means = values.mean(axis=1)
    p_values = np.ones((k, k))
    upper = np.triu_indices(k, 1)
    if error_is_zero(values, error_ms):
        differs = means[upper[0]] != means[upper[1]]
        p_values[upper] = np.where(differs, 0.0, 1.0)
    else:
        q = np.abs(means[upper[0]] - means[upper[1]]) / np.sqrt(error_ms / n)
        with warnings.catch_warnings():
            # For a very large q scipy's integral may say it converges slowly; the
            # p-value is then far below any significance level.
            warnings.simplefilter("ignore", IntegrationWarning)
            p_values[upper] = stats.studentized_range.sf(q, k, df)
    p_values[upper[1], upper[0]] = p_values[upper]
    return p_values


def tukey_hsd(values: npt.ArrayLike) -> FloatArray:
    """
    One-way Tukey HSD p-values of every pair of systems.

    With ``k`` systems of ``n`` values each, ``MSE = sum_s sum_q (x_sq -
    m_s)**2 / (k n - k)`` and ``q_ij = |m_i - m_j| / sqrt(MSE / n)``; the p-value
    is the studentized range survival function ``P(Q(k, k n - k) > q_ij)``. This
    is ``scipy.stats.tukey_hsd(*values).pvalue``. With ``MSE = 0`` (up to
    round-off) two systems with different means get 0 and equal means 1.

    Parameters
    ----------
    values
        A (systems x queries) matrix.

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.tukey import tukey_hsd
    >>> tukey_hsd([[0.2, 0.4, 0.1, 0.5], [0.3, 0.6, 0.2, 0.6], [0.5, 0.7, 0.4, 0.9]]).round(3)
    array([[1.   , 0.674, 0.115],
           [0.674, 1.   , 0.388],
           [0.115, 0.388, 1.   ]])
    """
    matrix = _check_matrix(values)
    error_ms, df = residual_mean_square(matrix, "one-way")
    return _studentized_p(matrix, error_ms, df)


def tukey_hsd_two_way(values: npt.ArrayLike) -> FloatArray:
    """
    Two-way (system x topic) Tukey HSD p-values of every pair of systems.

    As :func:`tukey_hsd`, but the error is the residual mean square ``V_E2`` of
    the two-way ANOVA without replication, with ``(k - 1)(n - 1)`` degrees of
    freedom: ``q_ij = |m_i - m_j| / sqrt(V_E2 / n)`` and ``p = P(Q(k, (k - 1)(n -
    1)) > q_ij)`` (Sakai 2018, 4.4). This is what statsmodels' two-way
    ``anova_lm`` residual mean square and ``scipy.stats.studentized_range``
    give.

    Parameters
    ----------
    values
        A (systems x queries) matrix.

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.tukey import tukey_hsd_two_way
    >>> values = [[0.2, 0.4, 0.1, 0.5], [0.3, 0.6, 0.2, 0.6], [0.5, 0.7, 0.4, 0.9]]
    >>> tukey_hsd_two_way(values).round(4).tolist()
    [[1.0, 0.0166, 0.0001], [0.0166, 1.0, 0.0016], [0.0001, 0.0016, 1.0]]
    """
    matrix = _check_matrix(values)
    error_ms, df = residual_mean_square(matrix, "two-way")
    return _studentized_p(matrix, error_ms, df)


def _trial_blocks(n_trials: int, cells_per_trial: int) -> list[tuple[int, int]]:
    """(start, size) of each block of trials; they depend only on the two counts."""
    block = max(1, _BLOCK_CELLS // max(cells_per_trial, 1))
    return [(start, min(block, n_trials - start)) for start in range(0, n_trials, block)]


def _random_permutations(
    rng: np.random.Generator, shape: tuple[int, int], k: int
) -> npt.NDArray[np.intp]:
    """Uniform random permutations of ``range(k)``, one per cell of ``shape``.

    Sorting random keys gives a uniform permutation. The keys carry the system's
    index in their low bits, so no two are equal and one ``np.sort`` (no
    argsort) yields the permutation; ties between the random high bits (32 or
    64 bits in all, minus the index bits) are broken by index, a bias below
    ``k**2 / 2**(bits + 1)`` per topic and trial (under 2e-5 for 50 systems).
    """
    index_bits = max(1, (k - 1).bit_length())
    dtype = np.uint32 if index_bits <= 8 else np.uint64
    mask = dtype((1 << index_bits) - 1)
    keys = rng.integers(0, np.iinfo(dtype).max, size=(*shape, k), dtype=dtype, endpoint=True)
    keys &= ~mask
    keys |= np.arange(k).astype(dtype)
    keys.sort(axis=-1)
    keys &= mask
    return keys.astype(np.intp)


def _count_block(
    stacked: FloatArray, observed: FloatArray, seed: np.random.SeedSequence, size: int
) -> npt.NDArray[np.int64]:
    """Trials of one block whose range of system sums reaches each observed difference."""
    n_metrics, n, k = stacked.shape[0], stacked.shape[1], stacked.shape[2]
    rng = np.random.default_rng(seed)
    flat = _random_permutations(rng, (size, n), k)
    flat += (np.arange(n, dtype=np.intp) * k)[:, None]
    flat = flat.reshape(-1)
    counts = np.zeros((n_metrics, k, k), dtype=np.int64)
    for metric in range(n_metrics):
        gathered = np.take(stacked[metric].reshape(n * k), flat)
        sums = gathered.reshape(size, n, k).sum(axis=1)
        ranges = np.sort(sums.max(axis=1) - sums.min(axis=1))
        counts[metric] = ranges.size - np.searchsorted(ranges, observed[metric], side="left")
    return counts


def randomised_tukey_hsd(
    values: npt.ArrayLike,
    *,
    n_trials: int = 10_000,
    seed: int = 0,
    n_threads: int | None = None,
) -> FloatArray:
    """
    Randomised Tukey HSD p-values of every pair of systems (Carterette 2012).

    Under the null hypothesis the systems are exchangeable on each topic. A
    trial permutes each topic's values across the systems (independently per
    topic) and records the range ``max_s m_s - min_s m_s`` of the permuted
    system means. The p-value of a pair is the share of trials whose range
    reaches the observed ``|m_i - m_j|``; comparing every pair with the largest
    difference of each trial controls the family-wise error rate.

    - When all ``(k!)**n`` assignments number at most ``n_trials`` the test is
      exact: the share over every assignment (the observed one included).
    - Otherwise ``n_trials`` random trials, and ``p = (b + 1) / (n_trials +
      1)`` where ``b`` counts the trials that reach it (Phipson and Smyth
      2010), as in :func:`~polars_rankmetrics.comparisons.significance.randomization_test`.

    The trials run in blocks of vectorised numpy (no Python loop per trial),
    each block with its own generator spawned from ``numpy.random.SeedSequence(seed)``,
    so the result depends on ``seed`` only, not on ``n_threads``. A stack of
    several metrics, ``(metrics, systems, queries)``, shares the trials.
    Differences within ``1e-10 * sum(|x|)`` of the observed one count as equal.

    Parameters
    ----------
    values
        A (systems x queries) matrix, or a (metrics x systems x queries) stack.
    n_trials
        The number of random trials (and the threshold for the exact test).
    seed
        Seed of the random trials.
    n_threads
        Threads that run blocks at once; ``None`` means ``os.cpu_count()``.

    Returns
    -------
    numpy.ndarray
        The ``(k, k)`` p-values (``(metrics, k, k)`` for a stack), diagonal 1.

    Examples
    --------
    Three systems on two topics: the 36 assignments are enumerated.

    >>> from polars_rankmetrics.comparisons.tukey import randomised_tukey_hsd
    >>> randomised_tukey_hsd([[0.1, 0.2], [0.5, 0.4], [0.9, 1.0]]).round(4)
    array([[1.    , 0.8333, 0.1667],
           [0.8333, 1.    , 0.6667],
           [0.1667, 0.6667, 1.    ]])
    """
    n_trials = check_k(n_trials, "n_trials")
    check_seed(seed)
    if n_threads is not None and (
        isinstance(n_threads, bool) or not isinstance(n_threads, int) or n_threads < 1
    ):
        msg = f"`n_threads` must be a positive int or None, got {n_threads!r}"
        raise ValueError(msg)
    stack = np.asarray(values, dtype=np.float64)
    single = stack.ndim == 2
    if single:
        stack = stack[None]
    if stack.ndim != 3:
        msg = f"`values` must be a (systems x queries) matrix or a stack of them, got {stack.shape}"
        raise ValueError(msg)
    for matrix in stack:
        _check_matrix(matrix)
    _, k, n = stack.shape
    sums = stack.sum(axis=2)
    slack = _RELATIVE_SLACK * np.abs(stack).sum(axis=(1, 2))
    observed = np.abs(sums[:, :, None] - sums[:, None, :]) - slack[:, None, None]
    stacked = np.ascontiguousarray(stack.transpose(0, 2, 1))  # (metrics, queries, systems)
    if n * math.log(math.factorial(k)) <= math.log(n_trials):
        counts, total = _exact_counts(stacked, observed), math.factorial(k) ** n
        p_values = counts / total
    else:
        blocks = _trial_blocks(n_trials, n * k)
        seeds = np.random.SeedSequence(seed).spawn(len(blocks))
        workers = n_threads or os.cpu_count() or 1
        with ThreadPoolExecutor(max_workers=min(workers, len(blocks))) as pool:
            parts = pool.map(
                lambda job: _count_block(stacked, observed, job[0], job[1][1]),
                zip(seeds, blocks, strict=True),
            )
            counts = sum(parts, np.zeros(observed.shape, dtype=np.int64))
        p_values = (counts + 1) / (n_trials + 1)
    diagonal = np.arange(k)
    p_values[:, diagonal, diagonal] = 1.0
    result: FloatArray = p_values[0] if single else p_values
    return result


def _exact_counts(stacked: FloatArray, observed: FloatArray) -> npt.NDArray[np.int64]:
    """Assignments (every topic's permutation, all combinations) that reach each difference."""
    n_metrics, n, k = stacked.shape
    permutations = np.array(list(itertools.permutations(range(k))), dtype=np.intp)
    choices = np.array(list(itertools.product(range(len(permutations)), repeat=n)), dtype=np.intp)
    flat = (np.arange(n)[:, None] * k + permutations[choices]).reshape(len(choices), n * k)
    counts = np.zeros((n_metrics, k, k), dtype=np.int64)
    for metric in range(n_metrics):
        sums = stacked[metric].reshape(n * k)[flat].reshape(len(choices), n, k).sum(axis=1)
        ranges = np.sort(sums.max(axis=1) - sums.min(axis=1))
        counts[metric] = ranges.size - np.searchsorted(ranges, observed[metric], side="left")
    return counts
