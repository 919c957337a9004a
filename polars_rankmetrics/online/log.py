"""Click logs: their column names, the checks of their rows, and the shared per-row columns.

A click log has one row per shown result: the session (one result page shown
once), the query, the document, its rank (1 for the top) and whether it was
clicked. Every click model reads it through :func:`read_log`, which renames the
columns to the names used inside the package (``session, query, document, rank,
click``), checks the rows and sorts them by session and rank, so that the
cumulative window expressions of the cascade models run down each result page.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

SESSION, QUERY, DOCUMENT, RANK, CLICK = "session", "query", "document", "rank", "click"


@dataclass(frozen=True)
class LogColumns:
    """The names of a click log's columns (the defaults are the names used inside)."""

    session: str = SESSION
    query: str = QUERY
    document: str = DOCUMENT
    rank: str = RANK
    click: str = CLICK

    def __post_init__(self) -> None:
        """Refuse a name that is not a string, or two roles with one column."""
        for role in (SESSION, QUERY, DOCUMENT, RANK, CLICK):
            value = getattr(self, role)
            if not isinstance(value, str) or not value:
                msg = f"`{role}` must be a column name (a non-empty string), got {value!r}"
                raise ValueError(msg)
        names = [self.session, self.query, self.document, self.rank, self.click]
        if len(set(names)) != len(names):
            msg = f"the log's columns must be five different names, got {names}"
            raise ValueError(msg)

    def to_inside(self, *, click: bool = True) -> dict[str, str]:
        """The renaming from the log's names to the names used inside."""
        roles = (
            (SESSION, QUERY, DOCUMENT, RANK, CLICK) if click else (SESSION, QUERY, DOCUMENT, RANK)
        )
        return {getattr(self, role): role for role in roles}

    def to_outside(self, *, click: bool = True) -> dict[str, str]:
        """The renaming back, from the names used inside to the log's names."""
        return {inside: outside for outside, inside in self.to_inside(click=click).items()}


def _as_lazy(frame: object, name: str) -> pl.LazyFrame:
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    if isinstance(frame, pl.LazyFrame):
        return frame
    msg = f"`{name}` must be a polars DataFrame or LazyFrame, got {type(frame).__name__}"
    raise ValueError(msg)


def _check_columns(lazy: pl.LazyFrame, columns: LogColumns, name: str, *, click: bool) -> None:
    schema = lazy.collect_schema()
    missing = [column for column in columns.to_inside(click=click) if column not in schema]
    if missing:
        msg = f"`{name}` has no column {missing[0]!r} (it has {list(schema.names())})"
        raise ValueError(msg)
    rank = schema[columns.rank]
    if not rank.is_integer():
        msg = f"column {columns.rank!r} (the rank) must hold integers, got {rank}"
        raise ValueError(msg)
    if click:
        kind = schema[columns.click]
        if not (kind == pl.Boolean or kind.is_integer() or kind.is_float()):
            msg = f"column {columns.click!r} (the click) must hold 0/1 or booleans, got {kind}"
            raise ValueError(msg)


def check_ranks(frame: pl.DataFrame, rank_column: str, name: str) -> None:
    """Refuse sessions whose ranks are not 1, 2, ..., n (each once), naming the column."""
    shape = frame.group_by(SESSION).agg(
        low=pl.col(RANK).min(),
        high=pl.col(RANK).max(),
        rows=pl.len(),
        distinct=pl.col(RANK).n_unique(),
        nulls=pl.col(RANK).null_count(),
    )
    bad = shape.filter(
        (pl.col("nulls") > 0)
        | (pl.col("low") != 1)
        | (pl.col("high") != pl.col("rows"))
        | (pl.col("distinct") != pl.col("rows"))
    )
    if bad.height:
        row = bad.row(0, named=True)
        if row["nulls"]:
            problem = "a null rank"
        elif row["distinct"] != row["rows"]:
            problem = "a rank repeated"
        elif row["low"] != 1:
            problem = f"ranks starting at {row['low']} (ranks start at 1)"
        else:
            problem = f"ranks up to {row['high']} for {row['rows']} rows (a gap)"
        msg = (
            f"column {rank_column!r} of `{name}`: session {row[SESSION]!r} has {problem}; "
            f"the ranks of each session must be 1, 2, ..., n ({bad.height} such sessions)"
        )
        raise ValueError(msg)


