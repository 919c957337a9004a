"""The credit of clicks on an interleaved list, and the preference over many queries.

- :func:`interleaving_outcome`: per row, +1 when the clicks prefer ranking A,
  -1 for B, 0 for a tie (probabilistic interleaving: the expected outcome);
- :func:`team_clicks`: per row, the clicks each team of a multileaved list got;
- :func:`interleaving_preference`: wins, ties and losses over the rows, the
  preference and its sign test;
- :func:`multileave_preferences`: the same for every pair of multileaved rankings.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from polars_rankmetrics._validate import IntoExpr, as_expr
from polars_rankmetrics.online.interleaving import (
    CHUNK,
    DOCUMENT,
    PROBABILITY_A,
    RANK_A,
    RANK_B,
    TEAM,
)


def _padded(series: pl.Series, width: int, fill: Any, dtype: Any) -> Any:
    import numpy as np

    lengths = series.list.len().fill_null(0).to_numpy().astype(np.int64)
    flat = series.explode(empty_as_null=False).to_numpy()
    if (lengths == width).all():  # lists of one length: the flat buffer is the table
        return flat.astype(dtype).reshape(len(series), width)
    table = np.full((len(series), width), fill, dtype)
    rows = np.repeat(np.arange(len(series)), lengths)
    offsets = np.cumsum(lengths) - lengths
    table[rows, np.arange(len(flat)) - np.repeat(offsets, lengths)] = flat
    return table


def _clicks(interleaved: pl.DataFrame, clicks: pl.Series) -> tuple[Any, int]:
    """The clicks as a 0/1 array aligned with the interleaved lists; refuses other lengths."""
    import numpy as np

    lengths = interleaved.get_column(DOCUMENT).list.len().fill_null(0)
    if not isinstance(clicks.dtype, pl.List):
        msg = f"`clicks` must be a list column of 0/1 per position, got {clicks.dtype}"
        raise ValueError(msg)
    if (clicks.list.len().fill_null(0) != lengths).any():
        msg = "`clicks`: a row's clicks are not one per position of its interleaved list"
        raise ValueError(msg)
    flat = clicks.explode(empty_as_null=False)
    if flat.dtype != pl.Boolean and not flat.is_in([0, 1]).all():
        msg = "`clicks` must hold only 0 and 1 (or booleans)"
        raise ValueError(msg)
    width = int(lengths.max() or 0) if len(lengths) else 0
    return _padded(clicks.cast(pl.List(pl.Int64)), width, 0, np.int64), width


def _outcomes(struct: pl.Series) -> pl.Series:
    """The outcome of each row, in parts of ``CHUNK`` rows (small numpy temporaries)."""
    parts = [_part_outcomes(struct.slice(start, CHUNK)) for start in range(0, len(struct), CHUNK)]
    return pl.concat(parts) if parts else pl.Series([], dtype=pl.Float64)


def _part_outcomes(struct: pl.Series) -> pl.Series:
    import numpy as np

    parts = struct.struct.unnest()
    interleaved = parts.get_column("interleaved").struct.unnest()
    clicks, width = _clicks(interleaved, parts.get_column("clicks"))
    fields = interleaved.columns
    if PROBABILITY_A in fields:
        p_a = _padded(interleaved.get_column(PROBABILITY_A), width, 0.0, np.float64)
        return pl.Series(_expected_sign(p_a, clicks), dtype=pl.Float64)
    if TEAM in fields:
        team = _padded(interleaved.get_column(TEAM).cast(pl.List(pl.Int64)), width, -1, np.int64)
        a = (clicks * (team == 0)).sum(axis=1)
        b = (clicks * (team == 1)).sum(axis=1)
        return pl.Series(np.sign(a - b).astype(np.float64), dtype=pl.Float64)
    if RANK_A in fields:
        rank_a = _padded(interleaved.get_column(RANK_A), width, 0, np.int64)
        rank_b = _padded(interleaved.get_column(RANK_B), width, 0, np.int64)
        return pl.Series(_balanced_outcome(rank_a, rank_b, clicks), dtype=pl.Float64)
    msg = "`interleaved` must be the output of team_draft, balanced or probabilistic"
    raise ValueError(msg)


def _balanced_outcome(rank_a: Any, rank_b: Any, clicks: Any) -> Any:
    """Joachims' credit: depth ``k`` of the lowest click; clicks in each top ``k``."""
    import numpy as np

    rows = np.arange(clicks.shape[0])
    big = np.iinfo(np.int64).max
    a = np.where(rank_a > 0, rank_a, big)
    b = np.where(rank_b > 0, rank_b, big)
    clicked = clicks > 0
    lowest = (
        clicks.shape[1] - 1 - np.argmax(clicked[:, ::-1], axis=1) if clicks.shape[1] else rows * 0
    )
    depth = np.minimum(a[rows, lowest], b[rows, lowest]) if clicks.shape[1] else rows * 0
    h_a = (clicked & (a <= depth[:, None])).sum(axis=1)
    h_b = (clicked & (b <= depth[:, None])).sum(axis=1)
    return np.where(clicked.any(axis=1), np.sign(h_a - h_b), 0).astype(np.float64)


