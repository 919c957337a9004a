"""Interleaving two rankings (and multileaving several) per row, as expressions.

Each function takes list columns of document ids (one ranking per list, best
first) and returns an expression whose value per row is the interleaved list:
a list of structs holding the document and what the credit of a click on it
needs (its team, its ranks in the two inputs, or the probability that ranking A
placed it). The algorithms run over every row at once in numpy, one step per
position of the interleaved list (:mod:`.kernels` over a :mod:`.batch`); each row's random choices
come from its own seeded stream (:mod:`.draws`), keyed by a hash of ``key``
(by default the rankings themselves), so a row gets the same list whatever
the other rows and their order. The ``t``-th choice of a row uses the ``t``-th
draw of its stream (probabilistic interleaving: draws ``2t`` and ``2t + 1``).

References
----------
- T. Joachims, "Evaluating Retrieval Performance using Clickthrough Data", in
  *Text Mining*, 2003 (balanced interleaving).
- F. Radlinski, M. Kurup and T. Joachims, "How Does Clickthrough Data Reflect
  Retrieval Quality?", CIKM 2008 (team-draft interleaving, and balanced
  interleaving's pseudo-code).
- K. Hofmann, S. Whiteson and M. de Rijke, "A Probabilistic Method for Inferring
  Preferences from Clicks", CIKM 2011.
- A. Schuth, F. Sietsma, S. Whiteson, D. Lefortier and M. de Rijke, "Multileaved
  Comparisons for Fast Online Evaluation", CIKM 2014.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import polars as pl

from polars_rankmetrics._validate import IntoExpr, as_expr
from polars_rankmetrics.online.batch import Batch, check_ranking, lists, repeated_message
from polars_rankmetrics.online.kernels import balanced as balanced_kernel
from polars_rankmetrics.online.kernels import probabilistic as probabilistic_kernel
from polars_rankmetrics.online.kernels import team_draft as team_draft_kernel

DOCUMENT, TEAM, RANK_A, RANK_B, PROBABILITY_A = "document", "team", "rank_a", "rank_b", "p_a"
KEY = "_key"
CHUNK = 1 << 16


def _check_k(k: object) -> int | None:
    if k is None or (isinstance(k, int) and not isinstance(k, bool) and k >= 1):
        return k
    msg = f"`k` must be a positive int or None, got {k!r}"
    raise ValueError(msg)


def _check_seed(seed: object) -> int:
    if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**64:
        return seed
    msg = f"`seed` must be a non-negative int below 2**64, got {seed!r}"
    raise ValueError(msg)


def _interleave(
    rankings: Sequence[IntoExpr],
    names: Sequence[str],
    key: IntoExpr | None,
    seed: int,
    run: Callable[[Batch], dict[str, pl.Series]],
    fields: dict[str, pl.DataType],
) -> pl.Expr:
    """The struct of lists ``run`` computes for each row (documents first).

    One call per batch: the expression refers to the function once.
    """
    exprs = [
        as_expr(ranking, name).alias(f"_{i}")
        for i, (ranking, name) in enumerate(zip(rankings, names, strict=True))
    ]
    hashed = (pl.struct(exprs) if key is None else as_expr(key, "key")).hash(seed).alias(KEY)

    def batch(struct: pl.Series) -> pl.Series:
        parts = struct.struct.unnest()
        series = [parts.get_column(f"_{i}") for i in range(len(exprs))]
        for column, name in zip(series, names, strict=True):
            check_ranking(column, name)
        keys, repeated = parts.get_column(KEY), None
        # in parts of CHUNK rows, on polars' threads: numpy's temporaries stay small (reused,
        # not fresh pages), and numpy lets go of the GIL in its loops

        def part(start: int) -> tuple[tuple[int, int] | None, pl.DataFrame | None]:
            chunk = Batch([s.slice(start, CHUNK) for s in series], keys.slice(start, CHUNK), names)
            return chunk.repeated, None if chunk.repeated else pl.DataFrame(run(chunk))

        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(pl.thread_pool_size()) as pool:
            results = list(pool.map(part, range(0, max(len(keys), 1), CHUNK)))
        done = []
        for start, (found, frame) in zip(range(0, max(len(keys), 1), CHUNK), results, strict=True):
            if found and (repeated is None or found[0] < repeated[0]):
                repeated = (found[0], start + found[1])
            done.append(frame)
        if repeated is not None:
            raise ValueError(repeated_message(names[repeated[0]], repeated[1]))
        return pl.concat(done).to_struct("interleaved")

    # the documents' type is the rankings', known only from the frame's schema
    shape = pl.struct(
        pl.concat_list(exprs).alias(DOCUMENT),
        *[pl.lit(None, pl.List(dtype)).alias(name) for name, dtype in fields.items()],
    )
    return pl.struct(hashed, *exprs).map_batches(batch, return_dtype=pl.dtype_of(shape))


def _limit(batch: Batch, k: int | None) -> int:
    """The most documents a row's list can hold: ``k``, or all the batch's columns."""
    return batch.width if k is None else min(k, batch.width)


def _team_draft_batch(batch: Batch, k: int | None) -> dict[str, pl.Series]:
    """Team-draft multileaving over every row (:func:`.kernels.team_draft`)."""
    import numpy as np

    columns, team, count = team_draft_kernel(batch, _limit(batch, k))
    return {
        DOCUMENT: lists(batch.documents(columns, np.repeat(np.arange(batch.rows), count)), count),
        TEAM: lists(team, count),
    }


def _balanced_batch(batch: Batch, k: int | None) -> dict[str, pl.Series]:
    """Balanced interleaving over every row (:func:`.kernels.balanced`)."""
    import numpy as np

    columns, rank_a, rank_b, count = balanced_kernel(batch, _limit(batch, k))
    return {
        DOCUMENT: lists(batch.documents(columns, np.repeat(np.arange(batch.rows), count)), count),
        RANK_A: lists(rank_a, count),
        RANK_B: lists(rank_b, count),
    }


def _probabilistic_batch(batch: Batch, k: int | None, tau: float) -> dict[str, pl.Series]:
    """Probabilistic interleaving over every row (:func:`.kernels.probabilistic`)."""
    import numpy as np

    columns, team, p_a, count = probabilistic_kernel(batch, _limit(batch, k), tau)
    return {
        DOCUMENT: lists(batch.documents(columns, np.repeat(np.arange(batch.rows), count)), count),
        TEAM: lists(team, count),
        PROBABILITY_A: lists(p_a, count),
    }


def team_draft(
    a: IntoExpr, b: IntoExpr, *, seed: int = 0, key: IntoExpr | None = None, k: int | None = None
) -> pl.Expr:
    """
    Team-draft interleaving of two rankings per row (Radlinski, Kurup and Joachims 2008).

    Like captains picking teams: at each position the ranking that has
    contributed fewer documents (a coin toss on a tie) adds its best document
    not shown yet, and that document joins its team. A click on a document
    credits its team (:func:`interleaving_outcome`). Stops when either ranking
    has nothing left to add, or at ``k`` documents.

    Parameters
    ----------
    a, b
        List columns of document ids, best first; a document appears at most
        once in each (else a ``ValueError`` naming the argument at collect).
    seed
        The seed of the coin tosses.
    key
        The expression whose hash (with ``seed``) seeds each row's coin tosses:
        give the impression's id to draw a new list per impression. By
        default the two rankings: the same pair gets the same list.
    k
        The length of the interleaved list at most (the result page); None:
        until a ranking is exhausted.

    Returns
    -------
    polars.Expr
        A struct named ``interleaved``: ``document`` (the list) and ``team``
        (per position: 0 when ``a`` placed it, 1 when ``b`` did).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> pairs = pl.DataFrame({"a": [["d1", "d2", "d3"]], "b": [["d2", "d4", "d1"]]})
    >>> pairs.select(online.team_draft("a", "b", seed=1)).unnest("interleaved").row(0)
    (['d2', 'd1', 'd4'], [1, 0, 1])
    """
    seed, k = _check_seed(seed), _check_k(k)
    return _interleave(
        (a, b), ("a", "b"), key, seed, lambda batch: _team_draft_batch(batch, k), {TEAM: pl.UInt8}
    ).alias("interleaved")


def team_draft_multileave(
    rankings: Sequence[IntoExpr],
    *,
    seed: int = 0,
    key: IntoExpr | None = None,
    k: int | None = None,
) -> pl.Expr:
    """
    Team-draft multileaving of several rankings per row (Schuth et al. 2014).

    At each position, one of the rankings that have contributed the fewest
    documents so far, drawn uniformly, adds its best document not shown yet.
    With two rankings it is team-draft interleaving (:func:`team_draft`, the
    same list for the same seed). Stops when a ranking has nothing left to
    add, or at ``k`` documents.

    Parameters
    ----------
    rankings
        Two or more list columns of document ids, best first.
    seed, key, k
        As in :func:`team_draft`.

    Returns
    -------
    polars.Expr
        A struct named ``interleaved``: ``document`` and ``team`` (the index in
        ``rankings`` of the ranking that placed each document).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> runs = pl.DataFrame({"a": [[1, 2, 3]], "b": [[2, 3, 1]], "c": [[3, 1, 2]]})
    >>> runs.select(online.team_draft_multileave(["a", "b", "c"], seed=2)).unnest(
    ...     "interleaved"
    ... ).row(0)
    ([1, 2, 3], [0, 1, 2])
    """
    if isinstance(rankings, str | pl.Expr) or len(rankings) < 2:
        msg = f"`rankings` must be a sequence of at least two list columns, got {rankings!r}"
        raise ValueError(msg)
    seed, k = _check_seed(seed), _check_k(k)
    names = [f"rankings[{i}]" for i in range(len(rankings))]
    return _interleave(
        rankings, names, key, seed, lambda batch: _team_draft_batch(batch, k), {TEAM: pl.UInt8}
    ).alias("interleaved")


def balanced(
    a: IntoExpr, b: IntoExpr, *, seed: int = 0, key: IntoExpr | None = None, k: int | None = None
) -> pl.Expr:
    """
    Balanced interleaving of two rankings per row (Joachims 2003).

    A coin decides which ranking goes first; then the two rankings take turns
    by depth: the one whose next document is higher up (the first one on a tie)
    offers it, and it is added if not shown yet. The top ``j`` of the list
    always holds the top ``ceil(j/2)``-ish of both rankings. A click is
    credited by depth (:func:`interleaving_outcome`). Stops when either ranking
    is exhausted, or at ``k`` documents.

    Parameters
    ----------
    a, b, seed, key, k
        As in :func:`team_draft`.

    Returns
    -------
    polars.Expr
        A struct named ``interleaved``: ``document``, and ``rank_a``, ``rank_b``
        (each document's 1-based rank in ``a`` and in ``b``, 0 when absent).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> pairs = pl.DataFrame({"a": [["d1", "d2", "d3"]], "b": [["d2", "d4", "d1"]]})
    >>> pairs.select(online.balanced("a", "b", seed=1)).unnest("interleaved").row(0)
    (['d2', 'd1', 'd4'], [2, 1, 0], [1, 3, 2])
    """
    seed, k = _check_seed(seed), _check_k(k)
    fields = {RANK_A: pl.Int64, RANK_B: pl.Int64}
    return _interleave(
        (a, b), ("a", "b"), key, seed, lambda batch: _balanced_batch(batch, k), fields
    ).alias("interleaved")


def probabilistic(
    a: IntoExpr,
    b: IntoExpr,
    *,
    seed: int = 0,
    key: IntoExpr | None = None,
    k: int | None = None,
    tau: float = 3.0,
) -> pl.Expr:
    """
    Probabilistic interleaving of two rankings per row (Hofmann, Whiteson and de Rijke 2011).

    Each ranking becomes a softmax over the documents, ``P(d)`` proportional
    to ``rank(d) ** -tau`` (a document a ranking lacks ranks just below its
    last); at each position a coin picks a ranking and a document is sampled
    from its softmax over the documents not shown yet. Every document can land
    at any position, so the comparison does not depend on the coins alone: the
    credit (:func:`interleaving_outcome`) marginalises over which ranking
    placed each clicked document. Goes on until every document of either
    ranking is shown, or ``k``.

    Parameters
    ----------
    a, b, seed, key, k
        As in :func:`team_draft`.
    tau
        The softmax's steepness, positive (the paper's 3).

    Returns
    -------
    polars.Expr
        A struct named ``interleaved``: ``document``, ``team`` (which ranking
        was drawn at each position) and ``p_a`` (the probability that ``a``
        placed the document, given the list).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import online
    >>> pairs = pl.DataFrame({"a": [["d1", "d2"]], "b": [["d2", "d1"]]})
    >>> shown = pairs.select(online.probabilistic("a", "b", seed=1)).unnest("interleaved")
    >>> docs, team, p_a = shown.row(0)
    >>> docs, team, [round(p, 3) for p in p_a]
    (['d1', 'd2'], [0, 0], [0.889, 0.5])
    """
    seed, k = _check_seed(seed), _check_k(k)
    if isinstance(tau, bool) or not isinstance(tau, int | float) or not (0 < tau < math.inf):
        msg = f"`tau` must be a positive finite number, got {tau!r}"
        raise ValueError(msg)
    fields = {TEAM: pl.UInt8, PROBABILITY_A: pl.Float64}
    return _interleave(
        (a, b),
        ("a", "b"),
        key,
        seed,
        lambda batch: _probabilistic_batch(batch, k, float(tau)),
        fields,
    ).alias("interleaved")
