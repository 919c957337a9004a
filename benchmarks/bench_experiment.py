"""The experiment in one call, from TREC files to the HTML report: rm.experiment against ranx.

Writes ``RUNS`` seeded runs of ``QUERIES x DOCS`` (default 10 x 1,000 x 1,000 =
10M rows) as TREC files (:func:`benchmarks.bench_fusion.write_runs`) and qrels
of 50 judged documents a query, then times each contender in a fresh process
at ``POLARS_MAX_THREADS`` (and ``NUMBA_NUM_THREADS``) = 1 and 2:

- ``ours``: ``rm.experiment(qrels, runs, 4 measures)`` (every pair, paired
  t-test, Holm) then ``.save("report.html")``; the report's share is the
  ``save`` call's time over the total;
- ``ranx``: ``Qrels.from_file`` and ``Run.from_file`` for every run, then
  ``ranx.compare`` (Student's t) on the same four measures in ranx's names;
  numba's compilation is done on a tiny run first and not timed (and our
  modules' imports likewise, by a tiny experiment).

Run with ``python -m benchmarks.bench_experiment [--size 10x1000x1000] [--threads 1,2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from benchmarks.bench_fusion import parse_size, write_runs

OURS = ["map", "ndcg_cut_10", "P_10", "recall_1000"]
RANX = ["map", "ndcg@10", "precision@10", "recall@1000"]
JUDGED = 50


def write_qrels(folder: Path, n_queries: int, n_docs: int, seed: int = 0) -> None:
    """``JUDGED`` documents a query from the runs' pool of ``2 * n_docs``, labels 0 to 2."""
    rng = np.random.default_rng([seed, 99])
    docs = np.argsort(rng.random((n_queries, 2 * n_docs)), axis=1)[:, :JUDGED].ravel()
    pl.DataFrame(
        {
            "query": pl.Series(np.repeat(np.arange(n_queries), JUDGED)).cast(pl.String),
            "iteration": "0",
            "doc": "D" + pl.Series(docs).cast(pl.String),
            "relevance": rng.integers(0, 3, n_queries * JUDGED),
        }
    ).write_csv(folder / "qrels.trec", separator=" ", include_header=False)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _warm_ranx(folder: Path) -> None:
    """ranx's whole path once on a tiny run, so that numba's compilation is not timed."""
    import ranx

    (folder / "warm.trec").write_text("q Q0 a 1 1.0 x\nq Q0 b 2 0.5 x\n")
    (folder / "warm.qrels").write_text("q 0 a 1\nq 0 b 2\n")
    qrels = ranx.Qrels.from_file(str(folder / "warm.qrels"), kind="trec")
    runs = [ranx.Run.from_file(str(folder / "warm.trec"), kind="trec") for _ in range(2)]
    runs[1].name = "other"
    ranx.compare(qrels, runs, RANX, stat_test="student")


def _warm_ours(folder: Path) -> None:
    """Our whole path once on a tiny run, so that the modules' imports are not timed (as ranx's)."""
    import polars_rankmetrics as rm

    (folder / "warm.trec").write_text("q Q0 a 1 1.0 x\nq Q0 b 2 0.5 x\n")
    (folder / "warm2.trec").write_text("q Q0 a 1 0.5 y\nq Q0 b 2 1.0 y\n")
    (folder / "warm.qrels").write_text("q 0 a 1\nq 0 b 2\n")
    warm = rm.experiment(folder / "warm.qrels", [folder / "warm.trec", folder / "warm2.trec"], OURS)
    warm.save(folder / "warm.html")


def step(name: str, folder: Path, n_runs: int) -> dict[str, float]:
    """One contender in this process: wall and CPU seconds (and the report's, for ours)."""
    paths = [str(folder / f"run{i}.trec") for i in range(n_runs)]
    qrels = str(folder / "qrels.trec")
    if name == "ranx":
        import warnings

        import ranx

        _warm_ranx(folder)
        start, cpu = time.perf_counter(), _cpu()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            judged = ranx.Qrels.from_file(qrels, kind="trec")
            runs = [ranx.Run.from_file(path, kind="trec") for path in paths]
            for index, run in enumerate(runs):
                run.name = f"sys{index}"
            ranx.compare(judged, runs, RANX, stat_test="student", max_p=0.05)
        return {"seconds": time.perf_counter() - start, "cpu_seconds": _cpu() - cpu}
    import polars_rankmetrics as rm

    _warm_ours(folder)
    start, cpu = time.perf_counter(), _cpu()
    result = rm.experiment(qrels, paths, OURS, test="t", correction="holm")
    middle, middle_cpu = time.perf_counter(), _cpu()
    result.save(folder / "report.html")
    end, end_cpu = time.perf_counter(), _cpu()
    return {
        "seconds": end - start,
        "cpu_seconds": end_cpu - cpu,
        "report_seconds": end - middle,
        "report_cpu_seconds": end_cpu - middle_cpu,
        "report_mib": (folder / "report.html").stat().st_size / 2**20,
    }


def in_process(name: str, threads: int, folder: Path, n_runs: int) -> dict[str, float]:
    """Time a contender in a fresh process at ``threads`` threads."""
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads), NUMBA_NUM_THREADS=str(threads))
    command = [sys.executable, "-m", "benchmarks.bench_experiment", "--worker", name,
               str(folder), str(n_runs)]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    """Build the data, time both contenders at each thread count, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=parse_size, default=(10, 1000, 1000))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--skip-ranx", action="store_true")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        name, folder, n_runs = args.worker
        print(json.dumps(step(name, Path(folder), int(n_runs))))
        return 0
    n_runs, n_queries, n_docs = args.size
    with tempfile.TemporaryDirectory(prefix="bench-experiment-") as directory:
        folder = Path(directory)
        write_runs(folder, n_runs, n_queries, n_docs)
        write_qrels(folder, n_queries, n_docs)
        print(f"{n_runs} runs x {n_queries:,} queries x {n_docs:,} documents "
              f"({n_runs * n_queries * n_docs:,} rows), {len(OURS)} measures, every pair, "
              "paired t-test + Holm, to the HTML report\n")  # fmt: skip
        print("| threads | ours s (CPU s) | report s (share of wall) | report MiB "
              "| ranx s (CPU s) | ranx ÷ ours (wall / CPU) |")  # fmt: skip
        print("|---:|---:|---:|---:|---:|---:|")
        for threads in (int(part) for part in args.threads.split(",")):
            ours = in_process("ours", threads, folder, n_runs)
            share = ours["report_seconds"] / ours["seconds"]
            cells = [
                str(threads),
                f"{ours['seconds']:.2f} ({ours['cpu_seconds']:.2f})",
                f"{ours['report_seconds']:.2f} ({share:.0%})",
                f"{ours['report_mib']:.2f}",
            ]
            if args.skip_ranx:
                cells += ["–", "–"]
            else:
                ranx = in_process("ranx", threads, folder, n_runs)
                cells += [
                    f"{ranx['seconds']:.2f} ({ranx['cpu_seconds']:.2f})",
                    f"{ranx['seconds'] / ours['seconds']:.1f}× / "
                    f"{ranx['cpu_seconds'] / ours['cpu_seconds']:.1f}×",
                ]
            print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
