"""Rank-biased overlap (Webber, Moffat and Zobel 2010) between two rankings per row.

Two rankings ``S`` and ``L`` of lengths ``s <= l`` (the shorter is called ``S``)
agree at depth ``d`` by ``A_d = X_d / d``, where ``X_d`` is the number of items
in both prefixes of length ``d`` (for ``d > s`` the prefix of ``S`` is all of
``S``). With persistence ``p`` and ``w_d = p**d / d``:

- ``'min'``: the lower bound, as if no item below the seen prefixes ever
  matched (Eq. 11 of the paper, extended to uneven lengths):
  ``(1-p)/p * (sum_{d<=l} (X_d - X_l) w_d - X_l ln(1-p))``.
- ``'res'``: the residual, the width of the interval the unseen items leave:
  ``RBO_max - RBO_min``, where ``RBO_max`` lets every unseen item of either
  list match (Eqs. 13 and 30: ``X_d`` grows by one a depth below ``s`` for the
  short list, by two below ``l``, until ``A_d = 1`` at ``f = l + s - X_l``).
- ``'ext'``: the point estimate extrapolated from the seen prefixes (Eq. 32):
  ``(1-p)/p * (sum_{d<=l} X_d w_d + sum_{d=s+1}^{l} X_s (d-s)/(s d) p**d)
  + ((X_l - X_s)/l + X_s/s) p**l``. Equal to the ``rbo`` package's
  ``RankingSimilarity(S, T).rbo_ext(p)``.
- ``'truncated'``: ``(1-p)/p * sum_{d<=k} X_d w_d`` with ``k = min(s, l)``, the
  prefix sum that the ``rbo`` package's ``RankingSimilarity(S, T).rbo(p=p)``
  returns (its ``rbo(p=p, ext=True)`` adds ``X_k / k * p**k``, which is ``'ext'``
  when both lengths are equal).

Every form is computed from one number per common item, ``m = max(position in
S, position in L)`` (the depth from which it counts in ``X_d``), so a batch of
rankings is one explode and one join, whatever the depth.

Every form lies in [0, 1] (rounding is clipped), and ``'ext'`` of a ranking
with itself (equal lists without null items) is exactly 1.

For ``'ext'`` and ``'truncated'``, two empty rankings give 1 and one empty
ranking gives 0, as the ``rbo`` package does; ``'min'`` and ``'res'`` follow
their formulas (nothing seen: a lower bound of 0 and a residual of 1). A null
list gives null. Null elements never match anything.

**Ties.** A ranking here is a list: its order is the ranking, and items are
never tied. The paper's tie-aware variant (Section 4.3, ``A_d = 2 X_d /
(|S_:d| + |L_:d|)`` with tied groups straddling ``d``) is not offered; the
``rbo`` package does not implement it either (its Eq. 28 line reduces to
``X_d / d`` on lists without duplicates). :func:`rbo_runs` orders equal scores
as trec_eval does (document id descending) before comparing. Corsi and Urbano
(SIGIR 2024) define that variant (``RBO^w``) and two others precisely.

References
----------
W. Webber, A. Moffat and J. Zobel, "A Similarity Measure for Indefinite
Rankings", ACM TOIS 28(4), 2010.
"""

from __future__ import annotations

import math
from typing import Literal, TypeAlias, get_args

import polars as pl

from polars_rankmetrics._validate import IntoExpr, as_expr
from polars_rankmetrics.evaluation.inputs import read_run
from polars_rankmetrics.evaluation.topics import trec_ranked
from polars_rankmetrics.meta_evaluation._overlap import per_row_sums

RboKind: TypeAlias = Literal["min", "res", "ext", "truncated"]
"""Which rank-biased overlap: the lower bound, the residual, the extrapolated
point estimate, or the prefix sum the ``rbo`` package's ``rbo()`` returns."""

_FIELDS = ("__rbo_a", "__rbo_b")


