r"""Several slate estimators at once, with intervals: :func:`estimate` and :func:`slate_terms`.

Every estimator of :mod:`.slate` is a mean over slates of a per-slate term
:math:`t_i = \sum_k \hat r_i(k)` (the sum of the slate's estimated rewards,
self-normalised with the whole log's mean weights for the ``sn`` forms), so
:func:`slate_terms` returns one row per slate and one column per estimator;
its column means are the estimates, and two evaluation policies' terms on
the same log pair up by slate for :func:`polars_rankmetrics.compare`.

**The interval** is obp's ``estimate_interval``: ``n_bootstrap_samples``
resamples of the slates' terms, with replacement, each of ``n`` slates
(numpy's legacy ``RandomState(random_state)``, slates in ascending id order,
the same resamples for every estimator, as obp draws them); the bounds are the
``alpha / 2`` and ``1 - alpha / 2`` percentiles (linear interpolation) of the
resamples' means. The weights are not renormalised within a resample (as in
obp).

**The effective sample size** ``ess`` is Kish's :math:`(\sum w)^2 / \sum w^2`
of the importance weights of the rows at one position (a number of slates),
at the position where it is smallest: ``n_slates`` when the evaluation policy
is the logging policy, small when few slates carry the weight.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rankmetrics._validate import check_k, check_number, is_integral
from polars_rankmetrics.counterfactual._checks import checked
from polars_rankmetrics.counterfactual.slate import (
    KIND,
    Estimator,
    Parts,
    cascade_dr_parts,
    check_estimator,
    ips_parts,
)

if TYPE_CHECKING:
    import numpy as np

COLUMNS: dict[str, str] = {
    name: name
    for name in (
        "slate_id",
        "position",
        "reward",
        "pscore",
        "evaluation_policy_pscore",
        "pscore_item_position",
        "evaluation_policy_pscore_item_position",
        "pscore_cascade",
        "evaluation_policy_pscore_cascade",
        "action",
        "q_hat",
        "evaluation_policy_action_dist",
    )
}
"""The log's columns by obp's names; each is a keyword of :func:`estimate`."""

ESTIMATE_SCHEMA: dict[str, Any] = {
    "estimator": pl.String,
    "estimate": pl.Float64,
    "lower": pl.Float64,
    "upper": pl.Float64,
    "n_slates": pl.Int64,
    "ess": pl.Float64,
}
"""The columns of :func:`estimate`'s result."""

_BLOCK = 4_000_000
"""Resampled indices drawn at once (in blocks of whole resamples)."""


def _columns(overrides: Mapping[str, object]) -> dict[str, object]:
    unknown = sorted(set(overrides) - set(COLUMNS))
    if unknown:
        msg = f"unknown column parameter(s) {', '.join(unknown)}; the log's columns are " + (
            ", ".join(COLUMNS)
        )
        raise ValueError(msg)
    return {**COLUMNS, **overrides}


def _estimators(estimators: object) -> list[Estimator]:
    if isinstance(estimators, str) or not isinstance(estimators, Sequence) or not estimators:
        msg = f"`estimators` must be a non-empty list of estimator names, got {estimators!r}"
        raise ValueError(msg)
    names = [check_estimator(name) for name in estimators]
    if len(set(names)) != len(names):
        msg = f"`estimators` names an estimator twice: {estimators!r}"
        raise ValueError(msg)
    return names


def _parts(name: Estimator, columns: Mapping[str, object]) -> Parts:
    common = {key: columns[key] for key in ("slate_id", "position", "reward")}
    if name == "cascade-dr":
        extra = ("action", "q_hat", "evaluation_policy_action_dist")
        return cascade_dr_parts(
            **common,
            pscore_cascade=columns["pscore_cascade"],
            evaluation_policy_pscore_cascade=columns["evaluation_policy_pscore_cascade"],
            **{key: columns[key] for key in extra},
        )
    kind = KIND[name]
    return ips_parts(
        name,
        **common,
        pscore=columns[kind],
        evaluation_policy_pscore=columns[f"evaluation_policy_{kind}"],
    )


