"""Fitting a click model to a log: :func:`fit` and its table of estimators.

PBM, UBM and DBN are fitted by EM (:mod:`.em`); CM, DCM and SDBN have
closed-form maximum-likelihood estimates under their assumptions (the book's
section 4.2), computed in one pass of group-bys. ``ESTIMATORS`` maps each model's
name to its estimator.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polars_rankmetrics.online.em import (
    CELL,
    LAST,
    PAIR,
    Estimate,
    clicked,
    dbn_step,
    m_step,
    pbm_step,
    run_em,
    ubm_step,
)
from polars_rankmetrics.online.log import (
    CLICK,
    DOCUMENT,
    QUERY,
    RANK,
    SESSION,
    LogColumns,
    first_click_rank,
    last_click_rank,
    previous_click_rank,
    read_log,
)
from polars_rankmetrics.online.model import (
    ATTRACTIVENESS,
    CONTINUATION,
    EXAMINATION,
    MODELS,
    PREVIOUS_CLICK,
    SATISFACTION,
    ClickModel,
    ModelName,
    check_prior,
)
from polars_rankmetrics.online.windows import LENGTH

Estimator = Callable[[pl.DataFrame, int, tuple[float, float], dict[str, int]], Estimate]


def _start(size: int, prior: tuple[float, float]) -> pl.Series:
    return pl.Series("value", [prior[0] / prior[1]] * size, dtype=pl.Float64)


def _mle(
    queries: list[tuple[pl.LazyFrame, Callable[[pl.DataFrame], pl.Series]]],
) -> list[pl.Series]:
    results = pl.collect_all([query for query, _ in queries])
    return [vector(result) for (_, vector), result in zip(queries, results, strict=True)]


def estimate_pbm(
    log: pl.DataFrame, iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """PBM by EM: attractiveness per pair, examination per rank."""
    start = {
        "attractiveness": _start(sizes["attractiveness"], prior),
        "examination": _start(sizes["examination"], prior),
    }
    values = run_em(iterations, start, pbm_step(log, prior, sizes), list(start))
    return Estimate(values, {})


def estimate_ubm(
    log: pl.DataFrame, iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """UBM by EM: attractiveness per pair, examination per (rank, previous click)."""
    start = {
        "attractiveness": _start(sizes["attractiveness"], prior),
        "examination": _start(sizes["examination"], prior),
    }
    values = run_em(iterations, start, ubm_step(log, prior, sizes), list(start))
    return Estimate(values, {})


def estimate_dbn(
    log: pl.DataFrame, iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """DBN by EM: attractiveness and satisfaction per pair, one continuation gamma."""
    start = {
        "attractiveness": _start(sizes["attractiveness"], prior),
        "satisfaction": _start(sizes["attractiveness"], prior),
        "continuation": _start(1, prior),
    }
    values = run_em(iterations, start, dbn_step(log, prior, sizes), list(start))
    gamma = float(values.pop("continuation")[0])
    return Estimate(values, {"continuation": gamma})


def estimate_cm(
    log: pl.DataFrame, iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """CM: the click rate of each pair over the rows at or above the session's first click."""
    examined = log.lazy().filter(pl.col(RANK) <= first_click_rank())
    (alpha,) = _mle([m_step(examined, PAIR, pl.col(CLICK), prior, sizes["attractiveness"])])
    return Estimate({"attractiveness": alpha}, {})