def check_p(p: object) -> float:
    """Return ``p`` as a float if it lies in (0, 1), else raise ``ValueError``."""
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 < float(p) < 1.0:
        msg = f"`p` must be a number in (0, 1) (exclusive), got {p!r}"
        raise ValueError(msg)
    return float(p)


def check_kind(kind: object) -> RboKind:
    """Return ``kind`` if it is one of :data:`RboKind`, else raise ``ValueError``."""
    allowed = get_args(RboKind)
    if kind not in allowed:
        msg = f"`kind` must be one of {', '.join(map(repr, allowed))}, got {kind!r}"
        raise ValueError(msg)
    return kind  # type: ignore[return-value]


def check_depth(depth: object) -> int | None:
    """Return ``depth`` if it is None or a positive int, else raise ``ValueError``."""
    if depth is None:
        return None
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        msg = f"`depth` must be a positive int or None, got {depth!r}"
        raise ValueError(msg)
    return depth


def rbo(
    ranking: IntoExpr,
    other: IntoExpr,
    *,
    p: float = 0.9,
    kind: RboKind = "ext",
    depth: int | None = None,
) -> pl.Expr:
    """
    Rank-biased overlap between two list columns, one value per row, named ``rbo``.

    See the module documentation for the formulas of each ``kind``. Both
    lists are read in order (first item = rank 1), cut to ``depth`` items when
    it is given. Lists of different lengths are handled by the paper's
    uneven-length forms. A list that holds an item twice is refused at collect
    (``ComputeError`` naming the column).

    Parameters
    ----------
    ranking, other
        List columns (or expressions) holding the two rankings of each row;
        their items must have the same type.
    p
        The persistence, in (0, 1): the weight of depth ``d`` falls as
        ``p**(d-1)``.
    kind : {'ext', 'min', 'res', 'truncated'}
        Which form (module documentation).
    depth
        Compare only the first ``depth`` items of each list (None: all).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.meta_evaluation import rbo
    >>> frame = pl.DataFrame(
    ...     {"a": [["d1", "d2", "d3"], ["x", "y"]], "b": [["d2", "d1", "d4"], ["x"]]}
    ... )
    >>> frame.select(
    ...     ext=rbo("a", "b", p=0.9),
    ...     low=rbo("a", "b", p=0.9, kind="min"),
    ...     res=rbo("a", "b", p=0.9, kind="res"),
    ... )
    shape: (2, 3)
    ┌──────┬──────────┬──────────┐
    │ ext  ┆ low      ┆ res      │
    │ ---  ┆ ---      ┆ ---      │
    │ f64  ┆ f64      ┆ f64      │
    ╞══════╪══════════╪══════════╡
    │ 0.63 ┆ 0.311686 ┆ 0.561314 │
    │ 1.0  ┆ 0.255843 ┆ 0.744157 │
    └──────┴──────────┴──────────┘
    """
    p = check_p(p)
    kind = check_kind(kind)
    depth = check_depth(depth)
    first, second = as_expr(ranking, "ranking"), as_expr(other, "other")
    names = (
        str(ranking) if isinstance(ranking, str) else "ranking",
        str(other) if isinstance(other, str) else "other",
    )

    def batch(pair: pl.Series) -> pl.Series:
        frame = pair.struct.unnest()
        return rbo_frame(frame, _FIELDS[0], _FIELDS[1], p=p, kind=kind, depth=depth, names=names)

    pairs = pl.struct(first.alias(_FIELDS[0]), second.alias(_FIELDS[1]))
    return pairs.map_batches(batch, return_dtype=pl.Float64, is_elementwise=True).alias("rbo")