def _check_clicks(frame: pl.DataFrame, click_column: str, name: str) -> None:
    values = frame.get_column(CLICK)
    if values.dtype == pl.Boolean:
        bad = values.is_null()
    else:
        bad = values.is_null() | ~values.is_in(pl.Series([0, 1]).cast(values.dtype).implode())
    if bad.any():
        first = values.filter(bad)[0]
        msg = (
            f"column {click_column!r} of `{name}` must hold only 0 and 1 (or booleans), "
            f"found {first!r} ({int(bad.sum())} such rows)"
        )
        raise ValueError(msg)


def _check_one_query(frame: pl.DataFrame, query_column: str, name: str) -> None:
    queries = frame.group_by(SESSION).agg(pl.col(QUERY).n_unique()).filter(pl.col(QUERY) > 1)
    if queries.height:
        msg = (
            f"column {query_column!r} of `{name}`: session {queries.item(0, SESSION)!r} has "
            "more than one query; a session is one result page of one query"
        )
        raise ValueError(msg)


def read_log(log: object, columns: LogColumns, name: str = "log") -> pl.DataFrame:
    """The log with the names used inside, checked, clicks as Int8, sorted by session and rank.

    Raises ``ValueError`` naming the column for clicks that are not 0/1 (or null),
    ranks that are not 1..n within a session (a rank 0, a repeated rank, a gap),
    and sessions with more than one query.
    """
    lazy = _as_lazy(log, name)
    _check_columns(lazy, columns, name, click=True)
    frame = lazy.select(
        [pl.col(outside).alias(inside) for outside, inside in columns.to_inside().items()]
    ).collect()
    _check_clicks(frame, columns.click, name)
    check_ranks(frame, columns.rank, name)
    _check_one_query(frame, columns.query, name)
    return frame.with_columns(pl.col(CLICK).cast(pl.Int8), pl.col(RANK).cast(pl.Int32)).sort(
        SESSION, RANK
    )


def read_rankings(rankings: object, columns: LogColumns, name: str = "rankings") -> pl.DataFrame:
    """Rankings to predict or simulate clicks on: the log's columns without ``click``."""
    lazy = _as_lazy(rankings, name)
    _check_columns(lazy, columns, name, click=False)
    inside = columns.to_inside(click=False)
    extra = [column for column in lazy.collect_schema().names() if column not in inside]
    clash = [column for column in extra if column in inside.values()]
    if clash:
        msg = f"`{name}` has a column {clash[0]!r} besides the one it names by that role"
        raise ValueError(msg)
    frame = lazy.rename(inside).collect()
    check_ranks(frame, columns.rank, name)
    _check_one_query(frame, columns.query, name)
    return frame.with_columns(pl.col(RANK).cast(pl.Int32)).sort(SESSION, RANK, maintain_order=True)


def previous_click_rank() -> pl.Expr:
    """The rank of the last click above each row in its session, 0 when none (UBM's r')."""
    clicked = pl.when(pl.col(CLICK) == 1).then(pl.col(RANK))
    return clicked.shift(1).forward_fill().over(SESSION).fill_null(0).cast(pl.Int32)


def last_click_rank() -> pl.Expr:
    """The rank of the session's last click, 0 when it has none."""
    clicked = pl.when(pl.col(CLICK) == 1).then(pl.col(RANK))
    return clicked.max().over(SESSION).fill_null(0).cast(pl.Int32)


def first_click_rank() -> pl.Expr:
    """The rank of the session's first click, its length + 1 when it has none."""
    clicked = pl.when(pl.col(CLICK) == 1).then(pl.col(RANK))
    return clicked.min().over(SESSION).fill_null(pl.col(RANK).max().over(SESSION) + 1)
