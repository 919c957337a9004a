"""Check that every contender computes the same numbers, so that ratios compare like with like.

On the first ``max_queries`` queries of a dataset: our ``metrics()``, the six
separate expressions and ``evaluate_parquet`` in partitions must agree with each
other exactly, and with pytrec_eval and ranx per query within 1e-9. The data has
no tied scores, so every tool ranks the same way. (scikit-learn is not checked:
its AP ignores relevant documents that were not retrieved.)
"""

from __future__ import annotations

import warnings

import polars as pl
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from benchmarks.contenders import (
    MEASURES,
    PYTREC_EVAL,
    RANX,
    ours_query,
    peer_input,
    separate_expressions,
)

TOLERANCE = 1e-9


def _compare(tool: str, ours: pl.DataFrame, theirs: pl.DataFrame) -> None:
    joined = ours.join(theirs, on="query", how="full", suffix="_peer", coalesce=True)
    if joined.height != ours.height or joined.height != theirs.height:
        msg = f"{tool}: evaluated {theirs.height} queries, we evaluated {ours.height}"
        raise AssertionError(msg)
    for measure in MEASURES:
        gap = (joined[measure] - joined[f"{measure}_peer"]).abs().max()
        if not isinstance(gap, float) or gap > TOLERANCE:
            msg = f"{tool} disagrees with us on {measure}: largest difference {gap}"
            raise AssertionError(msg)


def check(glob: str, max_queries: int = 2000) -> str:
    """Raise ``AssertionError`` unless all tools agree; return a one-line summary."""
    frame = pl.scan_parquet(glob).filter(pl.col("query") < max_queries).collect()
    ours = (
        frame.lazy()
        .group_by("query")
        .agg(rm.metrics("relevance", MEASURES, by="score", no_relevant="zero").alias("m"))
        .unnest("m")
        .sort("query")
        .collect()
    )
    separately = frame.lazy().group_by("query").agg(separate_expressions()).sort("query").collect()
    with_nulls = ours_query(frame, MEASURES).sort("query").collect()
    assert_frame_equal(separately, with_nulls, check_exact=True)
    partitioned = rm.evaluate_parquet(frame, MEASURES, partitions=3)
    assert_frame_equal(partitioned, with_nulls, check_exact=True)

    keyed = ours.with_columns(pl.col("query").cast(pl.String))
    qrels, run = peer_input(frame)

    import pytrec_eval

    results = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_EVAL.values())).evaluate(run)
    pytrec = pl.DataFrame(
        [
            {"query": q, **{m: values[name] for m, name in PYTREC_EVAL.items()}}
            for q, values in results.items()
        ]
    )
    _compare("pytrec_eval", keyed, pytrec)

    from ranx import Qrels, Run, evaluate

    ranx_run = Run(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's casting notes inside ranx
        evaluate(Qrels(qrels), ranx_run, list(RANX.values()))
    ranx = pl.DataFrame(
        [
            {"query": q, **{m: float(ranx_run.scores[name][q]) for m, name in RANX.items()}}
            for q in run
        ]
    )
    _compare("ranx", keyed, ranx)
    return (
        f"checked {ours.height} queries: metrics() == separate expressions == "
        f"evaluate_parquet(partitions=3) exactly; pytrec_eval and ranx within {TOLERANCE}"
    )
