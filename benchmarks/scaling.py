"""``python -m benchmarks.scaling``: wall and CPU seconds by thread count, against the grouped sort.

Every (size, threads, contender) runs in a fresh process (``benchmarks.worker``)
with ``POLARS_MAX_THREADS`` set, ``--repeat`` timed runs in it, the best kept.
Every ratio is taken against the grouped sort
``df.group_by("query").agg(pl.col("relevance").sort_by("score", descending=True,
nulls_last=True))`` timed in the same run, at the same size and thread count.

It needs only polars, numpy, pyarrow and this package (no network, no peer tools):
the seeded data is generated on first use (``benchmarks/data.py``) and kept in
``--data-dir``.

Examples
--------
The issue's table (10M rows, two query sizes), on a machine with 16 cores::

    python -m benchmarks.scaling --threads 1 2 4 8 16 --sizes 100000x100 1000000x10 \\
        --output benchmarks/results/scaling.md

A quick look on a small machine (1M rows)::

    python -m benchmarks.scaling --threads 1 2 --sizes 10000x100 100000x10
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

from benchmarks.contenders import CONTENDERS, DESCRIPTIONS, MEASURES
from benchmarks.data import parse_size, write_dataset

FLOOR = "grouped_sort"
DEFAULT_CONTENDERS = [
    FLOOR,
    "sort_floor",
    "metrics",
    "metrics_1",
    "metrics_ndcg10",
    "metrics_10",
    "separate",
    "passes",
    "passes_hashed",
]
SHORT = {
    "grouped_sort": "grouped sort (floor)",
    "sort_floor": "frame sort",
    "metrics": "metrics(), 6 measures",
    "metrics_1": "metrics(), 1 measure (AP)",
    "metrics_ndcg10": "metrics(), nDCG@10 alone",
    "metrics_10": "metrics(), 10 measures",
    "separate": "6 separate .rank expressions",
    "passes": "evaluate_parquet(frame)",
    "passes_hashed": "evaluate_parquet(frame), no query sort",
}


def run_one(name: str, files: str, threads: int, repeat: int) -> dict[str, Any]:
    """One contender in a fresh process with ``POLARS_MAX_THREADS=threads``."""
    env = {**os.environ, "POLARS_MAX_THREADS": str(threads)}
    command = [sys.executable, "-m", "benchmarks.worker", name, files, str(repeat), "{}"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        return {"name": name, "error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if result["threads"] != threads:
        print(f"  note: {name} ran on {result['threads']} threads, not {threads}", flush=True)
    return result


def cell(seconds: float | None, floor: float | None) -> tuple[str, str]:
    """Seconds and the ratio to the floor, as table cells."""
    if seconds is None:
        return "failed", ""
    ratio = f"{seconds / floor:.2f}" if floor else ""
    return f"{seconds:.3f}", ratio


def markdown(
    best: dict[tuple[str, int, str], dict[str, float]],
    sizes: list[str],
    threads: list[int],
    contenders: list[str],
) -> str:
    """One table: a row per (size, contender); wall s, x floor and CPU s per thread count."""
    header = ["size", "contender"]
    for t in threads:
        header += [f"{t}T wall s", f"{t}T ×floor", f"{t}T CPU s", f"{t}T CPU ×floor"]
    if len(threads) > 1:
        header.append(f"wall speed-up {threads[0]}T→{threads[-1]}T")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for size in sizes:
        for name in contenders:
            row = [size, SHORT.get(name, name)]
            for t in threads:
                here = best.get((size, t, name), {})
                floor = best.get((size, t, FLOOR), {})
                for clock in ("wall", "cpu"):
                    row += cell(here.get(clock), floor.get(clock))
            if len(threads) > 1:
                first = best.get((size, threads[0], name), {}).get("wall")
                last = best.get((size, threads[-1], name), {}).get("wall")
                row.append(f"{first / last:.1f}×" if first and last else "")
            lines.append("| " + " | ".join(row) + " |")
    if "metrics_1" in contenders and "metrics_10" in contenders:
        lines.append("")
        for size in sizes:
            ratios = []
            for t in threads:
                one = best.get((size, t, "metrics_1"), {})
                ten = best.get((size, t, "metrics_10"), {})
                if one and ten:
                    ratios.append(
                        f"{t}T {ten['wall'] / one['wall']:.2f} (CPU {ten['cpu'] / one['cpu']:.2f})"
                    )
            lines.append(f"ten measures ÷ one, {size}, wall: {', '.join(ratios)}  ")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.scaling", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2], metavar="N")
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=parse_size,
        default=[(100_000, 100), (1_000_000, 10)],
        metavar="QxD",
        help="datasets as QUERIESxDOCS (default: 100000x100 1000000x10, 10M rows each)",
    )
    parser.add_argument(
        "--contenders",
        nargs="+",
        choices=sorted(CONTENDERS),
        default=DEFAULT_CONTENDERS,
        help=f"default: {' '.join(DEFAULT_CONTENDERS)} ({FLOOR} always runs)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs in each process (best is kept)"
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="fresh processes per (size, threads, contender)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path("benchmarks/data"),
        help="where generated parquet is kept between runs",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, help="also write the report (markdown) here")
    parser.add_argument("--jsonl", type=Path, help="append every process's result here")
    args = parser.parse_args(argv)
    contenders = [FLOOR, *(c for c in args.contenders if c != FLOOR)]

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    head = [
        f"command: python -m benchmarks.scaling {' '.join(sys.argv[1:] if argv is None else argv)}",
        f"polars {pl.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} cores, "
        f"load average {load:.1f} at the start",
        f"measures: {', '.join(MEASURES)}; best of {args.repeat} runs in each of "
        f"{args.rounds} fresh process(es); CPU = user + system seconds of all threads",
        f"floor: {DESCRIPTIONS[FLOOR]}",
    ]
    print("\n".join(head), flush=True)
    best: dict[tuple[str, int, str], dict[str, float]] = {}
    sizes = []
    for queries, docs in args.sizes:
        size = f"{queries:,}×{docs:,}"
        sizes.append(size)
        started = time.perf_counter()
        files = str(write_dataset(args.data_dir, queries, docs, seed=args.seed))
        print(f"{size}: data ready in {time.perf_counter() - started:.0f} s", flush=True)
        for round_ in range(args.rounds):
            for threads in args.threads:
                for name in contenders:
                    result = run_one(name, files, threads, args.repeat)
                    if args.jsonl:
                        with args.jsonl.open("a") as out:
                            out.write(json.dumps({**result, "size": size, "round": round_}) + "\n")
                    if "error" in result:
                        print(f"  {size} {threads}T {name}: {result['error']}", flush=True)
                        continue
                    mine = best.setdefault((size, threads, name), {})
                    for clock in ("wall", "cpu"):
                        mine[clock] = min([mine.get(clock, float("inf")), *result[clock]])
                    print(
                        f"  {size} {threads}T {name}: wall {min(result['wall']):.3f} s, "
                        f"CPU {min(result['cpu']):.3f} s",
                        flush=True,
                    )
    text = markdown(best, sizes, args.threads, contenders)
    print("\n" + text, flush=True)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text("\n".join(head) + "\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
