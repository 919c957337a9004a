"""Rank fusion from files to a fused file on disk: rm.fuse against ranx.

Writes ``RUNS`` seeded runs of ``QUERIES x DOCS`` (default 5 x 1,000 x 1,000 =
5M rows) as TREC files and as parquet, then times each step in a fresh process
at ``POLARS_MAX_THREADS`` (and ``NUMBA_NUM_THREADS``) = 1 and 2:

- ``ranx``: ``Run.from_file`` for every run, ``fuse``, ``save`` as TREC;
- ``ours trec``: ``rm.fuse`` of the TREC files, written as a TREC run;
- ``ours parquet``: ``rm.fuse`` of the parquet files (lazy), written as parquet;
- ``ours memory``: ``rm.fuse`` of the runs already in memory (one long frame);
- ``floor``: polars' grouped sort of the same rows in memory,
  ``group_by("query").agg(pl.col("doc").sort_by("score"))``.

Each contender fuses with RRF (``k=60``, ranx's default ``min-max``
normalisation) and with a min-max weighted sum. The table gives every time and
the ratios ranx / ours (end to end, TREC to TREC) and ours memory / floor.
``--stream-size RUNSxQUERIESxDOCS`` adds a streaming check from parquet to
parquet (RRF, 2 threads): ``rm.fusion.sink_fused``, ``--stream-batch-rows``
input rows a batch (default 10M), and with ``--stream-whole`` also ``rm.fuse``
sunk whole; each reports its wall and CPU time and its peak RSS.
``--stream-only`` skips the table; ``--stream-folder`` keeps the data there.

Run with ``python -m benchmarks.bench_fusion [--size 5x1000x1000] [--stream-size ...]``.
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

METHODS = {"rrf": {"k": 60}, "wsum": {}}


def parse_size(text: str) -> tuple[int, int, int]:
    """``'5x1000x1000'`` -> 5 runs of 1,000 queries of 1,000 documents."""
    try:
        runs, queries, docs = (int(part.replace("_", "")) for part in text.lower().split("x"))
    except ValueError:
        msg = f"size {text!r} must be RUNSxQUERIESxDOCS, for example 5x1000x1000"
        raise argparse.ArgumentTypeError(msg) from None
    return runs, queries, docs


def write_runs(
    folder: Path, n_runs: int, n_queries: int, n_docs: int, seed: int = 0, *, trec: bool = True
) -> None:
    """Runs of ``n_docs`` documents per query drawn from a pool of ``2 * n_docs``.

    Each run is written as parquet and, with ``trec``, as a TREC run file.
    """
    for system in range(n_runs):
        rng = np.random.default_rng([seed, system])
        pool = 2 * n_docs
        docs = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :n_docs].ravel()
        frame = pl.DataFrame(
            {
                "query": pl.Series(np.repeat(np.arange(n_queries), n_docs)).cast(pl.String),
                "doc": "D" + pl.Series(docs).cast(pl.String),
                "score": rng.random(n_queries * n_docs) * (system + 1),
            }
        ).sort(["query", "score"], descending=[False, True])
        frame.write_parquet(folder / f"run{system}.parquet")
        if not trec:
            continue
        lines = frame.select(
            "query",
            q0=pl.lit("Q0"),
            doc="doc",
            rank=pl.int_range(1, pl.len() + 1).over("query"),
            score="score",
            run_id=pl.lit(f"sys{system}"),
        )
        lines.write_csv(folder / f"run{system}.trec", separator=" ", include_header=False)


def _long(folder: Path, n_runs: int) -> pl.DataFrame:
    return pl.concat(
        pl.read_parquet(folder / f"run{i}.parquet").with_columns(system=pl.lit(f"s{i}"))
        for i in range(n_runs)
    )


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def step(name: str, method: str, folder: Path, n_runs: int) -> tuple[float, float]:
    """Run one contender once in this process; its wall and CPU (user + system) seconds."""
    import polars_rankmetrics as rm
    from polars_rankmetrics.fusion.cli import write_fused

    params = dict(METHODS[method])
    weights = [1.0 / n_runs] * n_runs if method == "wsum" else None
    trec = [str(folder / f"run{i}.trec") for i in range(n_runs)]
    parquet = [str(folder / f"run{i}.parquet") for i in range(n_runs)]
    out = folder / f"out-{name.replace(' ', '-')}-{method}"
    if name in ("ours memory", "floor"):
        long = _long(folder, n_runs)
        start, cpu = time.perf_counter(), _cpu()
        if name == "floor":
            long.group_by("query").agg(pl.col("doc").sort_by("score"))
        else:
            rm.fuse(long, method=method, weights=weights, **params)  # type: ignore[arg-type]
        return time.perf_counter() - start, _cpu() - cpu
    start, cpu = time.perf_counter(), _cpu()
    if name == "ranx":
        import ranx

        runs = [ranx.Run.from_file(path, kind="trec") for path in trec]
        extra = {"weights": weights} if weights else params
        ranx.fuse(runs, norm="min-max", method=method, params=extra).save(
            str(out) + ".trec", kind="trec"
        )
    elif name == "ours trec":
        write_fused(
            rm.fuse(trec, method=method, weights=weights, **params), str(out) + ".trec", method
        )  # type: ignore[arg-type]
    elif name == "ours parquet":
        fused = rm.fuse(parquet, method=method, weights=weights, **params)  # type: ignore[arg-type]
        write_fused(fused, str(out) + ".parquet", method)
    elif name.startswith("ours batched"):  # "ours batched ROWS": sink_fused, ROWS rows a batch
        batch_rows = int(name.split()[-1])
        rm.fusion.sink_fused(
            parquet, str(out) + ".parquet", method=method, weights=weights,  # type: ignore[arg-type]
            batch_rows=batch_rows, **params,
        )  # fmt: skip
    return time.perf_counter() - start, _cpu() - cpu


def _warm_ranx(folder: Path) -> None:
    """ranx's whole path once on a tiny run, so that numba's compilation is not timed."""
    import ranx

    tiny = folder / "warm.trec"
    tiny.write_text("q Q0 a 1 1.0 x\nq Q0 b 2 0.5 x\n")
    runs = [ranx.Run.from_file(str(tiny), kind="trec") for _ in range(2)]
    for method, params in METHODS.items():
        extra = {"weights": [0.5, 0.5]} if method == "wsum" else params
        fused = ranx.fuse(runs, norm="min-max", method=method, params=extra)
        fused.save(str(folder / "warm-out.trec"), kind="trec")


def in_process(name: str, method: str, threads: int, folder: Path, n_runs: int) -> dict[str, float]:
    """Time a contender in a fresh process at ``threads`` threads; also its peak RSS."""
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads), NUMBA_NUM_THREADS=str(threads))
    command = [sys.executable, "-m", "benchmarks.bench_fusion", "--worker", name, method,
               str(folder), str(n_runs)]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def worker(name: str, method: str, folder: Path, n_runs: int) -> None:
    """The child process: warm up (ranx's compilation is not timed), time, report as JSON."""
    if name == "ranx":
        _warm_ranx(folder)
    seconds, cpu = step(name, method, folder, n_runs)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "peak_mib": peak}))


