"""TREC evaluation end to end: our reader + evaluate() against pytrec_eval.

Writes a seeded TREC run (default 100,000 queries x 100 documents = 10M lines)
and qrels, then times, each from the files on disk:

- ours: ``read_trec_run`` and ``read_trec_qrels``, then ``evaluate()``;
- pytrec_eval: parsing the files into its dicts, then its ``evaluate``.

Run with ``python -m benchmarks.bench_trec [--queries N] [--docs N]``; pytrec_eval
comes with the ``test`` extra. It prints a table of times and the ratio, and
checks that the two agree on the mean of every measure.
"""

from __future__ import annotations

import argparse
import gc
import math
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

import polars_rankmetrics as rm

MEASURES = ["map", "P_10", "recall_100", "ndcg_cut_10", "recip_rank", "map_cut_10", "Rprec"]


def write_files(folder: Path, n_queries: int, n_docs: int, seed: int = 0) -> tuple[Path, Path]:
    """A run of ``n_queries x n_docs`` lines and qrels judging about 30 docs a query."""
    rng = np.random.default_rng(seed)
    rows = n_queries * n_docs
    query = np.repeat(np.arange(n_queries), n_docs)
    doc = rng.integers(0, 50 * n_docs, size=rows)
    score = np.round(rng.random(rows), 4)  # 4 decimals: ties happen
    run = pl.DataFrame(
        {
            "query": pl.Series(query).cast(pl.String),
            "q0": pl.repeat("Q0", rows, eager=True),
            "doc": "D" + pl.Series(doc).cast(pl.String),
            "rank": np.tile(np.arange(1, n_docs + 1), n_queries),
            "score": score,
            "run_id": pl.repeat("bench", rows, eager=True),
        }
    ).unique(["query", "doc"], keep="first", maintain_order=True)
    judged_per_query = 30
    qrels = pl.DataFrame(
        {
            "query": pl.Series(np.repeat(np.arange(n_queries), judged_per_query)).cast(pl.String),
            "iteration": pl.repeat("0", n_queries * judged_per_query, eager=True),
            # Half the judged docs come from the run's pool, half from outside it.
            "doc": "D"
            + pl.Series(rng.integers(0, 50 * n_docs, size=n_queries * judged_per_query)).cast(
                pl.String
            ),
            "relevance": rng.choice([0, 0, 1, 2], size=n_queries * judged_per_query),
        }
    ).unique(["query", "doc"], keep="first", maintain_order=True)
    run_path, qrels_path = folder / "bench.run", folder / "bench.qrels"
    run.write_csv(run_path, separator=" ", include_header=False)
    qrels.write_csv(qrels_path, separator=" ", include_header=False)
    return run_path, qrels_path


def time_ours(run_path: Path, qrels_path: Path) -> tuple[dict[str, float], dict[str, float]]:
    started = time.perf_counter()
    run = rm.read_trec_run(run_path)
    qrels = rm.read_trec_qrels(qrels_path)
    read = time.perf_counter()
    result = rm.evaluate(qrels, run, MEASURES)
    done = time.perf_counter()
    times = {"read": read - started, "evaluate": done - read, "total": done - started}
    return times, result.aggregate.row(0, named=True)


def time_pytrec(run_path: Path, qrels_path: Path) -> tuple[dict[str, float], dict[str, float]]:
    import pytrec_eval

    started = time.perf_counter()
    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open() as lines:
        for line in lines:
            query, _, doc, relevance = line.split()
            qrels.setdefault(query, {})[doc] = int(relevance)
    run: dict[str, dict[str, float]] = {}
    with run_path.open() as lines:
        for line in lines:
            query, _, doc, _, score, _ = line.split()[:6]
            run.setdefault(query, {})[doc] = float(score)
    read = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
    per_query = evaluator.evaluate(run)
    done = time.perf_counter()
    means = {
        name: sum(values[name] for values in per_query.values()) / len(per_query)
        for name in next(iter(per_query.values()))
    }
    times = {"read": read - started, "evaluate": done - read, "total": done - started}
    return times, means


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=100, help="documents per query")
    parser.add_argument("--skip-pytrec", action="store_true")
    parser.add_argument("--folder", type=Path, default=None, help="where to write the files")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as scratch:
        folder = args.folder or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        run_path, qrels_path = write_files(folder, args.queries, args.docs)
        lines = sum(1 for _ in run_path.open("rb"))
        size = run_path.stat().st_size / 2**20
        print(
            f"run: {lines:,} lines ({size:,.0f} MiB), {args.queries:,} queries; "
            f"written in {time.perf_counter() - started:.1f} s; measures: {', '.join(MEASURES)}"
        )
        ours, our_means = time_ours(run_path, qrels_path)
        gc.collect()
        table = [("polars_rankmetrics", ours)]
        if not args.skip_pytrec:
            theirs, their_means = time_pytrec(run_path, qrels_path)
            table.append(("pytrec_eval", theirs))
            for name in MEASURES:
                assert math.isclose(our_means[name], their_means[name], rel_tol=1e-9), name
    print("\n| tool | read + build input (s) | evaluate (s) | end to end (s) | vs ours |")
    print("| --- | --- | --- | --- | --- |")
    for tool, times in table:
        ratio = times["total"] / ours["total"]
        print(
            f"| {tool} | {times['read']:.2f} | {times['evaluate']:.2f} | "
            f"{times['total']:.2f} | {ratio:.1f}x |"
        )
    if not args.skip_pytrec:
        print("\nmeans agree with pytrec_eval on every measure")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
