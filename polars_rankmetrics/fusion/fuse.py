"""``fuse``: rank fusion of several runs, as one lazy polars pipeline."""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, TypeVar, overload

import polars as pl

import polars_rankmetrics.fusion.normalization as norms
from polars_rankmetrics.fusion.blocks import BLOCK, find_blocks
from polars_rankmetrics.fusion.context import Context
from polars_rankmetrics.fusion.methods import BY_DOC, METHODS
from polars_rankmetrics.fusion.normalize_runs import normalize
from polars_rankmetrics.fusion.runs import read_runs

Method = Literal[
    "min", "max", "med", "sum", "anz", "mnz", "gmnz", "wsum", "wmnz", "mixed",
    "isr", "log_isr", "logn_isr", "rrf", "rbc", "bordafuse", "w_bordafuse",
    "condorcet", "w_condorcet",
    "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse", "posfuse",
]  # fmt: skip
"""The fusion methods, by ranx's names."""

TRAINED = ("probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse", "posfuse")
"""The methods whose per-rank scores are estimated from training qrels."""

WEIGHTED = frozenset({"wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"})
RANK_BASED = frozenset(
    {"isr", "log_isr", "logn_isr", "rrf", "rbc", "bordafuse", "w_bordafuse", "condorcet",
     "w_condorcet", *TRAINED}
)  # fmt: skip

ORDER_PRESERVING = frozenset({"min-max", "max", "sum", "zmuv", "rank", "none"})
"""The normalisations that keep each run's order (``min-max-inverted`` reverses it,
``borda`` adds the unretrieved candidates)."""

PARAMETERS: dict[str, dict[str, float | None]] = {
    "gmnz": {"gamma": None},
    "logn_isr": {"sigma": 0.01},
    "rrf": {"k": 60},
    "rbc": {"phi": None},
    "probfuse": {"n_segments": None},
    "slidefuse": {"w": None},
}
"""Each method's numeric parameters, with their defaults (``None``: required, as in ranx)."""

_NORM_ALIASES = {"min_max": "min-max", "min_max_inverted": "min-max-inverted"}
NORMALIZATIONS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", "none")