def stream_check(folder: Path, n_runs: int, batch_rows: int, *, whole: bool) -> None:
    """RRF of parquet runs to parquet at 2 threads, in a child: batched, and whole if asked."""
    names = [f"ours batched {batch_rows}"] + (["ours parquet"] if whole else [])
    for name in names:
        result = in_process(name, "rrf", 2, folder, n_runs)
        label = (
            "rm.fuse whole, sunk"
            if name == "ours parquet"
            else f"sink_fused, {name.split()[-1]} rows a batch"
        )
        print(f"  {label}: {result['seconds']:.1f} s wall, {result['cpu_seconds']:.1f} s CPU, "
              f"peak RSS {result['peak_mib']:,.0f} MiB", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Build the data, time every contender at 1 and 2 threads, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=parse_size, default=(5, 1000, 1000))
    parser.add_argument("--stream-size", type=parse_size, default=None)
    parser.add_argument("--stream-batch-rows", type=int, default=10_000_000)
    parser.add_argument("--stream-whole", action="store_true", help="also rm.fuse whole, sunk")
    parser.add_argument("--stream-only", action="store_true", help="only the streaming check")
    parser.add_argument("--stream-folder", type=Path, default=None, help="keep its data here")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--skip-ranx", action="store_true")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        name, method, folder, n_runs = args.worker
        worker(name, method, Path(folder), int(n_runs))
        return 0
    if not args.stream_only:
        table_of_contenders(args)
    if args.stream_size is not None:
        s_runs, s_queries, s_docs = args.stream_size
        with tempfile.TemporaryDirectory(prefix="bench-fusion-stream-") as directory:
            folder = args.stream_folder or Path(directory)
            folder.mkdir(parents=True, exist_ok=True)
            if not (folder / f"run{s_runs - 1}.parquet").exists():
                write_runs(folder, s_runs, s_queries, s_docs, trec=False)
            rows_total = s_runs * s_queries * s_docs
            print(f"streaming rrf, {rows_total:,} rows from parquet to parquet at 2 threads:")
            stream_check(folder, s_runs, args.stream_batch_rows, whole=args.stream_whole)
    return 0


def table_of_contenders(args: argparse.Namespace) -> None:
    """Every contender at every thread count on ``args.size``; the table of times and ratios."""
    n_runs, n_queries, n_docs = args.size
    contenders = ["ours trec", "ours parquet", "ours memory", "floor"]
    if not args.skip_ranx:
        contenders.insert(0, "ranx")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-fusion-") as directory:
        folder = Path(directory)
        write_runs(folder, n_runs, n_queries, n_docs)
        print(f"{n_runs} runs x {n_queries:,} queries x {n_docs:,} docs "
              f"= {n_runs * n_queries * n_docs:,} rows", flush=True)  # fmt: skip
        for threads in (int(t) for t in args.threads.split(",")):
            for method in METHODS:
                times, cpus = {}, {}
                for name in contenders:
                    result = in_process(name, method, threads, folder, n_runs)
                    times[name], cpus[f"{name} cpu"] = result["seconds"], result["cpu_seconds"]
                    print(f"  threads={threads} {method:5s} {name:13s} {times[name]:8.2f} s "
                          f"({cpus[f'{name} cpu']:.2f} s CPU)", flush=True)  # fmt: skip
                rows.append({"threads": threads, "method": method, **times, **cpus})
    table = pl.DataFrame(rows)
    if "ranx" in table.columns:
        table = table.with_columns(
            ranx_over_ours=pl.col("ranx") / pl.col("ours trec"),
            ranx_over_ours_cpu=pl.col("ranx cpu") / pl.col("ours trec cpu"),
        )
    table = table.with_columns(
        ours_over_floor=pl.col("ours memory") / pl.col("floor"),
        ours_over_floor_cpu=pl.col("ours memory cpu") / pl.col("floor cpu"),
    )
    with pl.Config(tbl_rows=-1, tbl_cols=-1, float_precision=2, tbl_width_chars=200):
        print(table)


if __name__ == "__main__":
    sys.exit(main())
