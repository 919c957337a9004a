"""Meta-evaluation benchmarks: RBO per query, and repro_eval's measures against repro_eval.

Run from the repository root:

    python -m benchmarks.bench_meta                      # 100,000 queries; 1,000 topics x 100 docs
    python -m benchmarks.bench_meta --queries 1000000 --docs 1000   # the issue's sizes

1. RBO (``rm.rbo``, kind 'ext', p = 0.9) over Q queries x two rankings of depth
   100 (string document ids, about half of the documents shared), against the
   floor: polars' grouped sort of the same rows, ``group_by(query).agg(
   doc.sort_by(score))`` over the 2 x Q x 100 rows of both runs, and against the
   ``rbo`` package (``RankingSimilarity.rbo_ext``) on a sample of queries,
   scaled to Q.
2. ``reproduce()`` (KTU, RBO, RMSE, nRMSE, t-tests of repro_eval's 58 measures,
   ER and DeltaRI: original and reproduced baseline and advanced runs) against
   repro_eval 0.5's ``RpdEvaluator`` (``trim``, ``evaluate``, ``ktu``, ``rbo``,
   ``rmse``, ``nrmse``, ``ttest``, ``er``, ``dri``) on the same TREC files.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

import polars_rankmetrics as rm
from polars_rankmetrics.evaluation.inputs import read_run
from polars_rankmetrics.meta_evaluation.reproducibility import ktu, rbo_truncated


def _rankings(n_queries: int, depth: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    pool = int(depth * 1.5)
    first = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :depth]
    second = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :depth]
    as_lists = pl.List(pl.Int64)
    return pl.DataFrame({"a": first, "b": second}).with_columns(
        pl.col("a", "b").cast(as_lists).list.eval(pl.format("doc{}", pl.element()))
    )


def _rss() -> tuple[float, float]:
    """(current, peak) resident memory of this process in GB, from /proc (Linux), or NaN."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return float("nan"), float("nan")
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return tuple(int(fields[key].split()[0]) / 1e6 for key in ("VmRSS", "VmHWM"))  # type: ignore[return-value]