def _expected_sign(p_a: Any, clicks: Any) -> Any:
    """``E[sign(#A - #B)]`` with each clicked position A's with probability ``p_a``, independently.

    The distribution of ``#A`` by dynamic programming over the positions
    (``counts x rows``, a position without a click leaves it as it is), then
    laid out by ``#A - #B`` to sum the two sides.
    """
    import numpy as np

    rows, width = clicks.shape
    clicked = clicks > 0
    stay = np.ascontiguousarray(np.where(clicked, 1 - p_a, 1.0).T)
    move = np.ascontiguousarray(np.where(clicked, p_a, 0.0).T)
    distribution = np.zeros((width + 1, rows))
    distribution[0] = 1.0
    for position in range(width):
        p, q = move[position], stay[position]
        top = p * distribution[position]
        distribution[1 : position + 1] = (
            p * distribution[:position] + q * distribution[1 : position + 1]
        )
        distribution[0] *= q
        distribution[position + 1] = top
    # by #A - #B = 2 #A - #clicks, from -width to width
    clicks_per_row = clicked.sum(axis=1)
    by_difference = np.zeros((rows, 2 * width + 1))
    index = np.arange(rows) * (2 * width + 1) + width - clicks_per_row
    for count in range(width + 1):
        inside = count <= clicks_per_row
        by_difference.ravel()[index[inside] + 2 * count] = distribution[count][inside]
    return by_difference[:, width + 1 :].sum(axis=1) - by_difference[:, :width].sum(axis=1)


def interleaving_outcome(interleaved: IntoExpr, clicks: IntoExpr) -> pl.Expr:
    """
    Which of the two interleaved rankings the clicks prefer, per row.

    The credit depends on how the list was made:

    - team draft (:func:`team_draft`): the ranking whose team got more clicks
      wins (Radlinski, Kurup and Joachims 2008);
    - balanced (:func:`balanced`): with ``k`` the smaller rank, in ``a`` or in
      ``b``, of the lowest clicked document, the ranking with more clicked
      documents in its top ``k`` wins (Joachims 2003);
    - probabilistic (:func:`probabilistic`): the expected outcome over which
      ranking placed each clicked document, given the list (each with
      probability ``p_a``, independently): ``P(A gets more clicks) - P(B gets
      more)`` (Hofmann, Whiteson and de Rijke 2011).

    A row without clicks is a tie.

    Parameters
    ----------
    interleaved
        The struct an interleaving function returned.
    clicks
        A list column of 0/1 (or booleans), one per position of the list.

    Returns
    -------
    polars.Expr
        Float64: 1 (``a`` wins), -1 (``b`` wins), 0 (a tie); probabilistic
        interleaving's expected outcome is in [-1, 1].

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> pairs = pl.DataFrame({"a": [["d1", "d2", "d3"]], "b": [["d2", "d4", "d1"]]})
    >>> shown = pairs.select(online.team_draft("a", "b", seed=1))  # d2 (b), d1 (a), d4 (b)
    >>> shown.with_columns(clicks=pl.Series([[0, 1, 0]])).select(
    ...     online.interleaving_outcome("interleaved", "clicks")
    ... ).item()
    1.0
    """
    struct = pl.struct(
        as_expr(interleaved, "interleaved").alias("interleaved"),
        as_expr(clicks, "clicks").alias("clicks"),
    )
    return struct.map_batches(_outcomes, return_dtype=pl.Float64).alias("outcome")


