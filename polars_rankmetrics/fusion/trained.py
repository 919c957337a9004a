"""The fusion methods trained on qrels: ProbFuse, SegFuse, SlideFuse, BayesFuse, MAPFuse, PosFuse.

Each estimates, for every run, a score per rank (or per segment of ranks) from
training runs judged by training qrels, as ranx's ``*_train`` functions do; each
test document then gets its run's score at its rank, and the runs' scores are
summed (BayesFuse: log-odds summed, a missing document counting ``log(0.001 /
0.999)``).

The training queries are the qrels' queries: a run that did not retrieve one
has an empty hit list for it (it still counts in the averages); a training
run's queries without qrels are ignored. A hit is a document judged >= 1.
``p`` below is a 0-based position (``rank - 1``) and ``Q`` the number of
training queries.

- ``probfuse`` (Lillis et al., SIGIR 2006): each query's list cut into
  ``n_segments`` segments of ``ceil(len / n_segments)``; ``P_k`` the mean over
  queries of the segment's precision (0 where it is empty); a document in
  segment ``k`` (0-based) scores ``P_k / (k + 1)``.
- ``segfuse`` (Shokouhi, ECIR 2007): segments bounded by 0, 5, 15, 35, ...,
  5115 (``10 * 2**(k-1) - 5``); ``P_k`` the mean over queries of the segment's
  hits divided by its full size; a document scores ``P_k * (s + 1)``, ``s``
  its normalised score (0 beyond rank 5115).
- ``posfuse``: ``P_p`` the fraction of hits at position ``p`` over the queries
  whose list reaches ``p``; a document scores ``P_p`` (0 beyond the training
  depth).
- ``slidefuse`` (Lillis et al., ECIR 2008): the mean of ``P_j`` over the
  window ``j`` in ``[max(p - w, 0), min(p + w, N - 1)]`` (``N`` the run's
  depth for the query), ``P_j`` taken as 0 beyond the training depth.
- ``bayesfuse`` (Aslam and Montague, SIGIR 2001): log-odds ``log(P / (1 - P))``
  of the mean precision of the segments bounded by 0, 5, 10, 15, 20, 30, 100,
  200, 500, 1000 (0 and 1 replaced by 0.001 and 0.999); ranx reads past its
  array beyond rank 1000, here such a document counts as not retrieved.
- ``mapfuse`` (Lillis et al., 2010): the run's MAP on the training data
  (AP's denominator: the query's relevant documents), divided by the rank.
"""

from __future__ import annotations

import itertools
import math

import polars as pl

import polars_rankmetrics.fusion.normalization as norms
from polars_rankmetrics.evaluation import inputs
from polars_rankmetrics.fusion.context import Context
from polars_rankmetrics.fusion.normalize_runs import normalize
from polars_rankmetrics.fusion.runs import Runs, read_runs

SEGFUSE_BOUNDS = (0, *(10 * 2 ** (k - 1) - 5 for k in range(1, 11)))
BAYESFUSE_BOUNDS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
MIN_ODD = math.log(0.001 / 0.999)

_POSITION = pl.col("rank").cast(pl.Int64) - 1


def _segment(position: pl.Expr, bounds: tuple[int, ...]) -> pl.Expr:
    """The 0-based segment holding ``position`` (``len(bounds) - 1`` beyond the last)."""
    return pl.sum_horizontal(*(position >= bound for bound in bounds[1:])).cast(pl.Int64)


def _training(
    norm: str, read: Runs, train_qrels: object, train_runs: object
) -> tuple[pl.LazyFrame, int]:
    """The training rows ``system, query, position, hit, depth``, and the number of queries."""
    train = read if train_runs is None else read_runs(train_runs)
    if train.n_systems != read.n_systems:
        msg = (
            f"`train_runs` has {train.n_systems} runs and `runs` {read.n_systems}; "
            "train the same systems that are fused"
        )
        raise ValueError(msg)
    frame = normalize(train, norm)
    if set(train.names) == set(read.names) and train.names != read.names:
        order = {name: read.names.index(name) for name in train.names}
        codes = {i: order[name] for i, name in enumerate(train.names)}
        frame = frame.with_columns(pl.col("system").replace_strict(codes, return_dtype=pl.UInt32))
    qrels = inputs.read_qrels(train_qrels).select(
        "query", "doc", hit=(pl.col("relevance") >= 1).cast(pl.Float64)
    )
    queries = qrels.select("query").unique()
    rows = (
        frame.join(queries.lazy(), on="query", how="semi")
        .with_columns(rank=norms.run_rank().over("system", "query"))
        .join(qrels.lazy(), on=["query", "doc"], how="left")
        .select(
            "system",
            "query",
            position=_POSITION,
            hit=pl.col("hit").fill_null(0.0),
            depth=pl.len().over("system", "query"),
        )
    )
    return rows, queries.height