def _did_you_mean(value: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(value, known, n=3, cutoff=0.5)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def check_method(method: object) -> str:
    """``method`` if it names a fusion method, else a ``ValueError`` with "did you mean"."""
    known = [*METHODS, *TRAINED]
    if not isinstance(method, str) or method not in known:
        hint = _did_you_mean(method, known) if isinstance(method, str) else ""
        msg = f"`method` must be one of {', '.join(known)}; got {method!r}{hint}"
        raise ValueError(msg)
    return method


def check_norm(norm: object) -> str:
    """The canonical normalisation name, else a ``ValueError`` with "did you mean"."""
    if norm is None:
        return "none"
    if isinstance(norm, str) and _NORM_ALIASES.get(norm, norm) in NORMALIZATIONS:
        return _NORM_ALIASES.get(norm, norm)
    hint = _did_you_mean(norm, NORMALIZATIONS) if isinstance(norm, str) else ""
    msg = f"`norm` must be one of {', '.join(NORMALIZATIONS)} or None; got {norm!r}{hint}"
    raise ValueError(msg)


def check_number(value: object, name: str, rule: str = "a finite number") -> float:
    """``value`` as a float if it is a finite real number (not a bool), else a ``ValueError``.

    An integer too large for a float (``10**400``) is refused like ``inf``, naming ``name``.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"`{name}` must be {rule}, got {value!r}"
        raise ValueError(msg)
    try:
        number = float(value)
    except OverflowError:
        msg = f"`{name}` must be {rule}, got an integer of {len(str(abs(value)))} digits"
        raise ValueError(msg) from None
    if not math.isfinite(number):
        msg = f"`{name}` must be {rule}, got {value!r}"
        raise ValueError(msg)
    return number


def check_params(method: str, params: Mapping[str, Any]) -> dict[str, float]:
    """The method's parameters with defaults filled in; unknown or bad ones refused."""
    allowed = PARAMETERS.get(method, {})
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        expected = ", ".join(allowed) if allowed else "none"
        msg = f"method {method!r} takes no parameter {unknown[0]!r} (its parameters: {expected})"
        raise ValueError(msg)
    checked: dict[str, float] = {}
    for name, default in allowed.items():
        value = params.get(name, default)
        if value is None:
            msg = f"method {method!r} needs the parameter {name!r} (as in ranx, it has no default)"
            raise ValueError(msg)
        number = check_number(value, name)
        if name == "k" and value < 0:
            msg = f"`k` must be >= 0, got {value!r}"
            raise ValueError(msg)
        if name in ("sigma", "phi") and not 0 <= value <= 1:
            msg = f"`{name}` must be in [0, 1], got {value!r}"
            raise ValueError(msg)
        if name in ("n_segments", "w") and (value != int(value) or value < (name == "n_segments")):
            low = 1 if name == "n_segments" else 0
            msg = f"`{name}` must be an integer >= {low}, got {value!r}"
            raise ValueError(msg)
        if name in ("n_segments", "w") and value > 2**31:
            msg = f"`{name}` must be an integer <= 2**31, got {value!r}"
            raise ValueError(msg)
        # A huge integer (k=10**300) as the float the method computes with.
        checked[name] = number if isinstance(value, int) and abs(value) > 2**53 else value
    return checked


def check_weights(
    weights: Sequence[float] | Mapping[str, float] | None, names: Sequence[str], method: str
) -> tuple[float, ...] | None:
    """The weights in run order; their count or names must match the runs'."""
    if weights is None:
        if method in WEIGHTED:
            msg = f"method {method!r} needs `weights`, one per run ({len(names)} runs)"
            raise ValueError(msg)
        return None
    if method not in WEIGHTED:
        msg = (
            f"method {method!r} takes no `weights`; weighted methods: {', '.join(sorted(WEIGHTED))}"
        )
        raise ValueError(msg)
    if isinstance(weights, Mapping):
        if set(weights) != set(names):
            missing = sorted(set(names) - set(weights))
            extra = sorted(set(weights) - set(names))
            msg = f"`weights` must name every run {list(names)}: missing {missing}, unknown {extra}"
            raise ValueError(msg)
        values = [weights[name] for name in names]
    else:
        values = list(weights)
        if len(values) != len(names):
            msg = f"`weights` has {len(values)} values for {len(names)} runs; give one per run"
            raise ValueError(msg)
    for value in values:
        check_number(value, "weights", "finite numbers >= 0")
        if value < 0:
            msg = f"`weights` must be >= 0, got {value!r}"
            raise ValueError(msg)
    return tuple(float(value) for value in values)


@overload
def fuse(
    runs: pl.LazyFrame | Mapping[str, pl.LazyFrame] | Sequence[pl.LazyFrame],
    *,
    method: Method = ...,
    norm: str | None = ...,
    weights: Sequence[float] | Mapping[str, float] | None = ...,
    train_qrels: object = ...,
    train_runs: object = ...,
    depth: int | None = ...,
    **params: float,
) -> pl.LazyFrame: ...


@overload
def fuse(
    runs: object,
    *,
    method: Method = ...,
    norm: str | None = ...,
    weights: Sequence[float] | Mapping[str, float] | None = ...,
    train_qrels: object = ...,
    train_runs: object = ...,
    depth: int | None = ...,
    **params: float,
) -> pl.DataFrame | pl.LazyFrame: ...


def fuse(
    runs: object,
    *,
    method: Method = "rrf",
    norm: str | None = "min-max",
    weights: Sequence[float] | Mapping[str, float] | None = None,
    train_qrels: object = None,
    train_runs: object = None,
    depth: int | None = None,
    **params: float,
) -> pl.DataFrame | pl.LazyFrame:
    """
    Fuse several runs into one, with ranx's methods, normalisations and numbers.

    The runs are stacked into one long frame ``system, query, doc, score``;
    each run's scores are normalised per query (``norm``), and the documents
    are combined by a group-by over ``(query, doc)`` (``method``). The result
    holds every document retrieved by at least one run, ``query, doc, score``,
    sorted by query, then score descending (equal scores: document id
    descending, trec_eval's order).

    Parameters
    ----------
    runs
        A mapping ``{name: run}``, a sequence of runs (named by their file
        name, a ranx ``Run``'s name, else ``run_1``, ``run_2``, ...), or one
        long frame with a ``system`` column (its runs named by its values,
        sorted). A run is anything :func:`polars_rankmetrics.evaluate`
        accepts: a TREC or parquet path, a polars (eager or lazy), pandas or
        pyarrow table, ``{query: {doc: score}}``, a ranx ``Run``, ...
    method
        The fusion method, by ranx's name (default ``'rrf'``, as ``rankmetrics fuse``,
        which runs without more arguments): ``min``, ``max``,
        ``med``, ``sum``, ``anz``, ``mnz``, ``gmnz``, ``wsum``, ``wmnz``,
        ``mixed``, ``isr``, ``log_isr``, ``logn_isr``, ``rrf``, ``rbc``,
        ``bordafuse``, ``w_bordafuse``, ``condorcet``, ``w_condorcet``, and the
        trained ``probfuse``, ``segfuse``, ``slidefuse``, ``bayesfuse``,
        ``mapfuse``, ``posfuse`` (formulas in the guide, "Fusion").
    norm : {'min-max', 'min-max-inverted', 'max', 'sum', 'zmuv', 'rank', 'borda', None}
        The normalisation of each run's scores per query before fusing
        (ranx's default ``'min-max'``); ``None`` or ``'none'`` keeps them.
    weights
        One weight per run, finite and >= 0, in run order or by run name: for
        ``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse`` and ``w_condorcet``.
    train_qrels, train_runs
        For the trained methods (``probfuse``, ``segfuse``, ``slidefuse``,
        ``bayesfuse``, ``mapfuse``, ``posfuse``): the qrels and the runs (the
        same systems, in the same order or with the same names) on which their
        per-rank probabilities are estimated, as ranx's ``optimize_fusion``
        estimates them; ``train_runs`` defaults to ``runs``.
    depth
        Keep each query's top ``depth`` fused documents (the fused run is in
        trec_eval's order), as ``rankmetrics fuse -M/--depth``: the union of the
        runs then compares with runs cut to the same depth. ``None`` (default)
        keeps every document.
    **params
        The method's parameters: ``k`` (``rrf``, default 60, >= 0), ``phi``
        (``rbc``, required, in [0, 1]), ``gamma`` (``gmnz``, required),
        ``sigma`` (``logn_isr``, default 0.01, in [0, 1]), ``n_segments``
        (``probfuse``, required), ``w`` (``slidefuse``, required).

    Returns
    -------
    pl.LazyFrame or pl.DataFrame
        ``query, doc, score``: lazy if any run is a ``LazyFrame`` or a
        parquet path, else eager.

    Notes
    -----
    Semantics, as ranx's:

    - a document a run did not retrieve adds nothing to the sums and is not
      counted in ``n``; ``min`` and ``max`` give it ranx's stand-in score
      (``1e9`` and ``-1e9``); ``borda`` normalisation and BordaFuse give it the
      run's leftover points;
    - a query missing from a run is an empty result list for that run (ranx
      refuses runs with different query sets);
    - ranks are positions in each run after normalisation, by score descending;
      equal scores are ordered by document id descending (ranx's order for them
      comes from an unstable sort and is arbitrary), and after ``borda``
      normalisation the unretrieved candidates come last (ranx ranks them in its
      set order);
    - a document's terms are added in run order, at any thread count, and fused
      scores are rounded to 12 significant digits, so that mathematically equal
      scores (the same terms from different runs) tie exactly;
    - null, NaN, ``inf`` and ``-inf`` scores are dropped before the
      normalisation: that run did not retrieve the document (ranx would turn
      the run's normalised scores into NaN, and rank NaN documents last);
    - duplicate ``(query, doc)`` rows in a run raise ``ValueError`` for every
      method and normalisation, whatever their scores (a duplicate row with a
      NaN score too; checked for eager inputs; a lazy run is not read to check).

    Examples
    --------
    >>> import polars_rankmetrics as rm
    >>> bm25 = {"q1": {"d1": 12.0, "d2": 9.0, "d3": 3.0}}
    >>> dense = {"q1": {"d2": 0.91, "d4": 0.85, "d1": 0.20}}
    >>> rm.fuse({"bm25": bm25, "dense": dense}, method="rrf", norm=None, k=60)
    shape: (4, 3)
    ┌───────┬─────┬──────────┐
    │ query ┆ doc ┆ score    │
    │ ---   ┆ --- ┆ ---      │
    │ str   ┆ str ┆ f64      │
    ╞═══════╪═════╪══════════╡
    │ q1    ┆ d2  ┆ 0.032522 │
    │ q1    ┆ d1  ┆ 0.032266 │
    │ q1    ┆ d4  ┆ 0.016129 │
    │ q1    ┆ d3  ┆ 0.015873 │
    └───────┴─────┴──────────┘
    """
    name = check_method(method)
    norm = check_norm(norm)
    checked = check_params(name, params)
    check_depth(depth)
    # The eager runs' duplicate rows: found by the fusion's own group-by where it has one.
    inline = name in BY_DOC and norm != "borda"
    read = read_runs(runs, check_unique=not inline)
    inline = inline and not read.lazy
    try:
        checked_weights = check_weights(weights, read.names, name)
    except ValueError:
        if inline:
            read_runs(runs)  # a duplicate row is reported first, as when it was checked first
        raise
    context = Context(read.n_systems, checked_weights, checked, flag_duplicates=inline)
    # Runs in memory, grouped by query as files are: integer keys (see blocks.py).
    blocks = find_blocks(read.frame.collect()) if inline else None
    keyed = read if blocks is None else replace(read, frame=blocks.frame.lazy())
    per_run = ("system", "query") if blocks is None else (BLOCK,)
    raw_ranks = name in RANK_BASED - {"segfuse"} and norm in ORDER_PRESERVING
    if raw_ranks:
        # Only the ranks matter, and this normalisation keeps the run's order: as in
        # ranx, whose rank-based methods read the order of the run it sorted first.
        frame = keyed.frame
    else:
        frame = normalize(keyed, norm, per_run=per_run)
    ranks = blocks.ranks() if raw_ranks and blocks is not None else None
    if ranks is not None:  # every block already in rank order: its row count
        frame = frame.with_columns(rank=pl.lit(ranks))
    elif name in RANK_BASED:
        frame = frame.with_columns(rank=norms.run_rank().over(*per_run))
    if blocks is not None:  # the windows on slices of the sorted blocks: the in-memory engine
        frame = frame.collect(engine="in-memory").lazy()
    if name in TRAINED:
        from polars_rankmetrics.fusion.trained import fuse_trained

        fused = fuse_trained(name, frame, read, norm, context, train_qrels, train_runs)
    else:
        if train_qrels is not None or train_runs is not None:
            msg = f"method {name!r} is not trained: drop `train_qrels` and `train_runs`"
            raise ValueError(msg)
        fused = METHODS[name](frame, context)
        if inline:
            grouped = fused.collect()
            if grouped.get_column("_duplicate").any():
                read_runs(runs)  # raises, naming the run and a duplicate row
            fused = grouped.lazy()
    if blocks is not None:  # the fused rows are in memory: sorted there, more cheaply
        rounded = fused.select("query", "doc", rounded_score()).collect(engine="in-memory")
        decoded = blocks.decode(ranking_order(rounded).lazy()).collect(engine="in-memory")
        return cut(decoded, depth)
    result = cut(finish(fused), depth)
    return result if read.lazy else result.collect()


FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def check_depth(depth: object) -> None:
    """``depth``: None or an int >= 1."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        msg = f"`depth` must be None or an integer >= 1, got {depth!r}"
        raise ValueError(msg)


def cut(fused: FrameT, depth: int | None) -> FrameT:
    """Each query's first ``depth`` rows of a fused run in ranking order (all with None)."""
    if depth is None:
        return fused
    return fused.filter(pl.int_range(pl.len()).over("query") < depth)


SIGNIFICANT_DIGITS = 12
"""Fused scores are rounded to this many significant digits (see :func:`finish`)."""


def finish(fused: pl.LazyFrame) -> pl.LazyFrame:
    """``query, doc, score``, scores rounded to 12 significant digits, in ranking order.

    A floating-point sum depends on the order of its terms: two documents whose
    fused scores are mathematically equal (the same terms from different runs,
    each added in run order) could differ in their last bits, and their order
    with them. Rounded, they tie, and ties are ordered by document id descending.
    """
    return fused.select("query", "doc", rounded_score()).sort(
        ["query", "score", "doc"], descending=[False, True, True]
    )


def rounded_score() -> pl.Expr:
    """The fused score as a float rounded to 12 significant digits (see :func:`finish`)."""
    return pl.col("score").cast(pl.Float64).round_sig_figs(SIGNIFICANT_DIGITS)


def ranking_order(fused: pl.DataFrame) -> pl.DataFrame:
    """``fused`` (``query, doc, score``, in memory) in :func:`finish`'s order, by one-key sorts.

    A sort by score descending, then a stable sort by query, order every row but
    those of equal ``(query, score)`` (a few percent: 3.7% of the RRF benchmark's),
    which are then sorted alone by the three keys into the positions they hold
    (each tie is a contiguous range of them). Cheaper than one three-key sort,
    which encodes every key of every row. NaN scores tie with each other
    (polars' ``==`` holds between NaNs; both sorts place them first). Both sorts are
    single-threaded: with two threads, the parallel sort costs more CPU and
    saves no time here.
    """
    ordered = fused.sort("score", descending=True, multithreaded=False).sort(
        "query", maintain_order=True, multithreaded=False
    )
    query, score = ordered.get_column("query"), ordered.get_column("score")
    same = (query == query.shift(1)) & (score == score.shift(1))  # NaN == NaN in polars
    tied = (same | same.shift(-1)).fill_null(value=False).arg_true()
    if tied.len() == 0:
        return ordered
    sub = ordered[tied].with_columns(_position=tied)
    sub = sub.sort(["query", "score", "doc"], descending=[False, True, True], multithreaded=False)
    rows = pl.int_range(ordered.height, dtype=pl.UInt32, eager=True)
    order = rows.scatter(tied, sub.get_column("_position").cast(pl.UInt32))
    return ordered.select(pl.all().gather(order))