def _ess(parts: Parts) -> pl.Expr:
    """Kish's effective sample size at each position, its minimum."""
    weight, where = parts.weight, parts.slates.position
    squares = (weight * weight).sum().over(where)
    kish = pl.when(squares > 0).then(weight.sum().over(where) ** 2 / squares).otherwise(0.0)
    return kish.min()


def _frames(
    logs: pl.DataFrame | pl.LazyFrame, names: list[Estimator], columns: Mapping[str, object]
) -> tuple[pl.DataFrame, dict[str, float]]:
    """The per-slate terms, sorted by slate, and each estimator's ESS, in one pass."""
    if not isinstance(logs, pl.DataFrame | pl.LazyFrame):
        msg = f"`logs` must be a polars DataFrame or LazyFrame, got {type(logs).__name__}"
        raise ValueError(msg)
    all_parts = [_parts(name, columns) for name in names]
    slate = all_parts[0].slates.slate.alias("slate_id")
    rows = logs.lazy().select(
        slate,
        *(parts.term.alias(parts.name) for parts in all_parts),
        # the checks and the ESS are scalars over the log, broadcast to every row
        *(checked(_ess(parts), parts.checks, f"ess_{parts.name}") for parts in all_parts),
    )
    per_slate = rows.group_by("slate_id").agg(
        *(pl.col(name).sum() for name in names), *(pl.col(f"ess_{n}").first() for n in names)
    )
    frame = per_slate.sort("slate_id").collect()
    ess = {name: frame[f"ess_{name}"][0] if frame.height else 0.0 for name in names}
    return frame.select("slate_id", *names), ess


def slate_terms(
    logs: pl.DataFrame | pl.LazyFrame,
    estimators: Sequence[str] = ("sips", "iips", "rips"),
    **columns: str | pl.Expr,
) -> pl.DataFrame:
    """
    Each slate's term of each estimator: ``slate_id`` and one Float64 column per estimator.

    The mean of a column over the slates is the estimator's value. The
    ``sn`` forms' terms are normalised with the whole log's mean weights.
    ``columns`` renames the log's columns (keywords: obp's names, see
    :data:`COLUMNS`). Slates come out in ascending id order. Data errors raise
    ``ValueError`` as in :mod:`.slate`.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import counterfactual as cf
    >>> log = pl.DataFrame(
    ...     {
    ...         "slate": [0, 0, 1, 1],
    ...         "position": [0, 1, 0, 1],
    ...         "click": [1, 0, 1, 1],
    ...         "pscore": [0.5, 0.5, 0.25, 0.25],
    ...         "evaluation_policy_pscore": [0.25, 0.25, 0.5, 0.5],
    ...     }
    ... )
    >>> cf.slate_terms(log, ["sips", "snsips"], slate_id="slate", reward="click")
    shape: (2, 3)
    ┌──────────┬──────┬────────┐
    │ slate_id ┆ sips ┆ snsips │
    │ ---      ┆ ---  ┆ ---    │
    │ i64      ┆ f64  ┆ f64    │
    ╞══════════╪══════╪════════╡
    │ 0        ┆ 0.5  ┆ 0.4    │
    │ 1        ┆ 4.0  ┆ 3.2    │
    └──────────┴──────┴────────┘
    """
    return _frames(logs, _estimators(estimators), _columns(columns))[0]


