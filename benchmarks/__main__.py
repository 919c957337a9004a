"""``python -m benchmarks``: generate data, check agreement, time every contender.

Examples
--------
Quick run (1M rows), then the issue's 10M-row comparison, written to a file::

    python -m benchmarks
    python -m benchmarks --sizes 100000x100 --output benchmarks/results/10M.md

Scaling in rows, then in queries at a fixed 10M rows::

    python -m benchmarks --sizes 10000x100 100000x100 1000000x100 --contenders sort_floor metrics
    python -m benchmarks --sizes 1000x10000 100000x100 1000000x10 --contenders sort_floor metrics

Memory of the parquet path, in partitions::

    python -m benchmarks --sizes 1000000x100 --contenders parquet --partitions 1 4 16

One new measure against the grouped sort, in CPU seconds on one thread (a shared machine)::

    POLARS_MAX_THREADS=1 python -m benchmarks --contenders grouped_sort err_20 alpha_ndcg_20 \\
        --clock cpu --no-check
"""

from __future__ import annotations

import argparse
import glob
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

from benchmarks.check import check
from benchmarks.contenders import COLUMNS, CONTENDERS, DESCRIPTIONS, MEASURES, ours_query
from benchmarks.data import parse_size, write_dataset

DEFAULT_CONTENDERS = [
    name
    for name in CONTENDERS
    if name not in ("sklearn_e2e", "grouped_sort", "err_20", "alpha_ndcg_20", "passes_hashed")
]
SKLEARN_MAX_ROWS = 2_000_000
PEERS = {"ranx": ("ranx", "ranx_e2e"), "pytrec_eval": ("pytrec_eval", "pytrec_eval_e2e")}


def parse_partitions(text: str) -> int | str:
    """``'auto'``, or a positive partition count."""
    return text if text == "auto" else int(text)