def _systems(context: Context) -> pl.LazyFrame:
    return pl.LazyFrame({"system": pl.Series(range(context.n_systems), dtype=pl.UInt32)})


def _per_segment(rows: pl.LazyFrame, n_queries: int, size: pl.Expr) -> pl.LazyFrame:
    """``system, segment, prob``: the mean over queries of hits / ``size`` per segment."""
    return (
        rows.group_by("system", "query", "segment")
        .agg(share=pl.col("hit").sum() / size)
        .sort("system", "segment", "query")  # sums in query order, as ranx's
        .group_by("system", "segment", maintain_order=True)
        .agg(prob=pl.col("share").sum() / n_queries)
        .collect()  # small; computed apart, its sums keep their order inside any plan
        .lazy()
    )


def _sized(rows: pl.LazyFrame, sizes: pl.Series) -> pl.LazyFrame:
    """The rows with their segment's full size (``size``)."""
    mapping = dict(enumerate(sizes.to_list()))
    return rows.with_columns(
        size=pl.col("segment").replace_strict(mapping, return_dtype=pl.Float64)
    )


def _per_position(rows: pl.LazyFrame) -> pl.LazyFrame:
    """``system, position, prob``: the fraction of hits at each position (ranx's estimate_probs)."""
    return rows.group_by("system", "position").agg(prob=pl.col("hit").mean()).collect().lazy()


def _summed(frame: pl.LazyFrame, c: Context) -> pl.LazyFrame:
    return frame.group_by("query", "doc").agg(score=c.sum(pl.col("score")))


