"""Fitting a click model to a log: :func:`fit` and its table of estimators.

PBM, UBM and DBN are fitted by EM (:mod:`.em`); CM, DCM and SDBN have
closed-form maximum-likelihood estimates under their assumptions (the book's
section 4.2), computed in one pass of group-bys. ``ESTIMATORS`` maps each model's
name to its estimator.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import polars as pl

from polars_rankmetrics._validate import check_k
from polars_rankmetrics.online.em import (
    CELL,
    LAST,
    PAIR,
    Estimate,
    Loader,
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

Estimator = Callable[[Sequence[Loader], int, tuple[float, float], dict[str, int]], Estimate]
"""An estimator: the parts of the prepared log, the iterations, the prior and the vectors' sizes."""


def _start(size: int, prior: tuple[float, float]) -> pl.Series:
    return pl.Series("value", [prior[0] / prior[1]] * size, dtype=pl.Float64)


def _starts(
    sizes: dict[str, int], names: dict[str, str], prior: tuple[float, float]
) -> dict[str, pl.Series]:
    """Each parameter's starting vector: ``names`` maps a parameter to the size it takes."""
    return {name: _start(sizes[size], prior) for name, size in names.items()}


def estimate_pbm(
    parts: Sequence[Loader], iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """PBM by EM: attractiveness per pair, examination per rank."""
    start = _starts(sizes, {"attractiveness": "pairs", "examination": "depth"}, prior)
    return Estimate(run_em(iterations, start, pbm_step(sizes["depth"]), parts, prior), {})


def estimate_ubm(
    parts: Sequence[Loader], iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """UBM by EM: attractiveness per pair, examination per (rank, previous click)."""
    start = _starts(sizes, {"attractiveness": "pairs", "examination": "cells"}, prior)
    return Estimate(run_em(iterations, start, ubm_step(sizes["depth"]), parts, prior), {})


def estimate_dbn(
    parts: Sequence[Loader], iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """DBN by EM: attractiveness and satisfaction per pair, one continuation gamma."""
    names = {"attractiveness": "pairs", "satisfaction": "pairs", "continuation": "one"}
    start = _starts({**sizes, "one": 1}, names, prior)
    values = run_em(iterations, start, dbn_step(sizes["depth"]), parts, prior)
    gamma = float(values.pop("continuation")[0])
    return Estimate(values, {"continuation": gamma})


def _examined_to_last() -> pl.Expr:
    """The rows at or above the session's last click (every row without a click)."""
    return (pl.col(RANK) <= pl.col(LAST)) | (pl.col(LAST) == 0)


def _closed_form(
    parts: Sequence[Loader],
    prior: tuple[float, float],
    sizes: dict[str, int],
    sums: Callable[[pl.LazyFrame], dict[str, pl.LazyFrame]],
) -> dict[str, pl.Series]:
    """One pass: the counts ``sums`` returns, over every part, as ratios with the prior."""
    names = {"attractiveness": "pairs", "satisfaction": "pairs", "continuation": "depth"}
    start = _starts(sizes, {name: names[name] for name in sums(pl.LazyFrame())}, prior)
    return run_em(1, start, lambda values, log: sums(log.lazy()), parts, prior)


def estimate_cm(
    parts: Sequence[Loader], iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """CM: the click rate of each pair over the rows at or above the session's first click."""

    def sums(rows: pl.LazyFrame) -> dict[str, pl.LazyFrame]:
        examined = rows.filter(pl.col(RANK) <= first_click_rank())
        return {"attractiveness": m_step(examined, pl.col(PAIR), pl.col(CLICK))}

    return Estimate(_closed_form(parts, prior, sizes, sums), {})


def estimate_dcm(
    parts: Sequence[Loader], iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """DCM: the click rate at or above the last click; per rank, the share of clicks not last."""

    def sums(rows: pl.LazyFrame) -> dict[str, pl.LazyFrame]:
        not_last = (pl.col(RANK) != pl.col(LAST)).cast(pl.Float64)
        return {
            "attractiveness": m_step(rows.filter(_examined_to_last()), pl.col(PAIR), pl.col(CLICK)),
            "continuation": m_step(rows.filter(clicked()), pl.col(RANK) - 1, not_last),
        }

    return Estimate(_closed_form(parts, prior, sizes, sums), {})


def estimate_sdbn(
    parts: Sequence[Loader], iterations: int, prior: tuple[float, float], sizes: dict[str, int]
) -> Estimate:
    """SDBN: DCM's attractiveness; per pair, the share of its clicks that are the last click."""

    def sums(rows: pl.LazyFrame) -> dict[str, pl.LazyFrame]:
        last = (pl.col(RANK) == pl.col(LAST)).cast(pl.Float64)
        return {
            "attractiveness": m_step(rows.filter(_examined_to_last()), pl.col(PAIR), pl.col(CLICK)),
            "satisfaction": m_step(rows.filter(clicked()), pl.col(PAIR), last),
        }

    return Estimate(_closed_form(parts, prior, sizes, sums), {})


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
    parts: int = 1,
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
    row informs is ``clicks / views``. EM starts every parameter there. The PBM's
    EM is also :func:`polars_rankmetrics.counterfactual.fit_pbm`'s, which runs it
    on counts of (query, document, rank) with no pseudo-counts (prior ``(0, 0)``),
    keeping this default here.

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
    parts
        With more than 1, the log (a ``scan_parquet`` of it, say) is cut into
        that many parts by a hash of the session, each checked, prepared and
        written to a temporary parquet file; each EM iteration then reads one part
        at a time and adds up the M-step sums, so that memory holds one part and
        the parameters. The same estimates (to rounding: the sums are added in
        another order), the pairs in sorted order.

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
    parts = check_k(parts, "parts")
    columns = LogColumns(session, query, document, rank, click)
    counted = iterations if model in EM_MODELS else 0
    if parts == 1:
        rows = read_log(log, columns)
        depth = int(rows.get_column(RANK).max() or 0)  # type: ignore[arg-type]
        pairs = rows.select(QUERY, DOCUMENT).unique(maintain_order=True).with_row_index(PAIR)
        prepared, cells = _prepare(rows, model, pairs, depth)
        sizes = {"pairs": pairs.height, "depth": depth, "cells": depth * depth}
        estimate = ESTIMATORS[model]([lambda: prepared], iterations, prior, sizes)
        return _model(model, estimate, pairs, cells, depth, columns, counted, prior)
    with tempfile.TemporaryDirectory(prefix="rankmetrics-online-") as folder:
        loaders, pairs, cells, depth = _write_parts(log, columns, model, parts, Path(folder))
        sizes = {"pairs": pairs.height, "depth": depth, "cells": depth * depth}
        estimate = ESTIMATORS[model](loaders, iterations, prior, sizes)
    return _model(model, estimate, pairs, cells, depth, columns, counted, prior)


def _prepare(
    log: pl.DataFrame, model: ModelName, pairs: pl.DataFrame, depth: int
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """The rows with their pair id, last click and length (UBM: cell id), and UBM's cells seen.

    UBM's cell of rank ``r`` after a click at ``r'`` is ``(r - 1) depth + r'``.
    """
    rows = log.join(
        pairs, on=[QUERY, DOCUMENT], how="left", maintain_order="left", nulls_equal=True
    )
    rows = rows.with_columns(last_click_rank().alias(LAST), pl.len().over(SESSION).alias(LENGTH))
    cells = None
    keep = [SESSION, RANK, CLICK, PAIR, LAST, LENGTH]
    if model == "ubm":
        rows = rows.with_columns(previous_click_rank().alias(PREVIOUS_CLICK))
        cell = (pl.col(RANK).cast(pl.Int64) - 1) * depth + pl.col(PREVIOUS_CLICK)
        rows = rows.with_columns(cell.alias(CELL))
        cells = rows.select(RANK, PREVIOUS_CLICK).unique()
        keep.append(CELL)
    return rows.select(keep).with_columns(pl.col(PAIR).cast(pl.Int64)), cells


def _write_parts(
    log: pl.DataFrame | pl.LazyFrame,
    columns: LogColumns,
    model: ModelName,
    parts: int,
    folder: Path,
) -> tuple[list[Callable[[], pl.DataFrame]], pl.DataFrame, pl.DataFrame | None, int]:
    """The log cut into ``parts`` by a hash of the session, each prepared and written to parquet.

    One pass for the pairs and the depth, then one per part (each checked as a whole
    log); the EM iterations then read one part at a time.
    """
    if not isinstance(log, pl.DataFrame | pl.LazyFrame):
        msg = f"`log` must be a polars DataFrame or LazyFrame, got {type(log).__name__}"
        raise ValueError(msg)
    lazy = log.lazy()
    keys = lazy.select(pl.col(columns.query).alias(QUERY), pl.col(columns.document).alias(DOCUMENT))
    pairs_query = keys.unique().sort(QUERY, DOCUMENT, nulls_last=True)
    depth_query = lazy.select(pl.col(columns.rank).max())
    found, deepest = pl.collect_all([pairs_query, depth_query], engine="streaming")
    pairs = found.with_row_index(PAIR)
    depth = int(deepest.item() or 0)
    loaders: list[Callable[[], pl.DataFrame]] = []
    seen = []
    for part in range(parts):
        chosen = lazy.filter(pl.col(columns.session).hash(0) % parts == part)
        prepared, cells = _prepare(read_log(chosen, columns), model, pairs, depth)
        path = folder / f"part-{part}.parquet"
        prepared.write_parquet(path)
        loaders.append(lambda path=path: pl.read_parquet(path))
        if cells is not None:
            seen.append(cells)
    cells = pl.concat(seen).unique() if seen else None
    return loaders, pairs, cells, depth


def _model(
    model: ModelName,
    estimate: Estimate,
    pairs: pl.DataFrame,
    cells: pl.DataFrame | None,
    depth: int,
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
        if cells is not None:  # the cells seen, in order, read at (r - 1) depth + r'
            table = cells.select(RANK, PREVIOUS_CLICK).sort(RANK, PREVIOUS_CLICK)
            at = (table.get_column(RANK).cast(pl.Int64) - 1) * depth + table.get_column(
                PREVIOUS_CLICK
            )
            vectors = {**vectors, EXAMINATION: vectors[EXAMINATION].gather(at)}
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