def team_clicks(interleaved: IntoExpr, clicks: IntoExpr, rankings: int) -> pl.Expr:
    """
    The clicks each team of a team-draft multileaved list got, per row.

    Parameters
    ----------
    interleaved
        The struct :func:`team_draft_multileave` (or :func:`team_draft`) returned.
    clicks
        A list column of 0/1 (or booleans), one per position.
    rankings
        The number of rankings multileaved (the teams 0, 1, ...).

    Returns
    -------
    polars.Expr
        A list of ``rankings`` click counts (UInt32), named ``team_clicks``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> shown = pl.DataFrame(
    ...     {"interleaved": [{"document": [1, 2, 3], "team": [0, 1, 2]}], "clicks": [[1, 0, 1]]}
    ... )
    >>> shown.select(online.team_clicks("interleaved", "clicks", 3)).item().to_list()
    [1, 0, 1]
    """
    if isinstance(rankings, bool) or not isinstance(rankings, int) or rankings < 2:
        msg = f"`rankings` must be an int >= 2 (the number of teams), got {rankings!r}"
        raise ValueError(msg)

    def counts(struct: pl.Series) -> pl.Series:
        import numpy as np

        parts = struct.struct.unnest()
        shown = parts.get_column("interleaved").struct.unnest()
        clicked, width = _clicks(shown, parts.get_column("clicks"))
        team = _padded(shown.get_column(TEAM).cast(pl.List(pl.Int64)), width, -1, np.int64)
        table = np.stack([(clicked * (team == t)).sum(axis=1) for t in range(rankings)], axis=1)
        return pl.Series(table.astype(np.uint32)).arr.to_list()

    struct = pl.struct(
        as_expr(interleaved, "interleaved").alias("interleaved"),
        as_expr(clicks, "clicks").alias("clicks"),
    )
    return struct.map_batches(counts, return_dtype=pl.List(pl.UInt32)).alias("team_clicks")


def sign_test(wins: int, losses: int) -> float:
    """The two-sided exact sign test of ``wins`` against ``losses`` (ties left out).

    ``min(1, 2 P(X <= min(wins, losses)))`` for ``X ~ Binomial(wins + losses, 1/2)``,
    summed in log space; 1 when there are neither wins nor losses.
    """
    n = wins + losses
    if n == 0 or wins == losses:
        return 1.0
    low = min(wins, losses)
    log_half = -n * math.log(2.0)
    terms = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half
        for i in range(low + 1)
    ]
    top = max(terms)
    tail = math.exp(top) * math.fsum(math.exp(t - top) for t in terms)
    return min(1.0, 2.0 * tail)


