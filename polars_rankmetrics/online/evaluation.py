"""How well a click model explains held-out sessions, and what it predicts for a ranking.

- :func:`log_likelihood`: the book's log-likelihood of the sessions;
- :func:`perplexity`: the book's perplexity at each rank;
- :func:`evaluate`: both for several models, one row per model;
- :func:`predict`: the click probability of each result of a ranking.

Definitions from Chuklin, Markov and de Rijke (2015), chapter 5.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from polars_rankmetrics.online.log import CLICK, RANK, SESSION, read_log, read_rankings
from polars_rankmetrics.online.model import ClickModel, attach
from polars_rankmetrics.online.probabilities import (
    CLICK_PROBABILITY,
    PROBABILITY,
    click_probabilities,
    conditional_probabilities,
)


def _check_model(model: object) -> ClickModel:
    if isinstance(model, ClickModel):
        return model
    msg = f"`model` must be a ClickModel (from fit()), got {type(model).__name__}"
    raise ValueError(msg)


def log_likelihood(model: ClickModel, log: pl.DataFrame | pl.LazyFrame) -> float:
    """
    The log-likelihood of a click log under a click model.

    ``LL = sum over sessions s of log P(C_1 = c_1, ..., C_n = c_n)``, each
    session's probability the product of ``P(C_r = c_r | C_{<r})`` down its
    ranks (natural logarithm; the book's section 5.1). Higher is better; it
    is 0 for a log the model predicts with certainty. The cascade model gives
    probability 0 to a second click in a session, so its log-likelihood of a
    log with such a session is ``-inf``.

    Parameters
    ----------
    model
        A fitted (or hand-built) :class:`ClickModel`.
    log
        Sessions with the model's column names (checked as in :func:`fit`);
        pairs, ranks or cells the model has not seen get its ``default``.

    Returns
    -------
    float

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> log = pl.DataFrame(
    ...     {
    ...         "session": [1, 1, 2, 2],
    ...         "query": ["q"] * 4,
    ...         "document": ["a", "b", "b", "a"],
    ...         "rank": [1, 2, 1, 2],
    ...         "click": [1, 0, 0, 1],
    ...     }
    ... )
    >>> round(online.log_likelihood(online.fit(log, "pbm", iterations=10), log), 4)
    -1.9452
    """
    model = _check_model(model)
    return _log_likelihood(model, read_log(log, model.columns))


def _log_likelihood(model: ClickModel, rows: pl.DataFrame) -> float:
    probabilities = conditional_probabilities(attach(rows.lazy(), model), model)
    total = probabilities.select(pl.col(PROBABILITY).log().sum()).collect().item()
    return float(total) if total is not None else 0.0


def perplexity(model: ClickModel, log: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """
    The perplexity of a click model at each rank of a click log.

    ``p_r = 2 ** -(1 / |S_r|) sum over sessions s of (c_r log2 q_r + (1 - c_r)
    log2 (1 - q_r))``, where ``q_r = P(C_r = 1)`` is the model's click
    probability at rank ``r`` before any click is observed and ``S_r`` the
    sessions with a rank ``r`` (the book's section 5.2, after Dupret and
    Piwowarski 2008). 1 is a perfect prediction, 2 a coin toss; the
    perplexity of a model is the mean of ``p_r`` over the ranks (:func:`evaluate`).

    Parameters
    ----------
    model
        A fitted (or hand-built) :class:`ClickModel`.
    log
        Sessions with the model's column names.

    Returns
    -------
    polars.DataFrame
        ``rank, perplexity, sessions``, one row per rank.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> log = pl.DataFrame(
    ...     {
    ...         "session": [1, 1, 2, 2],
    ...         "query": ["q"] * 4,
    ...         "document": ["a", "b", "b", "a"],
    ...         "rank": [1, 2, 1, 2],
    ...         "click": [1, 0, 0, 1],
    ...     }
    ... )
    >>> online.perplexity(online.fit(log, "cm"), log)
    shape: (2, 3)
    ┌──────┬────────────┬──────────┐
    │ rank ┆ perplexity ┆ sessions │
    │ ---  ┆ ---        ┆ ---      │
    │ i32  ┆ f64        ┆ u32      │
    ╞══════╪════════════╪══════════╡
    │ 1    ┆ 1.414214   ┆ 2        │
    │ 2    ┆ 1.477098   ┆ 2        │
    └──────┴────────────┴──────────┘
    """
    model = _check_model(model)
    return _perplexity(model, read_log(log, model.columns))


def _perplexity(model: ClickModel, rows: pl.DataFrame) -> pl.DataFrame:
    q = pl.col(CLICK_PROBABILITY)
    bits = pl.when(pl.col(CLICK) == 1).then(q.log(2)).otherwise((1 - q).log(2))
    table = (
        click_probabilities(attach(rows.lazy(), model), model)
        .group_by(RANK)
        .agg((2.0 ** -bits.mean()).alias("perplexity"), pl.len().alias("sessions"))
        .sort(RANK)
        .collect()
    )
    return table.rename({RANK: model.columns.rank})


def evaluate(
    models: Mapping[str, ClickModel] | Sequence[ClickModel], log: pl.DataFrame | pl.LazyFrame
) -> pl.DataFrame:
    """
    Log-likelihood and perplexity of several click models on the same held-out log.

    Parameters
    ----------
    models
        Click models by name, or a sequence of them (named by their model).
    log
        Held-out sessions with the models' column names.

    Returns
    -------
    polars.DataFrame
        ``model, log_likelihood, perplexity, sessions``: the log-likelihood
        (:func:`log_likelihood`), the mean of the per-rank perplexities
        (:func:`perplexity`) and the number of sessions, one row per model.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> log = pl.DataFrame(
    ...     {
    ...         "session": [1, 1, 2, 2],
    ...         "query": ["q"] * 4,
    ...         "document": ["a", "b", "b", "a"],
    ...         "rank": [1, 2, 1, 2],
    ...         "click": [1, 0, 0, 1],
    ...     }
    ... )
    >>> online.evaluate([online.fit(log, "cm"), online.fit(log, "dcm")], log)
    shape: (2, 4)
    ┌───────┬────────────────┬────────────┬──────────┐
    │ model ┆ log_likelihood ┆ perplexity ┆ sessions │
    │ ---   ┆ ---            ┆ ---        ┆ ---      │
    │ str   ┆ f64            ┆ f64        ┆ i64      │
    ╞═══════╪════════════════╪════════════╪══════════╡
    │ cm    ┆ -0.980829      ┆ 1.445656   ┆ 2        │
    │ dcm   ┆ -1.098612      ┆ 1.424244   ┆ 2        │
    └───────┴────────────────┴────────────┴──────────┘
    """
    named = (
        dict(models) if isinstance(models, Mapping) else {m.model: _check_model(m) for m in models}
    )
    if not named:
        msg = "`models` is empty: give at least one ClickModel"
        raise ValueError(msg)
    rows = []
    read: dict[object, pl.DataFrame] = {}
    for name, model in named.items():
        _check_model(model)
        if model.columns not in read:  # the log read and checked once per column naming
            read[model.columns] = read_log(log, model.columns)
        log_rows = read[model.columns]
        table = _perplexity(model, log_rows)
        mean = float(table.get_column("perplexity").mean())  # type: ignore[arg-type]
        sessions = log_rows.get_column(SESSION).n_unique()
        rows.append((name, _log_likelihood(model, log_rows), mean, sessions))
    schema = {
        "model": pl.String,
        "log_likelihood": pl.Float64,
        "perplexity": pl.Float64,
        "sessions": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def predict(model: ClickModel, rankings: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """
    The click probability of each result of some rankings under a click model.

    ``P(C_r = 1)`` before any click is observed: PBM ``alpha gamma_r``; the
    cascades ``alpha_r`` times the probability of examining ``r`` (the product
    over the ranks above of going on); UBM sums over the rank of the last
    click above (the book's section 3).

    Parameters
    ----------
    model
        A fitted (or hand-built) :class:`ClickModel`.
    rankings
        The model's columns but the click: session (one shown ranking), query,
        document and rank 1..n; other columns are kept.

    Returns
    -------
    polars.DataFrame
        ``rankings`` sorted by session and rank, with ``click_probability``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> model = online.ClickModel(
    ...     "cm",
    ...     attractiveness=pl.DataFrame(
    ...         {"query": "q", "document": ["a", "b"], "attractiveness": [0.5, 0.4]}
    ...     ),
    ... )
    >>> ranking = pl.DataFrame({"session": 1, "query": "q", "document": ["a", "b"], "rank": [1, 2]})
    >>> online.predict(model, ranking)
    shape: (2, 5)
    ┌─────────┬───────┬──────────┬──────┬───────────────────┐
    │ session ┆ query ┆ document ┆ rank ┆ click_probability │
    │ ---     ┆ ---   ┆ ---      ┆ ---  ┆ ---               │
    │ i32     ┆ str   ┆ str      ┆ i32  ┆ f64               │
    ╞═════════╪═══════╪══════════╪══════╪═══════════════════╡
    │ 1       ┆ q     ┆ a        ┆ 1    ┆ 0.5               │
    │ 1       ┆ q     ┆ b        ┆ 2    ┆ 0.2               │
    └─────────┴───────┴──────────┴──────┴───────────────────┘
    """
    model = _check_model(model)
    rows = read_rankings(rankings, model.columns)
    original = rows.columns
    predicted = click_probabilities(attach(rows.lazy(), model), model).collect()
    return predicted.select(*original, CLICK_PROBABILITY).rename(
        model.columns.to_outside(click=False)
    )