def _reset_peak() -> None:
    """Start a new peak-RSS measurement (Linux: 5 > /proc/self/clear_refs); else nothing."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def bench_rbo(n_queries: int, depth: int = 100, sample: int = 2000) -> None:
    frame = _rankings(n_queries, depth, 0)
    # rm.rbo first, before the floor's frame exists, so that its peak memory is its own.
    before, _ = _rss()
    _reset_peak()
    start, cpu = time.perf_counter(), time.process_time()
    frame.select(rm.rbo("a", "b", p=0.9))
    ours, ours_cpu = time.perf_counter() - start, time.process_time() - cpu
    _, peak = _rss()
    long = pl.concat(
        [
            frame.select(
                query=pl.int_range(pl.len(), dtype=pl.UInt32) + offset,
                doc=pl.col(side),
                score=pl.int_ranges(depth, 0, -1, dtype=pl.Int32),
            ).explode("doc", "score")
            for offset, side in ((0, "a"), (n_queries, "b"))
        ]
    )
    start = time.perf_counter()
    long.lazy().group_by("query").agg(pl.col("doc").sort_by("score", descending=True)).collect()
    floor = time.perf_counter() - start

    from rbo import RankingSimilarity

    sampled = frame.head(sample)
    start = time.perf_counter()
    for first, second in zip(sampled["a"].to_list(), sampled["b"].to_list(), strict=True):
        RankingSimilarity(first, second).rbo_ext(0.9)
    package = (time.perf_counter() - start) * n_queries / sampled.height
    print(f"RBO: {n_queries:,} queries x 2 rankings of depth {depth} ({long.height:,} rows)")
    print("| contender | seconds | x floor |")
    print("|---|---|---|")
    print(f"| grouped sort of the same rows (floor) | {floor:.2f} | 1.00 |")
    print(f"| rm.rbo(kind='ext') | {ours:.2f} | {ours / floor:.2f} |")
    label = f"rbo package rbo_ext ({sample:,} queries, scaled)"
    print(f"| {label} | {package:.1f} | {package / floor:.1f} |")
    print(f"rm.rbo: {ours_cpu:.2f} CPU seconds (all threads) for {ours:.2f} s wall")
    growth = f"{peak - before:+.2f} GB"
    print(f"rm.rbo: peak RSS {peak:.2f} GB with the {before:.2f} GB of input ({growth})")
    print(f"rm.rbo is {package / ours:.0f}x faster than the rbo package\n")


def _write_run(path: Path, rng: np.random.Generator, topics: int, docs: int, tag: str) -> None:
    lines = []
    for topic in range(topics):
        chosen = rng.choice(docs * 2, size=docs, replace=False)
        scores = np.sort(rng.random(docs))[::-1]
        lines.extend(
            f"{topic} Q0 d{doc} {rank} {score:.6f} {tag}"
            for rank, (doc, score) in enumerate(zip(chosen, scores, strict=True), start=1)
        )
    path.write_text("\n".join(lines) + "\n")


def bench_repro(topics: int, docs: int) -> None:
    from repro_eval.Evaluator import RpdEvaluator

    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as folder:
        paths = {name: Path(folder) / name for name in ("qrels", "b", "a", "b_rep", "a_rep")}
        qrels = [
            f"{topic} 0 d{doc} {rng.integers(0, 3)}"
            for topic in range(topics)
            for doc in rng.choice(docs * 2, size=min(docs, 200), replace=False)
        ]
        paths["qrels"].write_text("\n".join(qrels) + "\n")
        for name in ("b", "a", "b_rep", "a_rep"):
            _write_run(paths[name], rng, topics, docs, name)
        start, cpu = time.perf_counter(), time.process_time()
        result = rm.reproduce(
            paths["qrels"],
            paths["b"],
            paths["b_rep"],
            original_advanced=paths["a"],
            reproduced_advanced=paths["a_rep"],
        )
        ours, ours_cpu = time.perf_counter() - start, time.process_time() - cpu
        runs = {name: read_run(paths[name]) for name in ("b", "a", "b_rep", "a_rep")}
        start = time.perf_counter()
        for original, reproduced in (("b", "b_rep"), ("a", "a_rep")):
            ktu(runs[original], runs[reproduced])
            rbo_truncated(runs[original], runs[reproduced])
        ours_order = time.perf_counter() - start
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start, cpu = time.perf_counter(), time.process_time()
            oracle = RpdEvaluator(
                qrels_orig_path=str(paths["qrels"]),
                run_b_orig_path=str(paths["b"]),
                run_a_orig_path=str(paths["a"]),
                run_b_rep_path=str(paths["b_rep"]),
                run_a_rep_path=str(paths["a_rep"]),
            )
            oracle.trim()
            oracle.evaluate()
            middle = time.perf_counter()
            expected_ktu = oracle.ktu()
            oracle.rbo()
            order = time.perf_counter() - middle
            oracle.rmse()
            oracle.nrmse()
            oracle.ttest()
            oracle.er()
            oracle.dri()
            theirs, theirs_cpu = time.perf_counter() - start, time.process_time() - cpu
    mine = result.summary.filter(run="baseline")["ktu"].item()
    assert abs(mine - expected_ktu["baseline"]) < 1e-9, (mine, expected_ktu)
    print(f"repro_eval's measures: {topics:,} topics x {docs:,} documents, 4 runs")
    print("| part | rm (s) | repro_eval (s) | speed-up |")
    print("|---|---|---|---|")
    print(f"| everything, from the TREC files | {ours:.2f} | {theirs:.2f} | {theirs / ours:.1f}x |")
    print(
        f"| KTU + RBO of both pairs (runs in memory) | {ours_order:.2f} | {order:.2f} "
        f"| {order / ours_order:.1f}x |"
    )
    print(
        f"| everything, CPU seconds (all threads) | {ours_cpu:.2f} | {theirs_cpu:.2f} "
        f"| {theirs_cpu / ours_cpu:.1f}x |"
    )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000, help="RBO: queries")
    parser.add_argument("--topics", type=int, default=1000, help="repro: topics")
    parser.add_argument("--docs", type=int, default=100, help="repro: documents per topic")
    parser.add_argument("--skip-repro", action="store_true")
    args = parser.parse_args()
    print(
        f"polars {pl.__version__}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}\n"
    )
    bench_rbo(args.queries)
    if not args.skip_repro:
        bench_repro(args.topics, args.docs)


if __name__ == "__main__":
    main()