def interleaving_preference(
    outcomes: pl.Series | pl.DataFrame, column: str = "outcome"
) -> pl.DataFrame:
    """
    Wins, ties and losses of ranking A over B across queries, with the sign test.

    ``preference = (wins + ties / 2) / queries - 1/2`` (Chapelle, Joachims,
    Radlinski and Yue 2012's Delta_AB): positive when A is preferred. The
    p-value is the two-sided exact sign test of the wins against the losses,
    ties left out (``scipy.stats.binomtest(wins, wins + losses)``).

    Parameters
    ----------
    outcomes
        The per-query outcomes (:func:`interleaving_outcome`): a Series, or a
        frame holding them in ``column``. A positive outcome is a win for A.
    column
        The column of ``outcomes`` when it is a frame.

    Returns
    -------
    polars.DataFrame
        One row: ``queries, wins, ties, losses, preference, p_value``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> online.interleaving_preference(pl.Series("outcome", [1.0, 1.0, 0.0, -1.0, 1.0]))
    shape: (1, 6)
    ┌─────────┬──────┬──────┬────────┬────────────┬─────────┐
    │ queries ┆ wins ┆ ties ┆ losses ┆ preference ┆ p_value │
    │ ---     ┆ ---  ┆ ---  ┆ ---    ┆ ---        ┆ ---     │
    │ i64     ┆ i64  ┆ i64  ┆ i64    ┆ f64        ┆ f64     │
    ╞═════════╪══════╪══════╪════════╪════════════╪═════════╡
    │ 5       ┆ 3    ┆ 1    ┆ 1      ┆ 0.2        ┆ 0.625   │
    └─────────┴──────┴──────┴────────┴────────────┴─────────┘
    """
    if isinstance(outcomes, pl.DataFrame):
        if column not in outcomes.columns:
            msg = f"`outcomes` has no column {column!r}"
            raise ValueError(msg)
        values = outcomes.get_column(column)
    elif isinstance(outcomes, pl.Series):
        values = outcomes
    else:
        msg = f"`outcomes` must be a polars Series or DataFrame, got {type(outcomes).__name__}"
        raise ValueError(msg)
    if values.null_count() or not (values.dtype.is_numeric() or len(values) == 0):
        msg = "`outcomes` must be numbers without nulls (positive: A wins)"
        raise ValueError(msg)
    wins, losses = int((values > 0).sum()), int((values < 0).sum())
    queries = len(values)
    ties = queries - wins - losses
    preference = (wins + ties / 2) / queries - 0.5 if queries else math.nan
    return pl.DataFrame(
        {
            "queries": [queries],
            "wins": [wins],
            "ties": [ties],
            "losses": [losses],
            "preference": [preference],
            "p_value": [sign_test(wins, losses)],
        }
    )


def multileave_preferences(
    counts: pl.Series | pl.DataFrame, column: str = "team_clicks"
) -> pl.DataFrame:
    """
    Every pair of multileaved rankings: wins, ties, losses and the sign test.

    For rankings ``i < j``, a query is a win for ``i`` when its team got more
    clicks than ``j``'s (Schuth et al. 2014), a tie when as many.

    Parameters
    ----------
    counts
        Per-query click counts per team (:func:`team_clicks`): a Series of
        lists, or a frame holding them in ``column``.
    column
        The column of ``counts`` when it is a frame.

    Returns
    -------
    polars.DataFrame
        ``ranking, other, queries, wins, ties, losses, preference, p_value``,
        one row per pair (``ranking < other``, the indices of the rankings).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> counts = pl.Series("team_clicks", [[1, 0, 0], [0, 1, 1], [2, 0, 1]])
    >>> online.multileave_preferences(counts).select("ranking", "other", "wins", "losses")
    shape: (3, 4)
    ┌─────────┬───────┬──────┬────────┐
    │ ranking ┆ other ┆ wins ┆ losses │
    │ ---     ┆ ---   ┆ ---  ┆ ---    │
    │ i64     ┆ i64   ┆ i64  ┆ i64    │
    ╞═════════╪═══════╪══════╪════════╡
    │ 0       ┆ 1     ┆ 2    ┆ 1      │
    │ 0       ┆ 2     ┆ 2    ┆ 1      │
    │ 1       ┆ 2     ┆ 0    ┆ 1      │
    └─────────┴───────┴──────┴────────┘
    """
    series = counts.get_column(column) if isinstance(counts, pl.DataFrame) else counts
    if not isinstance(series, pl.Series) or not isinstance(series.dtype, pl.List):
        msg = "`counts` must be a Series of lists (or a frame with them): team_clicks' output"
        raise ValueError(msg)
    teams = int(series.list.len().max() or 0)  # type: ignore[arg-type]
    rows = []
    for i in range(teams):
        for j in range(i + 1, teams):
            difference = series.list.get(i, null_on_oob=True).fill_null(0).cast(
                pl.Int64
            ) - series.list.get(j, null_on_oob=True).fill_null(0).cast(pl.Int64)
            table = interleaving_preference(difference.alias("outcome"))
            rows.append(pl.DataFrame({"ranking": [i], "other": [j]}).hstack(table))
    return pl.concat(rows) if rows else pl.DataFrame()