def _probfuse(test: pl.LazyFrame, rows: pl.LazyFrame, n_q: int, c: Context) -> pl.LazyFrame:
    n = int(c.params["n_segments"])
    size = (pl.col("depth") / n).ceil().cast(pl.Int64)
    segmented = rows.with_columns(segment=pl.col("position") // size)
    probs = _per_segment(segmented, n_q, pl.len())
    depth = pl.len().over("system", "query")
    scored = (
        test.with_columns(segment=_POSITION // (depth / n).ceil().cast(pl.Int64))
        .join(probs, on=["system", "segment"], how="left", maintain_order="left")
        .with_columns(score=pl.col("prob").fill_null(0.0) / (pl.col("segment") + 1))
    )
    return _summed(scored, c)


def _segfuse(test: pl.LazyFrame, rows: pl.LazyFrame, n_q: int, c: Context) -> pl.LazyFrame:
    bounds = SEGFUSE_BOUNDS
    sizes = pl.Series([b - a for a, b in itertools.pairwise(bounds)], dtype=pl.Float64)
    segmented = rows.with_columns(segment=_segment(pl.col("position"), bounds)).filter(
        pl.col("segment") < len(sizes)
    )
    probs = _per_segment(_sized(segmented, sizes), n_q, pl.col("size").first())
    scored = (
        test.with_columns(segment=_segment(_POSITION, bounds))
        .join(probs, on=["system", "segment"], how="left", maintain_order="left")
        .with_columns(score=pl.col("prob").fill_null(0.0) * (pl.col("score") + 1.0))
    )
    return _summed(scored, c)


def _posfuse(test: pl.LazyFrame, rows: pl.LazyFrame, n_q: int, c: Context) -> pl.LazyFrame:
    probs = _per_position(rows)
    scored = (
        test.with_columns(position=_POSITION)
        .join(probs, on=["system", "position"], how="left", maintain_order="left")
        .with_columns(score=pl.col("prob").fill_null(0.0))
    )
    return _summed(scored, c)


def _slidefuse(test: pl.LazyFrame, rows: pl.LazyFrame, n_q: int, c: Context) -> pl.LazyFrame:
    w = int(c.params["w"])
    probs = _per_position(rows).sort("system", "position")
    # prefix[j] = P_0 + ... + P_{j-1}; `length` = the training depth per system.
    prefix = pl.concat(
        [
            _systems(c).with_columns(index=pl.lit(0, pl.Int64), total=pl.lit(0.0)),
            probs.select(
                "system",
                index=pl.col("position") + 1,
                total=pl.col("prob").cum_sum().over("system"),
            ),
        ]
    )
    length = probs.group_by("system").agg(length=pl.len().cast(pl.Int64))
    depth = pl.len().over("system", "query").cast(pl.Int64)
    low = pl.max_horizontal(_POSITION - w, 0)
    high = pl.min_horizontal(_POSITION + w, depth - 1)
    window = test.with_columns(low=low, high=high).join(
        length, on="system", how="left", maintain_order="left"
    )
    capped = pl.col("length").fill_null(0)
    window = window.with_columns(
        start=pl.min_horizontal("low", capped), stop=pl.min_horizontal(pl.col("high") + 1, capped)
    )
    start = prefix.rename({"index": "start", "total": "before"})
    stop = prefix.rename({"index": "stop", "total": "through"})
    scored = (
        window.join(start, on=["system", "start"], how="left", maintain_order="left")
        .join(stop, on=["system", "stop"], how="left", maintain_order="left")
        .with_columns(
            score=(pl.col("through").fill_null(0.0) - pl.col("before").fill_null(0.0))
            / (pl.col("high") - pl.col("low") + 1)
        )
    )
    return _summed(scored, c)


def _bayesfuse(test: pl.LazyFrame, rows: pl.LazyFrame, n_q: int, c: Context) -> pl.LazyFrame:
    bounds = BAYESFUSE_BOUNDS
    n_segments = len(bounds) - 1
    sizes = pl.Series([b - a for a, b in itertools.pairwise(bounds)], dtype=pl.Float64)
    segmented = rows.with_columns(segment=_segment(pl.col("position"), bounds)).filter(
        pl.col("segment") < n_segments
    )
    probs = _per_segment(_sized(segmented, sizes), n_q, pl.col("size").first())
    grid = _systems(c).join(
        pl.LazyFrame({"segment": pl.Series(range(n_segments), dtype=pl.Int64)}), how="cross"
    )
    precision = pl.col("prob").fill_null(0.0)
    precision = pl.when(precision == 0).then(0.001).otherwise(precision)
    complement = 1.0 - precision
    complement = pl.when(complement == 0).then(0.001).otherwise(complement)
    odds = grid.join(probs, on=["system", "segment"], how="left", maintain_order="left").select(
        "system", "segment", odds=(precision / complement).log()
    )
    scored = (
        test.with_columns(segment=_segment(_POSITION, bounds))
        .join(odds, on=["system", "segment"], how="left", maintain_order="left")
        .filter(pl.col("odds").is_not_null())  # beyond rank 1000: not retrieved
    )
    return scored.group_by("query", "doc").agg(
        score=c.sum(pl.col("odds")) + (c.n_systems - pl.len()) * MIN_ODD
    )


TRAINERS = {
    "probfuse": _probfuse,
    "segfuse": _segfuse,
    "slidefuse": _slidefuse,
    "bayesfuse": _bayesfuse,
    "posfuse": _posfuse,
}


def _map_scores(rows: pl.LazyFrame, relevant: pl.DataFrame, n_q: int) -> pl.LazyFrame:
    """``system, map``: each training run's MAP over the training queries (AP/R, 0 for R = 0)."""
    ap = (
        rows.sort("system", "query", "position")
        .with_columns(found=pl.col("hit").cum_sum().over("system", "query"))
        .group_by("system", "query")
        .agg(total=(pl.col("hit") * pl.col("found") / (pl.col("position") + 1)).sum())
        .join(relevant.lazy(), on="query", how="left")
        .with_columns(ap=pl.col("total") / pl.col("n_relevant"))
        .with_columns(ap=pl.when(pl.col("n_relevant") > 0).then("ap").otherwise(0.0))
    )
    ordered = ap.sort("system", "query")  # sums in query order
    scores = ordered.group_by("system", maintain_order=True).agg(map=pl.col("ap").sum() / n_q)
    return scores.collect().lazy()  # small; computed apart, its sums keep their order


def fuse_trained(
    method: str,
    test: pl.LazyFrame,
    read: Runs,
    norm: str,
    context: Context,
    train_qrels: object,
    train_runs: object,
) -> pl.LazyFrame:
    """Train ``method`` on ``train_qrels``/``train_runs`` and fuse the normalised ``test`` rows."""
    if train_qrels is None:
        msg = (
            f"method {method!r} is trained on qrels: pass `train_qrels` (and `train_runs`, "
            "the same systems' runs on the training queries; default: the runs fused)"
        )
        raise ValueError(msg)
    rows, n_queries = _training(norm, read, train_qrels, train_runs)
    if method == "mapfuse":
        relevant = (
            inputs.read_qrels(train_qrels)
            .group_by("query")
            .agg(n_relevant=(pl.col("relevance") >= 1).sum())
        )
        scores = _map_scores(rows, relevant, n_queries)
        scored = test.join(scores, on="system", how="left", maintain_order="left").with_columns(
            score=pl.col("map").fill_null(0.0) / pl.col("rank").cast(pl.Float64)
        )
        return _summed(scored, context)
    return TRAINERS[method](test, rows, n_queries, context)