def ranked_lists(run: object, *, depth: int | None = None) -> pl.DataFrame:
    """
    Each query's documents as one list, best first: ``query: str, docs: list[str]``.

    Documents are ordered by score, descending, and equal scores by document
    id, descending (string comparison), as trec_eval orders them; the rank
    column of a TREC file is ignored. A null or NaN score is not retrieved
    (as :func:`polars_rankmetrics.evaluate` reads it): the document is left
    out, and a query with no other row gets an empty list. Queries come out
    sorted.

    Parameters
    ----------
    run
        Any run :func:`polars_rankmetrics.evaluate` reads.
    depth
        Keep only the first ``depth`` documents of each query.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.meta_evaluation.rbo import ranked_lists
    >>> run = pl.DataFrame({"query": ["q1"] * 3, "doc": ["a", "b", "c"], "score": [1.0, 2.0, 1.0]})
    >>> ranked_lists(run)
    shape: (1, 2)
    ┌───────┬─────────────────┐
    │ query ┆ docs            │
    │ ---   ┆ ---             │
    │ str   ┆ list[str]       │
    ╞═══════╪═════════════════╡
    │ q1    ┆ ["b", "c", "a"] │
    └───────┴─────────────────┘
    """
    depth = check_depth(depth)
    return (
        read_run(run)
        .lazy()
        .group_by("query")
        .agg(trec_ranked(pl.col("doc"), depth).alias("docs"))
        .sort("query")
        .collect()
    )


def rbo_runs(
    run: object,
    other: object,
    *,
    p: float = 0.9,
    kind: RboKind = "ext",
    depth: int | None = None,
) -> pl.DataFrame:
    """
    Rank-biased overlap per query between two runs: ``query, rbo``.

    Each run is ordered as trec_eval orders it (:func:`ranked_lists`), the
    two are joined on query, and :func:`rbo` compares the two lists. A query
    in one run only is compared with an empty ranking (``'ext'``: 0). A run
    that lists a document twice for a query is refused.

    Parameters
    ----------
    run, other
        Any run :func:`polars_rankmetrics.evaluate` reads (TREC file, frame,
        ``{query: {doc: score}}``, ranx ``Run``, ...).
    p
        The persistence, in (0, 1).
    kind : {'ext', 'min', 'res', 'truncated'}
        Which form of RBO (see :func:`rbo`).
    depth
        Compare only the first ``depth`` documents of each ranking.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import rbo_runs
    >>> run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}
    >>> other = {"q1": {"b": 3.0, "a": 2.0, "c": 1.0}, "q2": {"x": 5.0}}
    >>> rbo_runs(run, other, p=0.9)
    shape: (2, 2)
    ┌───────┬─────┐
    │ query ┆ rbo │
    │ ---   ┆ --- │
    │ str   ┆ f64 │
    ╞═══════╪═════╡
    │ q1    ┆ 0.9 │
    │ q2    ┆ 1.0 │
    └───────┴─────┘
    """
    p = check_p(p)
    kind = check_kind(kind)
    depth = check_depth(depth)
    empty = pl.lit([], dtype=pl.List(pl.String))
    joined = (
        ranked_lists(run, depth=depth)
        .join(ranked_lists(other, depth=depth), on="query", how="full", coalesce=True)
        .sort("query")
        .with_columns(pl.col("docs", "docs_right").fill_null(empty))
    )
    values = rbo_frame(
        joined, "docs", "docs_right", p=p, kind=kind, depth=None, names=("run", "other")
    )
    return joined.select("query", values.alias("rbo"))


def _weights(p: float, size: int) -> pl.Series:
    """``W(n) = sum_{d=1}^{n} p**d / d`` for ``n = 0 .. size``."""
    depths = pl.int_range(1, size + 1, eager=True).cast(pl.Float64)
    terms = (p**depths) / depths
    return pl.concat([pl.Series([0.0]), terms.cum_sum()])


def _geometric(p: float, n: pl.Expr) -> pl.Expr:
    """``G(n) = sum_{d=1}^{n} p**d``."""
    return p * (1.0 - pl.lit(p).pow(n)) / (1.0 - p)


