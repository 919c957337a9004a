"""Interleaving two rankings (and multileaving several) per row, as expressions.

Each function takes list columns of document ids (one ranking per list, best
first) and returns an expression whose value per row is the interleaved list:
a list of structs holding the document and what the credit of a click on it
needs (its team, its ranks in the two inputs, or the probability that ranking A
placed it). The algorithms run over every row at once in numpy, one step per
position of the interleaved list (:mod:`.batch`); each row's random choices
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
from typing import Any

import polars as pl

from polars_rankmetrics._validate import IntoExpr, as_expr
from polars_rankmetrics.online.batch import Batch, lists
from polars_rankmetrics.online.draws import draws

DOCUMENT, TEAM, RANK_A, RANK_B, PROBABILITY_A = "document", "team", "rank_a", "rank_b", "p_a"
KEY = "_key"


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


INDEX = "index"


def _interleave(
    rankings: Sequence[IntoExpr],
    names: Sequence[str],
    key: IntoExpr | None,
    seed: int,
    run: Callable[[Batch], dict[str, pl.Series]],
    fields: dict[str, pl.DataType],
) -> pl.Expr:
    """The struct of lists ``run`` computes for each row, with its documents gathered.

    ``run`` returns ``index`` (where each document of the interleaved list is in
    the rankings concatenated) and ``fields``, one list per row each. One call
    per batch: the expression refers to the function once.
    """
    exprs = [
        as_expr(ranking, name).alias(f"_{i}")
        for i, (ranking, name) in enumerate(zip(rankings, names, strict=True))
    ]
    hashed = (pl.struct(exprs) if key is None else as_expr(key, "key")).hash(seed).alias(KEY)

    def batch(struct: pl.Series) -> pl.Series:
        parts = struct.struct.unnest()
        series = [parts.get_column(f"_{i}") for i in range(len(exprs))]
        ranked = Batch(series, parts.get_column(KEY), names)
        computed = run(ranked)
        documents = pl.DataFrame({"list": ranked.concatenated, INDEX: computed.pop(INDEX)}).select(
            pl.col("list").list.gather(pl.col(INDEX)).alias(DOCUMENT)
        )
        return documents.with_columns(**computed).to_struct("interleaved")

    # the documents' type is the rankings', known only from the frame's schema
    shape = pl.struct(
        pl.concat_list(exprs).alias(DOCUMENT),
        *[pl.lit(None, pl.List(dtype)).alias(name) for name, dtype in fields.items()],
    )
    return pl.struct(hashed, *exprs).map_batches(batch, return_dtype=pl.dtype_of(shape))


def _team_draft_batch(batch: Batch, k: int | None) -> dict[str, pl.Series]:
    """Team-draft multileaving over every row: Schuth et al.'s TDM, Radlinski et al.'s TD for two.

    At each position, the rankers that have contributed the fewest documents so
    far are the candidates; the row's draw ``u`` picks the ``floor(u m)``-th of
    the ``m`` candidates (for two tied rankers: A when ``u < 1/2``), which adds its
    best document not yet shown. Stops when a ranker has no document left to
    add, or at ``k`` documents.
    """
    import numpy as np

    rows, teams = batch.rows, len(batch.codes)
    depth = batch.codes[0].shape[1] if teams else 0
    stacked = np.stack(batch.codes, axis=1) if teams else np.zeros((rows, 0, 0), np.int64)
    shown = np.zeros((rows, batch.width + 1), bool)
    pointer = np.zeros((rows, teams), np.int64)
    sizes = np.zeros((rows, teams), np.int64)
    limit = batch.width if k is None else min(k, batch.width)
    chosen = np.full((rows, max(limit, 0)), -1, np.int64)
    team = np.full((rows, max(limit, 0)), -1, np.int64)
    count = np.zeros(rows, np.int64)
    index = np.arange(rows)
    for t in range(limit):
        _advance(stacked, pointer, batch.lengths, shown, depth)
        active = (pointer < batch.lengths).all(axis=1) & (count < limit)
        if not active.any():
            break
        candidates = sizes == sizes.min(axis=1, keepdims=True)
        pick = np.floor(draws(batch.keys, t) * candidates.sum(axis=1)).astype(np.int64)
        ranker = np.argmax(
            candidates & (np.cumsum(candidates, axis=1) == (pick + 1)[:, None]), axis=1
        )
        at = np.minimum(pointer[index, ranker], max(depth - 1, 0))
        code = stacked[index, ranker, at]
        rows_now = index[active]
        chosen[rows_now, count[active]] = code[active]
        team[rows_now, count[active]] = ranker[active]
        shown[rows_now, code[active]] = True
        sizes[rows_now, ranker[active]] += 1
        count[active] += 1
    return {INDEX: batch.indices(chosen, count), TEAM: lists(team, count).cast(pl.List(pl.UInt8))}


def _advance(stacked: Any, pointer: Any, lengths: Any, shown: Any, depth: int) -> None:
    """Point each ranker at its best document not shown yet (its length when none is left)."""
    import numpy as np

    rows = np.arange(stacked.shape[0])[:, None]
    inside = np.arange(depth)[None, :]
    for ranker in range(stacked.shape[1]):
        codes = stacked[:, ranker, :]
        left = (inside < lengths[:, ranker : ranker + 1]) & ~shown[rows, np.maximum(codes, 0)]
        pointer[:, ranker] = np.where(left.any(axis=1), np.argmax(left, axis=1), lengths[:, ranker])


def _balanced_batch(batch: Batch, k: int | None) -> dict[str, pl.Series]:
    """Balanced interleaving over every row (Radlinski et al. 2008, algorithm 1).

    One draw decides whether A goes first; then the ranking whose pointer is
    behind (A on a tie if it goes first) offers its next document, added if not
    shown yet, and its pointer moves on. Stops when a ranking is exhausted, or
    at ``k`` documents.
    """
    import numpy as np

    rows = batch.rows
    a, b = batch.codes
    depth = a.shape[1]
    shown = np.zeros((rows, batch.width + 1), bool)
    limit = batch.width if k is None else min(k, batch.width)
    chosen = np.full((rows, max(limit, 0)), -1, np.int64)
    count = np.zeros(rows, np.int64)
    a_first = draws(batch.keys, 0) < 0.5
    ka = np.zeros(rows, np.int64)
    kb = np.zeros(rows, np.int64)
    index = np.arange(rows)
    for _ in range(2 * depth):
        active = (ka < batch.lengths[:, 0]) & (kb < batch.lengths[:, 1]) & (count < limit)
        if not active.any():
            break
        from_a = (ka < kb) | ((ka == kb) & a_first)
        code = np.where(
            from_a, a[index, np.minimum(ka, depth - 1)], b[index, np.minimum(kb, depth - 1)]
        )
        new = active & ~shown[index, np.maximum(code, 0)]
        chosen[index[new], count[new]] = code[new]
        shown[index[new], code[new]] = True
        count[new] += 1
        ka += active & from_a
        kb += active & ~from_a
    ranks_a, ranks_b = batch.positions(0), batch.positions(1)
    safe = np.maximum(chosen, 0)
    return {
        INDEX: batch.indices(chosen, count),
        RANK_A: lists(ranks_a[index[:, None], safe], count),
        RANK_B: lists(ranks_b[index[:, None], safe], count),
    }


def _probabilistic_batch(batch: Batch, k: int | None, tau: float) -> dict[str, pl.Series]:
    """Probabilistic interleaving over every row (Hofmann et al. 2011).

    Each ranking is a softmax over the documents: ``P_X(d)`` proportional to
    ``rank_X(d) ** -tau`` over the documents not shown yet (a document a ranking
    lacks has its length + 1 as rank). At position ``t``, draw ``2t`` picks the
    ranking (A when below 1/2), draw ``2t + 1`` samples a document from its
    softmax. Each position keeps ``p_a``, the probability that A placed the
    document given the list: ``P_A(d) / (P_A(d) + P_B(d))`` at that step.
    """
    import numpy as np

    rows = batch.rows
    width = batch.width
    valid = np.arange(width)[None, :] < batch.distinct[:, None]
    weights = []
    for ranking in range(2):
        ranks = batch.positions(ranking)[:, :width].astype(np.float64)
        ranks[ranks == 0] = (batch.lengths[:, ranking : ranking + 1] + 1).repeat(width, axis=1)[
            ranks == 0
        ]
        weights.append(np.where(valid, ranks**-tau, 0.0))
    shown = np.zeros((rows, width), bool)
    limit = width if k is None else min(k, width)
    chosen = np.full((rows, max(limit, 0)), -1, np.int64)
    team = np.full((rows, max(limit, 0)), 0, np.int64)
    p_a = np.zeros((rows, max(limit, 0)))
    count = np.zeros(rows, np.int64)
    index = np.arange(rows)
    stop = np.minimum(batch.distinct, limit)
    for t in range(limit):
        active = count < stop
        if not active.any():
            break
        from_a = draws(batch.keys, 2 * t) < 0.5
        remaining = [np.where(shown, 0.0, w) for w in weights]
        # sums in document order, as the cumulative sums the sampling reads
        totals = [np.cumsum(r, axis=1)[:, -1] for r in remaining]
        pool = np.where(from_a[:, None], remaining[0], remaining[1])
        target = draws(batch.keys, 2 * t + 1) * np.where(from_a, totals[0], totals[1])
        code = np.minimum((np.cumsum(pool, axis=1) <= target[:, None]).sum(axis=1), width - 1)
        # a rounding at the very end can land past the last document left: take that one
        last_left = width - 1 - np.argmax((pool > 0)[:, ::-1], axis=1)
        code = np.where(pool[index, code] > 0, code, last_left)
        probability = [
            remaining[i][index, code] / np.where(totals[i] > 0, totals[i], 1.0) for i in range(2)
        ]
        both = probability[0] + probability[1]
        rows_now = index[active]
        chosen[rows_now, count[active]] = code[active]
        team[rows_now, count[active]] = np.where(from_a, 0, 1)[active]
        p_a[rows_now, count[active]] = (probability[0] / np.where(both > 0, both, 1.0))[active]
        shown[rows_now, code[active]] = True
        count[active] += 1
    return {
        INDEX: batch.indices(chosen, count),
        TEAM: lists(team, count).cast(pl.List(pl.UInt8)),
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
