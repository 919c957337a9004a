"""The contenders: each prepares its input untimed, then times one stage.

A contender is ``(stage, function)``. ``stage`` says what is timed:

- ``eval``: the evaluation alone, from input already in the tool's own form
  (a polars frame in memory; ranx ``Qrels``/``Run``; pytrec_eval dicts and
  evaluator);
- ``e2e``: everything from the parquet files to per-query results, counting the
  tool's input conversion.

``function(glob, repeat, options)`` returns the seconds of each repetition.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import polars as pl

import polars_rankmetrics as rm

MEASURES = ["P@10", "R@100", "AP", "AP@10", "nDCG@10", "RR"]
"""The six measures every tool computes: P@10, R@100, MAP, MAP@10, nDCG@10, MRR."""

TEN_MEASURES = [*MEASURES, "Rprec", "P@5", "nDCG", "Success@5"]

PYTREC_EVAL = {
    "P@10": "P_10",
    "R@100": "recall_100",
    "AP": "map",
    "AP@10": "map_cut_10",
    "nDCG@10": "ndcg_cut_10",
    "RR": "recip_rank",
}
RANX = {
    "P@10": "precision@10",
    "R@100": "recall@100",
    "AP": "map",
    "AP@10": "map@10",
    "nDCG@10": "ndcg@10",
    "RR": "mrr",
}
COLUMNS = ["query", "score", "relevance"]

Timer = Callable[[str, int, dict[str, Any]], list[float]]


def memory_mib(field: str) -> float | None:
    """A memory figure of this process from ``/proc/self/status`` (Linux), in MiB.

    ``VmRSS`` is the resident set now, ``VmHWM`` its peak. (Linux's ``ru_maxrss``
    survives ``fork`` and ``exec``, so a worker started by a large parent would
    report the parent's peak; ``VmHWM`` is this process's own.)
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def current_rss_mib() -> float:
    """This process's resident set size now (0 where unknown)."""
    return memory_mib("VmRSS") or 0.0


BASELINE_RSS_MIB = [0.0]
"""RSS just before the first timed step: imports plus the untimed input preparation."""

CLOCK = ["wall"]
"""What is timed: ``'wall'`` seconds, or ``'cpu'`` seconds of this process (every thread:
on a shared machine, with ``POLARS_MAX_THREADS=1``, the work done, without the waiting)."""


BOTH_CLOCKS: dict[str, list[float]] = {"wall": [], "cpu": []}
"""Every timed repetition on both clocks, whichever ``CLOCK`` the contender returns."""


def _times(repeat: int, step: Callable[[], object]) -> list[float]:
    BASELINE_RSS_MIB[0] = current_rss_mib()
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        step()
        BOTH_CLOCKS["cpu"].append(time.process_time() - cpu)
        BOTH_CLOCKS["wall"].append(time.perf_counter() - wall)
    return BOTH_CLOCKS[CLOCK[0]][-repeat:]


def _frame(glob: str) -> pl.DataFrame:
    return pl.read_parquet(glob, columns=COLUMNS)


def separate_expressions() -> list[pl.Expr]:
    """The six measures as separate ``.rank`` expressions, as a user would write them."""
    relevance = pl.col("relevance")
    return [
        relevance.rank.precision_at_k(10, by="score").alias("P@10"),
        relevance.rank.recall_at_k(100, by="score").alias("R@100"),
        relevance.rank.average_precision(by="score").alias("AP"),
        relevance.rank.ap_at_k(10, by="score", denominator="r").alias("AP@10"),
        relevance.rank.ndcg_at_k(10, by="score").alias("nDCG@10"),
        relevance.rank.reciprocal_rank(by="score").alias("RR"),
    ]


def ours_query(frame: pl.DataFrame | pl.LazyFrame, measures: list[str]) -> pl.LazyFrame:
    """``group_by(query).agg(metrics(...))``: one sort per query for all measures."""
    return (
        frame.lazy()
        .group_by("query")
        .agg(rm.metrics("relevance", measures, by="score").alias("m"))
        .unnest("m")
    )