def rbo_frame(
    frame: pl.DataFrame,
    first: str,
    second: str,
    *,
    p: float,
    kind: RboKind,
    depth: int | None,
    names: tuple[str, str] = ("ranking", "other"),
) -> pl.Series:
    """RBO of the list columns ``first`` and ``second`` of ``frame``, one value a row."""
    lists = frame.select(
        pl.int_range(pl.len(), dtype=pl.UInt32).alias("row"),
        *(
            (pl.col(name).list.head(depth) if depth else pl.col(name)).alias(side)
            for name, side in ((first, "a"), (second, "b"))
        ),
    )
    if lists.schema["a"] != lists.schema["b"]:
        kinds = f"{lists.schema['a']} and {lists.schema['b']}"
        msg = f"`{names[0]}` and `{names[1]}` must be lists of one item type, got {kinds}"
        raise pl.exceptions.ComputeError(msg)
    lengths = lists.select(
        "row",
        la=pl.col("a").list.len().fill_null(0),
        lb=pl.col("b").list.len().fill_null(0),
        null=pl.col("a").is_null() | pl.col("b").is_null(),
        # Equal lists without a null item (a null matches nothing, not even itself).
        same=(pl.col("a") == pl.col("b")).fill_null(False)
        & (pl.col("a").list.drop_nulls().list.len() == pl.col("a").list.len()),
    )
    short = pl.min_horizontal("la", "lb")
    long = pl.max_horizontal("la", "lb")
    size = int(lengths.select((pl.col("la") + pl.col("lb")).max()).item() or 0)
    table = _weights(p, max(size, 1))
    per_row = per_row_sums(lists, table, names)
    values = lengths.join(per_row, on="row", how="left").with_columns(
        pl.col("x_l", "x_s").fill_null(0).cast(pl.Float64),
        pl.col("w_sum", "w_sum_short").fill_null(0.0),
        s=short.cast(pl.Float64),
        l=long.cast(pl.Float64),
    )
    # Every form lies in [0, 1]; the sums of powers can round a few ulps past either end.
    value = _formula(p, kind, table).clip(0.0, 1.0)
    if kind == "ext":  # a ranking with itself agrees at every depth: 1, not 1 - 1e-14
        value = pl.when(pl.col("same")).then(1.0).otherwise(value)
    if kind in ("ext", "truncated"):  # the rbo package's values for empty rankings
        value = (
            pl.when((pl.col("la") == 0) & (pl.col("lb") == 0))
            .then(1.0)
            .when((pl.col("la") == 0) | (pl.col("lb") == 0))
            .then(0.0)
            .otherwise(value)
        )
    result = values.sort("row").select(pl.when(~pl.col("null")).then(value).alias("rbo"))
    return result.to_series()


def _formula(p: float, kind: RboKind, table: pl.Series) -> pl.Expr:
    scale = (1.0 - p) / p
    s, long, x_s, x_l = pl.col("s"), pl.col("l"), pl.col("x_s"), pl.col("x_l")

    def w(n: pl.Expr) -> pl.Expr:
        return pl.lit(table).gather(n.cast(pl.Int64))

    # sum_{d<=l} X_d w_d = sum over common items of W(l) - W(m - 1)
    seen = x_l * w(long) - pl.col("w_sum")
    if kind == "truncated":
        return scale * (x_s * w(s) - pl.col("w_sum_short"))
    if kind == "ext":
        tail = x_s * ((_geometric(p, long) - _geometric(p, s)) / s - (w(long) - w(s)))
        return scale * (seen + tail) + ((x_l - x_s) / long + x_s / s) * pl.lit(p).pow(long)
    minimum = scale * (x_l * -math.log1p(-p) - pl.col("w_sum"))
    if kind == "min":
        return minimum
    # RBO_max: X_d + (d - s) for s < d <= l, X_l + 2d - s - l for l < d <= f, then A_d = 1.
    f = long + s - x_l
    short_tail = (_geometric(p, long) - _geometric(p, s)) - s * (w(long) - w(s))
    long_tail = (x_l - s - long) * (w(f) - w(long)) + 2.0 * (_geometric(p, f) - _geometric(p, long))
    maximum = scale * (seen + short_tail + long_tail) + pl.lit(p).pow(f)
    return maximum - minimum