def run_contender(name: str, files: str, repeat: int, options: dict[str, Any]) -> dict[str, Any]:
    """Run one contender in a fresh process; return its times and peak RSS."""
    command = [sys.executable, "-m", "benchmarks.worker", name, files, str(repeat)]
    done = subprocess.run(
        [*command, json.dumps(options)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return {"name": name, "error": done.stderr.strip().splitlines()[-1:] or ["failed"]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["best"] = min(result["seconds"])
    return result


def arrow_mib(pattern: str, rows: int) -> float:
    """The Arrow size of the evaluated columns, scaled up from the first file."""
    first = sorted(glob.glob(pattern))[0]
    sample = pl.read_parquet(first, columns=COLUMNS)
    return sample.estimated_size("mb") * rows / sample.height


def table(results: list[dict[str, Any]], arrow_mib: float) -> pl.DataFrame:
    """Time, ratio to the sort floor, speed-up over each peer at the same stage, peak RSS."""
    best = {r["label"]: r["best"] for r in results if "best" in r}
    lines = []
    for r in results:
        if "best" not in r:
            lines.append({"contender": r["label"], "what": " ".join(r["error"])})
            continue
        line: dict[str, Any] = {
            "contender": r["label"],
            "what": DESCRIPTIONS[r["name"]] + r.get("suffix", ""),
            "seconds": round(r["best"], 3),
            # Both clocks, whichever --clock ranks by: CPU is user + system of every thread.
            "wall s": round(min(r["wall"]), 3) if r.get("wall") else None,
            "CPU s": round(min(r["cpu"]), 3) if r.get("cpu") else None,
            "x sort floor": round(r["best"] / best["sort_floor"], 2)
            if "sort_floor" in best
            else None,
        }
        for peer, (alone, e2e) in PEERS.items():
            other = best.get(alone if r["stage"] == "eval" else e2e)
            line[f"{peer} ÷ this"] = round(other / r["best"], 1) if other else None
        line["peak RSS MiB"] = round(r["peak_rss_mib"])
        # Memory the timed stage added (for in-memory contenders the input is
        # already loaded), relative to the Arrow size of the columns evaluated.
        line["added ÷ Arrow"] = round((r["peak_rss_mib"] - r["baseline_rss_mib"]) / arrow_mib, 2)
        lines.append(line)
    return pl.DataFrame(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=parse_size,
        default=[(10_000, 100)],
        metavar="QxD",
        help="datasets as QUERIESxDOCS (default 10000x100: 1M rows)",
    )
    parser.add_argument(
        "--contenders",
        nargs="+",
        choices=sorted(CONTENDERS),
        default=DEFAULT_CONTENDERS,
        help="default: all but sklearn_e2e "
        f"(which also runs when a dataset has <= {SKLEARN_MAX_ROWS:,} rows)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs per contender (best is kept)"
    )
    parser.add_argument(
        "--partitions",
        nargs="+",
        type=parse_partitions,
        default=["auto"],
        help="partition counts (or auto) for the parquet contender",
    )
    parser.add_argument(
        "--engine",
        choices=["auto", "in-memory", "streaming"],
        default="auto",
        help="polars engine for the parquet contender",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path("benchmarks/data"),
        help="where generated parquet is kept between runs",
    )
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="rank by wall seconds (default) or the CPU seconds of each contender's process "
        "(the table shows both)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-check", action="store_true", help="skip the agreement check")
    parser.add_argument("--explain", action="store_true", help="print the query plan of metrics()")
    parser.add_argument("--output", type=Path, help="also write the tables (markdown) here")
    args = parser.parse_args(argv)

    report = [
        f"command: python -m benchmarks {' '.join(sys.argv[1:] if argv is None else argv)}",
        f"polars {pl.__version__}, measures {', '.join(MEASURES)}, {args.clock} seconds",
        "",
    ]
    print("\n".join(report), flush=True)
    for queries, docs in args.sizes:
        rows = queries * docs
        started = time.perf_counter()
        files = str(write_dataset(args.data_dir, queries, docs, seed=args.seed))
        print(
            f"## {rows:,} rows: {queries:,} queries x {docs:,} documents ({files}, "
            f"ready in {time.perf_counter() - started:.0f} s)",
            flush=True,
        )
        size_mib = arrow_mib(files, rows)
        print(f"Arrow size of query, score, relevance: {size_mib:,.0f} MiB", flush=True)
        if args.explain:
            print(ours_query(pl.scan_parquet(files), MEASURES).explain())
        if not args.no_check:
            summary = check(files)
            print(summary, flush=True)
        contenders = list(args.contenders or DEFAULT_CONTENDERS)
        if rows <= SKLEARN_MAX_ROWS and args.contenders is None:
            contenders.append("sklearn_e2e")
        if rows > SKLEARN_MAX_ROWS and "sklearn_e2e" in contenders:
            contenders.remove("sklearn_e2e")
        planned: list[tuple[str, str, dict[str, Any], str]] = []
        for name in contenders:
            variants: list[tuple[str, dict[str, Any], str]] = [(name, {}, "")]
            if name == "parquet":
                variants = [
                    (
                        "parquet" if p == "auto" else f"parquet_p{p}",
                        {"partitions": p, "engine": args.engine},
                        f" ({p} partitions, {args.engine} engine)",
                    )
                    for p in args.partitions
                ]
            planned += [(name, label, options, suffix) for label, options, suffix in variants]
        # Round-robin: every contender runs once per round, each time in a fresh
        # process, so that a burst of load on a shared machine hits all of them.
        results = [
            {"name": name, "label": label, "suffix": suffix, "seconds": []}
            for name, label, _, suffix in planned
        ]
        for round_ in range(args.repeat):
            for result, (name, label, options, _) in zip(results, planned, strict=True):
                if "error" in result:
                    continue
                run = run_contender(name, files, 1, {**options, "clock": args.clock})
                if "error" in run:
                    result["error"] = run["error"]
                    continue
                result["stage"] = run["stage"]
                result["seconds"] += run["seconds"]
                result["wall"] = result.get("wall", []) + run.get("wall", [])
                result["cpu"] = result.get("cpu", []) + run.get("cpu", [])
                result["best"] = min(result["seconds"])
                result["peak_rss_mib"] = max(result.get("peak_rss_mib", 0), run["peak_rss_mib"])
                result["baseline_rss_mib"] = run["baseline_rss_mib"]
                print(f"  round {round_ + 1}: {label} {run['seconds'][0]:.3f} s", flush=True)
        with pl.Config(
            tbl_rows=50,
            tbl_cols=20,
            tbl_width_chars=200,
            fmt_str_lengths=80,
            tbl_hide_dataframe_shape=True,
            tbl_formatting="MARKDOWN",
            tbl_hide_column_data_types=True,
        ):
            text = str(table(results, size_mib))
        print(text, flush=True)
        report += [
            f"## {rows:,} rows: {queries:,} queries x {docs:,} documents",
            f"Arrow size of the evaluated columns: {size_mib:,.0f} MiB",
            "",
            text,
            "",
        ]
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text("\n".join(report) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
