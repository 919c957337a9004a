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

**Bounded memory.** A LazyFrame (``pl.scan_parquet``) is read in parts of
whole slates of about ``rows_per_pass`` rows each, chosen by a hash of the
slate id (integer ids in equal ranges, others by a hash; a filter keeps
each slate's rows together and in order), twice:
the first round sums each estimator's terms, weights and squared weights per
position (the values, the self-normalising means and the ESS, the data
checks on the way), the second each slate's terms. Memory holds one part,
the per-position totals and the per-slate terms.

**The effective sample size** ``ess`` is Kish's :math:`(\sum w)^2 / \sum w^2`
of the importance weights of the rows at one position (a number of slates),
at the position where it is smallest: ``n_slates`` when the evaluation policy
is the logging policy, small when few slates carry the weight.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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

ROWS_PER_PASS = 2_000_000
"""The most rows of the log held in memory at once (a LazyFrame, a parquet scan, is read
in parts of whole slates)."""

_POSITION, _ROWS = "_position", "_rows"

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


@dataclass(frozen=True)
class _Result:
    terms: pl.DataFrame
    values: dict[str, float | None]
    ess: dict[str, float | None]
    n_slates: int


def _part_count(logs: pl.DataFrame | pl.LazyFrame, rows_per_pass: int) -> int:
    """How many parts of at most about ``rows_per_pass`` rows the log is read in."""
    if isinstance(logs, pl.DataFrame):
        n_rows = logs.height
    else:
        n_rows = logs.select(pl.len()).collect(engine="streaming").item()
    return max(1, math.ceil(n_rows / rows_per_pass))


def _passes(
    logs: pl.DataFrame | pl.LazyFrame, slate: pl.Expr, count: int
) -> Iterator[pl.DataFrame]:
    """The log in ``count`` parts of whole slates, each in memory.

    Integer slate ids are cut into ``count`` equal ranges (a log written in
    slate order then reads each part's row groups only, by their statistics);
    other ids by a hash. A filter keeps the rows' order, so each slate's rows
    stay together and in order.
    """
    if count == 1:
        yield logs if isinstance(logs, pl.DataFrame) else logs.collect(engine="streaming")
        return
    lazy = logs.lazy()
    if lazy.select(slate).collect_schema().dtypes()[0].is_integer():
        bounds = lazy.select(low=slate.min(), high=slate.max()).collect(engine="streaming")
        low, high = bounds.row(0)
        if low is None:  # every id null: one part, whose checks refuse it
            yield lazy.collect(engine="streaming")
            return
        width = (high - low) // count + 1
        for index in range(count):
            start = low + index * width
            inside = slate.is_between(start, start + width, closed="left")
            # null ids go to the first part, whose checks refuse them
            part = lazy.filter(inside | slate.is_null() if index == 0 else inside)
            yield part.collect(engine="streaming")
        return
    for index in range(count):
        yield lazy.filter(slate.hash(seed=0) % count == index).collect(engine="streaming")


def _position_totals(part: pl.DataFrame, all_parts: list[Parts]) -> tuple[pl.DataFrame, int]:
    """Per position, the rows and each estimator's sums of terms, weights and squares.

    Also the part's slates; the data checks run on the way.
    """
    rows = part.lazy().select(
        all_parts[0].slates.position.alias(_POSITION),
        *(parts.raw.alias(f"raw_{i}") for i, parts in enumerate(all_parts)),
        *(parts.weight.alias(f"w_{i}") for i, parts in enumerate(all_parts)),
    )
    totals = rows.group_by(_POSITION).agg(
        pl.len().alias(_ROWS),
        *(pl.col(f"raw_{i}").sum() for i in range(len(all_parts))),
        *(pl.col(f"w_{i}").sum() for i in range(len(all_parts))),
        *((pl.col(f"w_{i}") ** 2).sum().alias(f"w2_{i}") for i in range(len(all_parts))),
    )
    checks = {check.message: check for parts in all_parts for check in parts.checks}
    n_slates = all_parts[0].slates.n_slates.cast(pl.Float64)
    counted = part.lazy().select(checked(n_slates, list(checks.values()), "n_slates"))
    totals_frame, slates = pl.collect_all([totals, counted])
    return totals_frame, int(slates.item() or 0)


def _normalisers(totals: pl.DataFrame, all_parts: list[Parts]) -> pl.DataFrame:
    """Per position, the mean weight that divides each estimator's terms (1: none)."""
    columns = []
    for i, parts in enumerate(all_parts):
        weights, rows = pl.col(f"w_{i}"), pl.col(_ROWS)
        if parts.normalised == "log":
            mean = weights.sum() / rows.sum()
        elif parts.normalised == "position":
            mean = weights / rows
        else:
            mean = pl.lit(1.0)
        columns.append(mean.cast(pl.Float64).alias(f"m_{i}"))
    return totals.select(_POSITION, *columns)


def _per_slate(part: pl.DataFrame, all_parts: list[Parts], means: pl.DataFrame) -> pl.DataFrame:
    rows = part.lazy().select(
        all_parts[0].slates.slate.alias("slate_id"),
        all_parts[0].slates.position.alias(_POSITION),
        *(parts.raw.alias(f"raw_{i}") for i, parts in enumerate(all_parts)),
    )
    joined = rows.join(means.lazy(), on=_POSITION, how="left")
    sums = (
        (pl.col(f"raw_{i}") / pl.col(f"m_{i}")).sum().alias(parts.name)
        for i, parts in enumerate(all_parts)
    )
    return joined.group_by("slate_id").agg(*sums).collect()


def _evaluate(
    logs: pl.DataFrame | pl.LazyFrame,
    names: list[Estimator],
    columns: Mapping[str, object],
    rows_per_pass: int,
) -> _Result:
    """Two rounds over the log's parts: the totals per position, then each slate's terms.

    The first round gives the values, the ESS and the data checks; the second
    divides each slate's terms by the whole log's mean weights.
    """
    if not isinstance(logs, pl.DataFrame | pl.LazyFrame):
        msg = f"`logs` must be a polars DataFrame or LazyFrame, got {type(logs).__name__}"
        raise ValueError(msg)
    rows_per_pass = check_k(rows_per_pass, "rows_per_pass")
    all_parts = [_parts(name, columns) for name in names]
    slate = all_parts[0].slates.slate
    count = _part_count(logs, rows_per_pass)
    first_round = list(_passes(logs, slate, 1)) if count == 1 else None
    totals, n_slates = [], 0
    for part in first_round or _passes(logs, slate, count):
        part_totals, part_slates = _position_totals(part, all_parts)
        totals.append(part_totals)
        n_slates += part_slates
    # one part is kept for the second round; several are read again
    parts_again = first_round or _passes(logs, slate, count)
    combined = pl.concat(totals).group_by(_POSITION).agg(pl.all().sum()).sort(_POSITION)
    means = _normalisers(combined, all_parts)
    terms = pl.concat([_per_slate(part, all_parts, means) for part in parts_again])
    values, ess = _summaries(combined, means, all_parts, n_slates)
    return _Result(terms.sort("slate_id"), values, ess, n_slates)


def _summaries(
    totals: pl.DataFrame, means: pl.DataFrame, all_parts: list[Parts], n_slates: int
) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """Each estimator's value and ESS from the totals per position."""
    values: dict[str, float | None] = {}
    ess: dict[str, float | None] = {}
    joined = totals.join(means, on=_POSITION)
    for i, parts in enumerate(all_parts):
        if n_slates == 0:
            values[parts.name], ess[parts.name] = None, None
            continue
        raw, weights, squares = pl.col(f"raw_{i}"), pl.col(f"w_{i}"), pl.col(f"w2_{i}")
        kish = pl.when(squares > 0).then(weights**2 / squares).otherwise(0.0)
        row = joined.select(value=(raw / pl.col(f"m_{i}")).sum() / n_slates, ess=kish.min()).row(0)
        values[parts.name], ess[parts.name] = row
    return values, ess


def slate_terms(
    logs: pl.DataFrame | pl.LazyFrame,
    estimators: Sequence[str] = ("sips", "iips", "rips"),
    *,
    rows_per_pass: int = ROWS_PER_PASS,
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
    result = _evaluate(logs, _estimators(estimators), _columns(columns), rows_per_pass)
    return result.terms


def _bootstrap(
    terms: pl.Series, n_bootstrap_samples: int, random_state: int, alpha: float
) -> tuple[float, float]:
    """The bootstrap of obp for one estimator: the percentile bounds of resampled means."""
    import numpy as np

    values = terms.to_numpy()
    n = len(values)
    state = np.random.RandomState(random_state)  # one per estimator, as obp's
    means = np.empty(n_bootstrap_samples)
    per_block = max(1, _BLOCK // max(n, 1))
    for start in range(0, n_bootstrap_samples, per_block):
        stop = min(start + per_block, n_bootstrap_samples)
        # one draw of (stop - start, n) is obp's stop - start draws of n, in order
        index = state.randint(0, n, size=(stop - start, n))
        means[start:stop] = values[index].mean(axis=1)
    lower = np.percentile(means, 100 * (alpha / 2))
    upper = np.percentile(means, 100 * (1.0 - alpha / 2))
    return float(lower), float(upper)


def estimate(
    logs: pl.DataFrame | pl.LazyFrame,
    estimators: Sequence[str] = ("sips", "iips", "rips"),
    *,
    alpha: float = 0.05,
    n_bootstrap_samples: int = 10_000,
    random_state: int = 0,
    rows_per_pass: int = ROWS_PER_PASS,
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
    result = _evaluate(logs, names, _columns(columns), rows_per_pass)
    if result.n_slates == 0:
        rows: dict[str, list[Any]] = {"estimator": list(names)}
        rows.update({c: [None] * len(names) for c in ("estimate", "lower", "upper", "ess")})
        rows["n_slates"] = [0] * len(names)
        return pl.DataFrame(rows, schema=ESTIMATE_SCHEMA)
    bounds = [
        _bootstrap(result.terms[name], n_bootstrap_samples, int(random_state), alpha)
        for name in names
    ]
    return pl.DataFrame(
        {
            "estimator": names,
            "estimate": [result.values[name] for name in names],
            "lower": [low for low, _ in bounds],
            "upper": [high for _, high in bounds],
            "n_slates": [result.n_slates] * len(names),
            "ess": [result.ess[name] for name in names],
        },
        schema=ESTIMATE_SCHEMA,
    )