def sort_floor(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    frame = _frame(glob)
    return _times(repeat, lambda: frame.sort(["query", "score"], descending=[False, True]))


def grouped_sort(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    """The sort every ranking measure needs, per query: the floor of one measure's cost."""
    frame = _frame(glob)
    ranked = pl.col("relevance").sort_by("score", descending=True, nulls_last=True)
    query = frame.lazy().group_by("query").agg(ranked)
    return _times(repeat, query.collect)


def err_20(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    """ERR@20 (gdeval's), one value per query."""
    frame = _frame(glob)
    query = frame.lazy().group_by("query").agg(rm.err_at_k("relevance", 20, by="score"))
    return _times(repeat, query.collect)


def alpha_ndcg_20(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    """alpha-nDCG@20 over subtopics derived from the labels (a label l covers 1..l), untimed."""
    frame = _frame(glob).with_columns(
        subtopics=pl.int_ranges(1, pl.col("relevance").cast(pl.Int64) + 1)
    )
    query = frame.lazy().group_by("query").agg(rm.alpha_ndcg_at_k("subtopics", 20, by="score"))
    return _times(repeat, query.collect)


def _ours(measures: list[str]) -> Timer:
    def run(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
        frame = _frame(glob)
        return _times(repeat, lambda: ours_query(frame, measures).collect())

    return run


def in_passes(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    """The in-memory frame, evaluated in passes of about 2.5M rows (``partitions='auto'``)."""
    frame = _frame(glob)
    return _times(repeat, lambda: rm.evaluate_parquet(frame, MEASURES))


def in_passes_hashed(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    """``in_passes`` without the stable sort by query before each pass's ``group_by``."""
    import polars_rankmetrics.parquet

    polars_rankmetrics.parquet.QUERY_SORT = False
    return in_passes(glob, repeat, options)


def separate(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    frame = _frame(glob)
    query = frame.lazy().group_by("query").agg(separate_expressions())
    return _times(repeat, query.collect)


def parquet(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    partitions = options.get("partitions", "auto")
    engine = options.get("engine", "auto")
    return _times(
        repeat,
        lambda: rm.evaluate_parquet(glob, MEASURES, partitions=partitions, engine=engine),
    )


def peer_input(
    frame: pl.DataFrame,
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels and run as the nested dicts pytrec_eval and ranx take, with string ids."""
    ids = frame.with_columns(pl.col("query", "doc").cast(pl.String))
    judged = ids.filter(pl.col("relevance").is_not_null()).group_by("query").agg("doc", "relevance")
    retrieved = ids.filter(pl.col("score").is_not_null()).group_by("query").agg("doc", "score")
    qrels = {q: dict(zip(d, r, strict=True)) for q, d, r in judged.iter_rows()}
    run = {q: dict(zip(d, s, strict=True)) for q, d, s in retrieved.iter_rows()}
    return qrels, run


def _pytrec_eval_step(qrels: dict[str, dict[str, int]]) -> Any:
    import pytrec_eval

    return pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_EVAL.values()))


def pytrec_eval_alone(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    qrels, run = peer_input(pl.read_parquet(glob))
    evaluator = _pytrec_eval_step(qrels)
    return _times(repeat, lambda: evaluator.evaluate(run))


def pytrec_eval_e2e(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    def step() -> object:
        qrels, run = peer_input(pl.read_parquet(glob))
        return _pytrec_eval_step(qrels).evaluate(run)

    return _times(repeat, step)


def _ranx_warm_up() -> None:
    # ranx compiles its numba kernels on first use; keep that out of every timing.
    from ranx import Qrels, Run, evaluate

    evaluate(Qrels({"q": {"d": 1}}), Run({"q": {"d": 1.0, "e": 0.5}}), list(RANX.values()))


def _ranx_step(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> Any:
    from ranx import Qrels, Run

    return Qrels(qrels), Run(run)


def ranx_alone(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    from ranx import evaluate

    _ranx_warm_up()
    qrels, run = _ranx_step(*peer_input(pl.read_parquet(glob)))
    return _times(repeat, lambda: evaluate(qrels, run, list(RANX.values())))


def ranx_e2e(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    from ranx import evaluate

    _ranx_warm_up()

    def step() -> object:
        qrels, run = _ranx_step(*peer_input(pl.read_parquet(glob)))
        return evaluate(qrels, run, list(RANX.values()))

    return _times(repeat, step)


def sklearn_e2e(glob: str, repeat: int, options: dict[str, Any]) -> list[float]:
    """A per-query loop with scikit-learn's AP and nDCG@10 over the retrieved rows."""
    import numpy as np
    from sklearn.metrics import average_precision_score, ndcg_score

    def step() -> object:
        frame = pl.read_parquet(glob, columns=COLUMNS).filter(pl.col("score").is_not_null())
        results = {}
        for (query,), group in frame.partition_by("query", as_dict=True).items():
            labels = group["relevance"].fill_null(0).to_numpy()
            scores = group["score"].to_numpy()
            relevant = labels > 0
            ap = average_precision_score(relevant, scores) if relevant.any() else 0.0
            ndcg = ndcg_score(labels[np.newaxis], scores[np.newaxis], k=10)
            results[query] = (ap, ndcg)
        return results

    return _times(repeat, step)


CONTENDERS: dict[str, tuple[str, Timer]] = {
    "sort_floor": ("eval", sort_floor),
    "metrics": ("eval", _ours(MEASURES)),
    "metrics_1": ("eval", _ours(["AP"])),
    "metrics_ndcg10": ("eval", _ours(["nDCG@10"])),
    "metrics_10": ("eval", _ours(TEN_MEASURES)),
    "passes": ("eval", in_passes),
    "passes_hashed": ("eval", in_passes_hashed),
    "separate": ("eval", separate),
    "ranx": ("eval", ranx_alone),
    "pytrec_eval": ("eval", pytrec_eval_alone),
    "parquet": ("e2e", parquet),
    "ranx_e2e": ("e2e", ranx_e2e),
    "pytrec_eval_e2e": ("e2e", pytrec_eval_e2e),
    "sklearn_e2e": ("e2e", sklearn_e2e),
    "grouped_sort": ("eval", grouped_sort),
    "err_20": ("eval", err_20),
    "alpha_ndcg_20": ("eval", alpha_ndcg_20),
}
"""Every contender by name; ``parquet`` takes ``partitions`` and ``engine`` options."""

DESCRIPTIONS = {
    "sort_floor": 'df.sort(["query", "score"]) in memory',
    "metrics": "metrics() of the 6 measures, in memory",
    "metrics_1": "metrics() of AP alone, in memory",
    "metrics_ndcg10": "metrics() of nDCG@10 alone, in memory",
    "metrics_10": "metrics() of 10 measures, in memory",
    "passes": "evaluate_parquet(frame): passes of ~2.5M rows, in memory",
    "passes_hashed": "evaluate_parquet(frame) without its sort by query, in memory",
    "separate": "6 separate .rank expressions in one agg, in memory",
    "ranx": "ranx evaluate() on built Qrels/Run",
    "pytrec_eval": "pytrec_eval evaluate() on built dicts",
    "parquet": "evaluate_parquet(): parquet to per-query results",
    "ranx_e2e": "ranx: parquet, Qrels/Run, evaluate()",
    "pytrec_eval_e2e": "pytrec_eval: parquet, dicts, evaluate()",
    "sklearn_e2e": "scikit-learn per-query loop (AP, nDCG@10) from parquet",
    "grouped_sort": "group_by(query): relevance sorted by score, in memory",
    "err_20": "ERR@20 alone (rm.err_at_k), in memory",
    "alpha_ndcg_20": "alpha-nDCG@20 alone (rm.alpha_ndcg_at_k), in memory",
}
