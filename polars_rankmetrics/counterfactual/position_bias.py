r"""Position bias from the logs themselves: the PBM by EM, and intervention harvesting.

**The position-based model** (PBM; Chuklin, Markov and de Rijke, *Click
Models for Web Search*, 2015, sections 3.3 and 4.2): a document :math:`d`
shown for query :math:`q` at rank :math:`r` is clicked when the rank is
examined and the document is attractive, independently:

.. math:: P(C = 1) = \gamma_r\, \alpha_{qd}

:func:`fit_pbm` fits :math:`\gamma` and :math:`\alpha` by expectation
maximisation. The log is read once, into the count of impressions
:math:`n` and of clicks :math:`c` of each (query, document, rank) (a lazy
group-by, streaming over parquet); each iteration is then two group-bys of
that table (no loop over rows). The EM is the one of
:func:`polars_rankmetrics.online.fit` (``model="pbm"``; its step and loop in
:mod:`polars_rankmetrics.online.em`), run on the table of counts and without
pseudo-counts: ``fit`` adds PyClick's prior ``(1, 2)`` by default, ``fit_pbm``
passes ``(0, 0)`` (plain maximum likelihood, as below). With the posteriors of an impression without
a click (the book's equations 4.9-4.12),

.. math::
    P(E = 1 \mid C = 0) = \frac{\gamma_r (1 - \alpha_{qd})}{1 - \gamma_r \alpha_{qd}},
    \qquad
    P(A = 1 \mid C = 0) = \frac{\alpha_{qd} (1 - \gamma_r)}{1 - \gamma_r \alpha_{qd}},

the M-step sets each parameter to the mean posterior of its impressions:

.. math::
    \alpha_{qd} \leftarrow \frac{\sum_r c_{qdr} + (n_{qdr} - c_{qdr})\,
    P(A = 1 \mid C = 0)}{\sum_r n_{qdr}},
    \qquad
    \gamma_r \leftarrow \frac{\sum_{q,d} c_{qdr} + (n_{qdr} - c_{qdr})\,
    P(E = 1 \mid C = 0)}{\sum_{q,d} n_{qdr}}.

The log-likelihood of the parameters an iteration starts from is
:math:`\sum n_c \log \gamma_r \alpha_{qd} + (n - c) \log(1 - \gamma_r
\alpha_{qd})`. The PBM fixes :math:`\gamma` and :math:`\alpha` only up to a
common factor (:math:`\gamma / s, s\, \alpha` click alike), so the
examination propensities are reported relative to the top rank,
``propensity`` :math:`= \gamma_r / \gamma_{r_{min}}`, the quantity
propensity-weighted estimators need (:mod:`.clicks`).

**Intervention harvesting** (Agarwal, Zaitsev, Wang, Li, Najork and
Joachims, "Estimating Position Bias without Intrusive Interventions", WSDM
2019): when several rankers put the same document of the same query at
different ranks, the log holds a randomised swap without one having been
run. :func:`harvest_propensities` takes, for each rank :math:`k`, the
interventional set :math:`S_{1,k}` of the (query, document) pairs shown both
at the top rank and at rank :math:`k` (by any rankers), and the weighted
clicks

.. math:: \hat c_j = \sum_{(q, d) \in S_{1,k}} n_q\, \frac{\text{clicks}(q, d, j)}
    {\text{impressions}(q, d, j)}, \quad j \in \{1, k\}

(:math:`n_q` the query's impressions); then :math:`\hat p_k / \hat p_1 =
\hat c_k / \hat c_1`. The paper weights each click by the inverse of
:math:`\sum_i n_i [\mathrm{rank}_i(d \mid q) = k]` (:math:`n_i` ranker
:math:`i`'s traffic), which needs the rankers; here the log's own count of
impressions of the (query, document) at the rank stands in for it, so no
ranker column is needed, and each query counts in proportion to how often it
was issued, as in the paper. Only the interventional sets with the top rank
are used (ratios to rank 1); the paper's AllPairs extremum estimator, which
also uses the pairs of lower ranks, is not implemented.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from polars_rankmetrics._validate import check_k, check_number
from polars_rankmetrics.counterfactual._checks import column, numeric
from polars_rankmetrics.online.em import PAIR, position_step, run_em

_N, _CLICKS, _NULL_CLICKS = "_impressions", "_clicks", "_null_clicks"
_RANK_ID = "_rank_id"
_NO_PRIOR = (0.0, 0.0)
"""No pseudo-counts: :func:`fit_pbm` is the plain maximum-likelihood EM (``online.fit``'s
default prior is PyClick's ``(1, 2)``)."""
_STEP = position_step(pl.col(_RANK_ID), counts=(pl.col(_N), pl.col(_CLICKS)))


@dataclass(frozen=True)
class PositionBasedModel:
    """A fitted PBM: its parameter tables and the log-likelihood at each iteration."""

    examination: pl.DataFrame
    """``rank``, ``gamma`` (:math:`\\gamma_r`) and ``propensity`` (relative to the top rank)."""
    attractiveness: pl.DataFrame
    """``query``, ``document`` and ``alpha`` (:math:`\\alpha_{qd}`), by the log's names."""
    log_likelihood: list[float]
    """The log-likelihood of the parameters each iteration started from, then of the result."""
    n_iterations: int


def click_counts(
    clicks: pl.DataFrame | pl.LazyFrame,
    *,
    query: str = "query",
    document: str = "document",
    rank: str = "rank",
    click: str = "click",
) -> pl.LazyFrame:
    """The impressions and clicks of each (query, document, rank), lazily.

    Columns: the log's three key columns, ``_impressions``, ``_clicks`` and
    ``_null_clicks`` (the rows whose click is null, which :func:`fit_pbm` refuses).
    The click column must hold 0/1 numbers or booleans (checked at collect).
    """
    if not isinstance(clicks, pl.DataFrame | pl.LazyFrame):
        msg = f"`clicks` must be a polars DataFrame or LazyFrame, got {type(clicks).__name__}"
        raise ValueError(msg)
    for name, value in (("query", query), ("document", document), ("rank", rank)):
        column(value, name)
    clicked = numeric(column(click, "click"))
    return (
        clicks.lazy()
        .group_by(query, document, rank)
        .agg(
            pl.len().cast(pl.Float64).alias(_N),
            clicked.sum().alias(_CLICKS),
            clicked.null_count().alias(_NULL_CLICKS),
        )
    )


def _check_counts(counts: pl.DataFrame, click: str, keys: tuple[str, str, str]) -> None:
    # A null key would be fitted as a query, document or rank of its own: refused instead.
    for name, key in zip(("query", "document", "rank"), keys, strict=True):
        if counts.get_column(key).null_count():
            msg = f"the `{name}` column {key!r} holds null: every impression needs one"
            raise ValueError(msg)
    totals = counts.select(
        n=pl.col(_N).sum(),
        c=pl.col(_CLICKS).sum(),
        odd=((pl.col(_CLICKS) < 0) | (pl.col(_CLICKS) > pl.col(_N))).sum(),
        missing=pl.col(_CLICKS).is_nan().sum() + pl.col(_NULL_CLICKS).sum(),
    ).row(0, named=True)
    if totals["odd"] or totals["missing"]:
        msg = f"the `click` column {click!r} must hold 0 or 1 on every row"
        raise ValueError(msg)
    if totals["n"] == 0:
        msg = "the click log is empty: the PBM cannot be fitted"
        raise ValueError(msg)
    if totals["c"] in (0, totals["n"]):
        state = "no click" if totals["c"] == 0 else "only clicks"
        msg = (
            f"the `click` column {click!r} has {state}: without variation in the clicks "
            "the PBM's parameters are not identified"
        )
        raise ValueError(msg)


def with_ids(
    counts: pl.DataFrame, keys: tuple[str, str, str]
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The table of counts by dense ids, as online's EM reads it; the pairs and the ranks.

    The ids number the (query, document) pairs and the ranks in sorted order.
    """
    query, document, rank = keys
    pairs = counts.select(query, document).unique().sort(query, document)
    ranks = counts.select(rank).unique().sort(rank)
    table = (
        counts.join(pairs.with_row_index(PAIR), on=[query, document], nulls_equal=True)
        .join(ranks.with_row_index(_RANK_ID), on=rank, nulls_equal=True)
        .select(pl.col(PAIR, _RANK_ID).cast(pl.Int64), _N, _CLICKS)
    )
    return table, pairs, ranks


def iterate(
    table: pl.DataFrame, values: dict[str, pl.Series], n_iterations: int, tol: float
) -> tuple[dict[str, pl.Series], list[float], int]:
    """Online's PBM EM on the counts, with no prior, one iteration at a time.

    Returns the parameters, the log-likelihood of those each iteration started
    from then of the result, and the iterations run.
    """
    history: list[float] = []
    for _ in range(n_iterations):
        history.append(_log_likelihood(values, table))
        values = run_em(1, values, _STEP, [lambda: table], _NO_PRIOR)
        if tol > 0 and len(history) > 1 and history[-1] - history[-2] <= tol:
            break
    done = len(history)
    history.append(_log_likelihood(values, table))
    return values, history, done


def _log_likelihood(values: dict[str, pl.Series], table: pl.DataFrame) -> float:
    """The log-likelihood of the parameter vectors on the table of counts (ids inside)."""
    alpha = pl.lit(values["attractiveness"]).gather(pl.col(PAIR))
    gamma = pl.lit(values["examination"]).gather(pl.col(_RANK_ID))
    click_probability = alpha * gamma
    c, unclicked = pl.col(_CLICKS), pl.col(_N) - pl.col(_CLICKS)
    terms = pl.when(c > 0).then(c * click_probability.log()).otherwise(0.0) + pl.when(
        unclicked > 0
    ).then(unclicked * (1 - click_probability).log()).otherwise(0.0)
    return float(table.select(terms.sum()).item())


def fit_pbm(
    clicks: pl.DataFrame | pl.LazyFrame,
    *,
    query: str = "query",
    document: str = "document",
    rank: str = "rank",
    click: str = "click",
    n_iterations: int = 100,
    tol: float = 0.0,
    initial: float = 0.5,
) -> PositionBasedModel:
    """
    The position-based click model fitted by EM on (query, document, rank, click) rows.

    The module documentation gives the model, the EM updates and why the
    examination propensities are relative to the top rank. The EM is
    :func:`polars_rankmetrics.online.fit`'s PBM on the counts, with no prior
    (``fit``'s default prior, PyClick's ``(1, 2)``, is not used here: the
    updates are the plain ones of the module documentation). Every parameter
    starts at ``initial``; the iterations stop after ``n_iterations`` or when
    the log-likelihood rises by at most ``tol`` (0: never early). On clicks
    simulated from known parameters (40,000 impressions: 10 queries of 6
    documents shown in a random order at 4 ranks), 200 iterations recover the
    relative propensities within 0.05 (the tests check it).

    Parameters
    ----------
    clicks
        One row per impression: the query, the document, its rank (an integer,
        the top rank the smallest) and the click (0/1 or a boolean).
    query, document, rank, click
        The columns' names.
    n_iterations
        The most EM iterations.
    tol
        Stop when an iteration raises the log-likelihood by at most this.
    initial
        The starting value of every parameter, in (0, 1).

    Raises
    ------
    ValueError
        An empty log, a click column without variation (no click, or only
        clicks: the parameters are then not identified), or clicks other than
        0 and 1.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import counterfactual as cf
    >>> log = pl.DataFrame(
    ...     {
    ...         "query": ["q"] * 8,
    ...         "document": ["a", "b", "b", "a", "a", "b", "b", "a"],
    ...         "rank": [1, 2, 1, 2, 1, 2, 1, 2],
    ...         "click": [1, 0, 1, 0, 1, 1, 0, 0],
    ...     }
    ... )
    >>> model = cf.fit_pbm(log, n_iterations=20)
    >>> model.examination
    shape: (2, 3)
    ┌──────┬──────────┬────────────┐
    │ rank ┆ gamma    ┆ propensity │
    │ ---  ┆ ---      ┆ ---        │
    │ i64  ┆ f64      ┆ f64        │
    ╞══════╪══════════╪════════════╡
    │ 1    ┆ 0.999865 ┆ 1.0        │
    │ 2    ┆ 0.280907 ┆ 0.280945   │
    └──────┴──────────┴────────────┘
    """
    n_iterations = check_k(n_iterations, "n_iterations")
    tol = check_number(tol, "tol", low=0.0)
    initial = check_number(initial, "initial", low=0.0, high=1.0, low_open=True, high_open=True)
    counts = click_counts(clicks, query=query, document=document, rank=rank, click=click)
    counts_frame = counts.collect(engine="streaming")
    _check_counts(counts_frame, click, (query, document, rank))
    table, pairs, ranks = with_ids(counts_frame, (query, document, rank))
    values = {
        "attractiveness": pl.Series([initial] * pairs.height, dtype=pl.Float64),
        "examination": pl.Series([initial] * ranks.height, dtype=pl.Float64),
    }
    values, history, done = iterate(table, values, n_iterations, tol)
    gamma = values["examination"].alias("gamma")
    examination = ranks.with_columns(gamma, propensity=gamma / gamma[0])
    attractiveness = pairs.with_columns(values["attractiveness"].alias("alpha"))
    return PositionBasedModel(examination, attractiveness, history, done)


def harvest_propensities(
    clicks: pl.DataFrame | pl.LazyFrame,
    *,
    query: str = "query",
    document: str = "document",
    rank: str = "rank",
    click: str = "click",
) -> pl.DataFrame:
    """
    Examination propensities relative to the top rank, by intervention harvesting.

    ``clicks`` holds the impressions of several rankers (one row per
    impression, as :func:`fit_pbm` reads it; the ranker itself need not be a
    column: what counts is that a (query, document) was shown at different
    ranks). The module documentation gives the estimator. Columns: ``rank``,
    ``propensity`` (1 at the top rank; null where no (query, document) was
    shown both at the top and at that rank) and ``n_pairs`` (the size of the
    interventional set).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import counterfactual as cf
    >>> log = pl.DataFrame(
    ...     {
    ...         "query": ["q"] * 8,
    ...         "document": ["a", "b", "b", "a", "a", "b", "b", "a"],
    ...         "rank": [1, 2, 1, 2, 1, 2, 1, 2],
    ...         "click": [1, 0, 1, 0, 1, 1, 0, 0],
    ...     }
    ... )
    >>> cf.harvest_propensities(log)
    shape: (2, 3)
    ┌──────┬────────────┬─────────┐
    │ rank ┆ propensity ┆ n_pairs │
    │ ---  ┆ ---        ┆ ---     │
    │ i64  ┆ f64        ┆ u32     │
    ╞══════╪════════════╪═════════╡
    │ 1    ┆ 1.0        ┆ 2       │
    │ 2    ┆ 0.333333   ┆ 2       │
    └──────┴────────────┴─────────┘
    """
    counts = click_counts(clicks, query=query, document=document, rank=rank, click=click)
    rates = counts.with_columns(top=pl.col(rank).min()).with_columns(
        ctr=pl.col(_CLICKS) / pl.col(_N),
        # the query's impressions: its documents' impressions at the top rank
        weight=pl.col(_N).filter(pl.col(rank) == pl.col("top")).sum().over(query),
    )
    at_top = rates.filter(pl.col(rank) == pl.col("top")).select(query, document, top_ctr="ctr")
    pairs = rates.join(at_top, on=[query, document])
    ratio = (pl.col("weight") * pl.col("ctr")).sum() / (pl.col("weight") * pl.col("top_ctr")).sum()
    harvested = pairs.group_by(rank).agg(
        propensity=pl.when((pl.col("weight") * pl.col("top_ctr")).sum() > 0).then(ratio),
        n_pairs=pl.len(),
    )
    every_rank = counts.select(rank).unique()
    return every_rank.join(harvested, on=rank, how="left").sort(rank).collect()