def estimate_dcm(
    log: pl.DataFrame, iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """DCM: the click rate at or above the last click; per rank, the share of clicks not last."""
    rows = log.lazy()
    examined = rows.filter((pl.col(RANK) <= pl.col(LAST)) | (pl.col(LAST) == 0))
    clicks = rows.filter(clicked())
    alpha, lam = _mle(
        [
            m_step(examined, PAIR, pl.col(CLICK), prior, sizes["attractiveness"]),
            m_step(
                clicks,
                RANK,
                (pl.col(RANK) != pl.col(LAST)).cast(pl.Float64),
                prior,
                sizes["examination"] + 1,
            ),
        ]
    )
    return Estimate({"attractiveness": alpha, "continuation": lam[1:]}, {})


def estimate_sdbn(
    log: pl.DataFrame, iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """SDBN: DCM's attractiveness; per pair, the share of its clicks that are the last click."""
    rows = log.lazy()
    examined = rows.filter((pl.col(RANK) <= pl.col(LAST)) | (pl.col(LAST) == 0))
    clicks = rows.filter(clicked())
    alpha, sigma = _mle(
        [
            m_step(examined, PAIR, pl.col(CLICK), prior, sizes["attractiveness"]),
            m_step(
                clicks,
                PAIR,
                (pl.col(RANK) == pl.col(LAST)).cast(pl.Float64),
                prior,
                sizes["attractiveness"],
            ),
        ]
    )
    return Estimate({"attractiveness": alpha, "satisfaction": sigma}, {})


ESTIMATORS: dict[ModelName, Estimator] = {
    "pbm": estimate_pbm,
    "cm": estimate_cm,
    "dcm": estimate_dcm,
    "ubm": estimate_ubm,
    "dbn": estimate_dbn,
    "sdbn": estimate_sdbn,
}
"""Each model's estimator."""

EM_MODELS = frozenset({"pbm", "ubm", "dbn"})


def _check_iterations(iterations: object) -> int:
    if isinstance(iterations, int) and not isinstance(iterations, bool) and iterations >= 0:
        return iterations
    msg = f"`iterations` must be a non-negative int, got {iterations!r}"
    raise ValueError(msg)


def fit(
    log: pl.DataFrame | pl.LazyFrame,
    model: ModelName,
    *,
    iterations: int = 50,
    prior: tuple[float, float] = (1.0, 2.0),
    session: str = "session",
    query: str = "query",
    document: str = "document",
    rank: str = "rank",
    click: str = "click",
) -> ClickModel:
    """
    Fit a click model to a click log.

    PBM, UBM and DBN are fitted by expectation-maximisation, each iteration
    one pass of polars expressions over the log (the E-step) and one group-by
    per parameter (the M-step), with the book's update equations (Chuklin,
    Markov and de Rijke 2015, section 4.3). CM, DCM and SDBN have closed-form
    estimates under their assumptions (section 4.2): CM's user examines every
    result down to the first click; DCM's and SDBN's every result down to the
    last click and none below.

    Every estimate is ``(clicks + sum of the rows' posteriors) / (views + number
    of rows)``, with ``prior = (clicks, views)`` pseudo-counts (PyClick's 1 click
    in 2 views by default): a parameter is never exactly 0 or 1, and one that no
    row informs is ``clicks / views``. EM starts every parameter there.

    DBN's E-step is exact: the examination of a result below the last click
    is conditioned on every click of the session (PyClick conditions the
    attractiveness update on the unconditional examination probability).

    Parameters
    ----------
    log
        One row per shown result: the session (one result page shown once),
        the query, the document, its rank (1, 2, ..., n in each session) and
        the click (0/1 or a boolean). A session with no click is kept: it says
        that the results shown were not clicked.
    model : {'pbm', 'cm', 'dcm', 'ubm', 'dbn', 'sdbn'}
        The click model.
    iterations
        EM iterations (PBM, UBM, DBN); the closed-form models ignore it.
    prior
        ``(clicks, views)`` pseudo-counts added to every estimate, with
        ``0 < clicks < views``.
    session, query, document, rank, click
        The log's column names.

    Returns
    -------
    ClickModel
        The parameters as frames keyed by the log's column names.

    Raises
    ------
    ValueError
        A click that is not 0 or 1, ranks that are not 1..n in a session (a
        rank 0, a repeated rank, a gap), a session with two queries: naming
        the column.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> log = pl.DataFrame(
    ...     {
    ...         "session": [1, 1, 2, 2, 3, 3],
    ...         "query": ["q"] * 6,
    ...         "document": ["a", "b", "b", "a", "a", "b"],
    ...         "rank": [1, 2, 1, 2, 1, 2],
    ...         "click": [1, 0, 0, 1, 0, 1],
    ...     }
    ... )
    >>> model = online.fit(log, "sdbn")
    >>> model.attractiveness.sort("document")
    shape: (2, 3)
    ┌───────┬──────────┬────────────────┐
    │ query ┆ document ┆ attractiveness │
    │ ---   ┆ ---      ┆ ---            │
    │ str   ┆ str      ┆ f64            │
    ╞═══════╪══════════╪════════════════╡
    │ q     ┆ a        ┆ 0.6            │
    │ q     ┆ b        ┆ 0.5            │
    └───────┴──────────┴────────────────┘
    """
    if model not in MODELS:
        msg = f"`model` must be one of {list(MODELS)}, got {model!r}"
        raise ValueError(msg)
    iterations = _check_iterations(iterations)
    prior = check_prior(prior)
    columns = LogColumns(session, query, document, rank, click)
    rows, pairs, cells = _prepare(read_log(log, columns), model)
    sizes = {"attractiveness": pairs.height, "examination": _examination_size(rows, cells, model)}
    estimate = ESTIMATORS[model](rows, iterations, prior, sizes)
    return _model(
        model, estimate, pairs, cells, columns, iterations if model in EM_MODELS else 0, prior
    )


def _prepare(
    log: pl.DataFrame, model: ModelName
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None]:
    """The rows with their pair id and last click (UBM: cell id), the pairs, UBM's cells."""
    pairs = log.select(QUERY, DOCUMENT).unique(maintain_order=True).with_row_index(PAIR)
    rows = log.join(
        pairs, on=[QUERY, DOCUMENT], how="left", maintain_order="left", nulls_equal=True
    )
    rows = rows.with_columns(last_click_rank().alias(LAST), pl.len().over(SESSION).alias(LENGTH))
    cells = None
    if model == "ubm":
        rows = rows.with_columns(previous_click_rank().alias(PREVIOUS_CLICK))
        cells = (
            rows.select(RANK, PREVIOUS_CLICK)
            .unique()
            .sort(RANK, PREVIOUS_CLICK)
            .with_row_index(CELL)
        )
        rows = rows.join(cells, on=[RANK, PREVIOUS_CLICK], how="left", maintain_order="left")
    keep = [SESSION, RANK, CLICK, PAIR, LAST, LENGTH] + ([CELL] if cells is not None else [])
    return rows.select(keep).with_columns(pl.col(PAIR).cast(pl.Int64)), pairs, cells


def _examination_size(rows: pl.DataFrame, cells: pl.DataFrame | None, model: ModelName) -> int:
    if cells is not None:
        return cells.height
    return int(rows.get_column(RANK).max() or 0)  # type: ignore[arg-type]


def _model(
    model: ModelName,
    estimate: Estimate,
    pairs: pl.DataFrame,
    cells: pl.DataFrame | None,
    columns: LogColumns,
    iterations: int,
    prior: tuple[float, float],
) -> ClickModel:
    outside = columns.to_outside()
    by_pair = pairs.select(QUERY, DOCUMENT).rename(
        {QUERY: outside[QUERY], DOCUMENT: outside[DOCUMENT]}
    )
    vectors = estimate.vectors
    frames: dict[str, pl.DataFrame | float | None] = {
        name: by_pair.with_columns(vectors[name].alias(name))
        for name in (ATTRACTIVENESS, SATISFACTION)
        if name in vectors
    }
    if EXAMINATION in vectors:
        if cells is not None:
            table = cells.select(RANK, PREVIOUS_CLICK)
        else:
            table = pl.DataFrame(
                {RANK: range(1, len(vectors[EXAMINATION]) + 1)}, schema={RANK: pl.Int32}
            )
        frames[EXAMINATION] = table.with_columns(vectors[EXAMINATION].alias(EXAMINATION)).rename(
            {RANK: outside[RANK]}
        )
    if CONTINUATION in vectors:
        ranks = pl.DataFrame(
            {outside[RANK]: range(1, len(vectors[CONTINUATION]) + 1)},
            schema={outside[RANK]: pl.Int32},
        )
        frames[CONTINUATION] = ranks.with_columns(vectors[CONTINUATION].alias(CONTINUATION))
    if CONTINUATION in estimate.scalars:
        frames[CONTINUATION] = estimate.scalars[CONTINUATION]
    return ClickModel(
        model,
        iterations=iterations,
        default=prior[0] / prior[1],
        columns=columns,
        **frames,  # type: ignore[arg-type]
    )