def _bootstrap(
    terms: np.ndarray, n_bootstrap_samples: int, random_state: int, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """The bootstrap of obp: the percentile bounds of resampled means, per column of ``terms``."""
    import numpy as np

    n = terms.shape[0]
    state = np.random.RandomState(random_state)
    means = np.empty((n_bootstrap_samples, terms.shape[1]))
    per_block = max(1, _BLOCK // max(n, 1))
    for start in range(0, n_bootstrap_samples, per_block):
        stop = min(start + per_block, n_bootstrap_samples)
        # one draw of (stop - start, n) is obp's stop - start draws of n, in order
        index = state.randint(0, n, size=(stop - start, n))
        means[start:stop] = terms[index].mean(axis=1)
    lower = np.percentile(means, 100 * (alpha / 2), axis=0)
    upper = np.percentile(means, 100 * (1.0 - alpha / 2), axis=0)
    return lower, upper


def estimate(
    logs: pl.DataFrame | pl.LazyFrame,
    estimators: Sequence[str] = ("sips", "iips", "rips"),
    *,
    alpha: float = 0.05,
    n_bootstrap_samples: int = 10_000,
    random_state: int = 0,
    **columns: str | pl.Expr,
) -> pl.DataFrame:
    """
    Several slate estimators on one log: the value, a bootstrap interval and the ESS.

    One row per estimator (in the order given): ``estimator`` (obp's name),
    ``estimate`` (the estimator's value, as its expression in :mod:`.slate`
    gives it), ``lower`` and ``upper`` (the ``1 - alpha`` bootstrap interval
    over slates, obp's ``estimate_interval``: module documentation),
    ``n_slates`` and ``ess`` (Kish's effective sample size at the position
    where it is smallest). An empty log gives null values and ``n_slates = 0``.

    Parameters
    ----------
    logs
        The log, one row per (slate, position), as :mod:`.slate` reads it.
    estimators : {'sips', 'iips', 'rips', 'snsips', 'sniips', 'snrips', 'cascade-dr'}
        The estimators, by obp's names.
    alpha
        One minus the interval's confidence level, in (0, 1).
    n_bootstrap_samples
        The number of resamples.
    random_state
        The seed of numpy's ``RandomState`` (obp's ``random_state``).
    **columns
        The log's column names where they differ from obp's (``reward="click"``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import counterfactual as cf
    >>> log = pl.DataFrame(
    ...     {
    ...         "slate_id": [0, 0, 1, 1, 2, 2],
    ...         "position": [0, 1, 0, 1, 0, 1],
    ...         "reward": [1, 0, 1, 1, 0, 0],
    ...         "pscore": [0.5, 0.5, 0.25, 0.25, 0.5, 0.5],
    ...         "evaluation_policy_pscore": [0.25, 0.25, 0.5, 0.5, 0.5, 0.5],
    ...     }
    ... )
    >>> cf.estimate(log, ["sips", "snsips"], n_bootstrap_samples=200)
    shape: (2, 6)
    ┌───────────┬──────────┬───────┬──────────┬──────────┬──────────┐
    │ estimator ┆ estimate ┆ lower ┆ upper    ┆ n_slates ┆ ess      │
    │ ---       ┆ ---      ┆ ---   ┆ ---      ┆ ---      ┆ ---      │
    │ str       ┆ f64      ┆ f64   ┆ f64      ┆ i64      ┆ f64      │
    ╞═══════════╪══════════╪═══════╪══════════╪══════════╪══════════╡
    │ sips      ┆ 1.5      ┆ 0.0   ┆ 4.0      ┆ 3        ┆ 2.333333 │
    │ snsips    ┆ 1.285714 ┆ 0.0   ┆ 3.428571 ┆ 3        ┆ 2.333333 │
    └───────────┴──────────┴───────┴──────────┴──────────┴──────────┘
    """
    names = _estimators(estimators)
    alpha = check_number(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    n_bootstrap_samples = check_k(n_bootstrap_samples, "n_bootstrap_samples")
    if not is_integral(random_state) or not 0 <= int(random_state) < 2**32:
        msg = f"`random_state` must be an int in [0, 2**32), got {random_state!r}"
        raise ValueError(msg)
    terms, ess = _frames(logs, names, _columns(columns))
    n_slates = terms.height
    if n_slates == 0:
        rows: dict[str, list[Any]] = {"estimator": list(names)}
        rows.update({c: [None] * len(names) for c in ("estimate", "lower", "upper", "ess")})
        rows["n_slates"] = [0] * len(names)
        return pl.DataFrame(rows, schema=ESTIMATE_SCHEMA)
    matrix = terms.select(names).to_numpy()
    lower, upper = _bootstrap(matrix, n_bootstrap_samples, int(random_state), alpha)
    return pl.DataFrame(
        {
            "estimator": names,
            "estimate": matrix.mean(axis=0),
            "lower": lower,
            "upper": upper,
            "n_slates": [n_slates] * len(names),
            "ess": [ess[name] for name in names],
        },
        schema=ESTIMATE_SCHEMA,
    )
