"""Online evaluation benchmarks: click-model EM from parquet, and interleaving.

Run from the repository root:

    python -m benchmarks.bench_online                       # 500,000 sessions x 10 (5M rows)
    python -m benchmarks.bench_online --sessions 10000000   # the issue's 100M rows

1. A click log of S sessions x 10 ranks (integer query and document ids: 20,000
   queries of 30 documents, each session a random 10 of its query's), its clicks
   drawn from a DBN with ``rm.online.simulate``, written to parquet. PBM and DBN
   fitted from ``pl.scan_parquet`` (``rm.online.fit``), each in its own process:
   the set-up (reading, checking, sorting, the pair ids), the time per EM
   iteration, and the process's peak resident memory. Against the slow references:
   the book's updates written per session in Python (PBM: the closed-form
   posteriors; DBN: the forward examination and backward click-after-rank
   recursions), timed on a sample of sessions and scaled to S; on that sample they
   must give the library's parameters to 1e-9.
   With ``--parts``, each model is also fitted with ``fit(..., parts=N)``: the log cut
   into N parts by session, each prepared once to a temporary parquet file and read one
   at a time per iteration, so that memory holds one part and the parameters.
2. Interleaving P query pairs (two rankings of 10 documents drawn from 15):
   ``team_draft``, ``balanced`` and ``probabilistic`` with their credit
   (``interleaving_outcome``) against the papers' pseudo-code per pair in Python
   (the test suite's references), timed on a sample and scaled to P.
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
from collections import defaultdict
from pathlib import Path

import numpy as np
import polars as pl

from polars_rankmetrics import online

DEPTH = 10


def write_log(path: Path, sessions: int, seed: int = 0) -> None:
    """S sessions x 10 ranks with DBN clicks, to parquet."""
    rng = np.random.default_rng(seed)
    queries, per_query = 20_000, 30
    query = rng.integers(0, queries, sessions)
    picks = np.argsort(rng.random((sessions, per_query)), axis=1)[:, :DEPTH]
    rankings = pl.DataFrame(
        {
            "session": np.repeat(np.arange(sessions, dtype=np.int64), DEPTH),
            "query": np.repeat(query, DEPTH).astype(np.int32),
            "document": (np.repeat(query, DEPTH) * per_query + picks.ravel()).astype(np.int32),
            "rank": np.tile(np.arange(1, DEPTH + 1, dtype=np.int32), sessions),
        }
    )
    pairs = np.arange(queries * per_query)
    quality = np.random.default_rng(seed + 1).beta(1, 3, len(pairs))
    truth = online.ClickModel(
        "dbn",
        attractiveness=pl.DataFrame(
            {"query": pairs // per_query, "document": pairs, "attractiveness": 0.05 + 0.9 * quality}
        ).cast({"query": pl.Int32, "document": pl.Int32}),
        satisfaction=pl.DataFrame(
            {"query": pairs // per_query, "document": pairs, "satisfaction": 0.7 * quality}
        ).cast({"query": pl.Int32, "document": pl.Int32}),
        continuation=0.9,
    )
    online.simulate(truth, rankings, seed=seed).write_parquet(path, row_group_size=1_000_000)


def fit_worker(path: str, model: str, iterations: int, parts: int) -> dict[str, float]:
    """In a fresh process: the set-up, then ``iterations`` EM iterations; times and peak RSS.

    The set-up is what ``fit(..., parts=)`` does before EM (reading the parquet,
    checking the rows, sorting, the pair ids and last clicks; with parts, writing
    them); the iterations are the estimator alone.
    """
    from polars_rankmetrics.online.estimation import ESTIMATORS, _prepare, _write_parts
    from polars_rankmetrics.online.log import LogColumns, read_log

    estimator = ESTIMATORS[model]  # type: ignore[index]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        if parts == 1:
            rows = read_log(pl.scan_parquet(path), LogColumns())
            pairs = rows.select("query", "document").unique().with_row_index("_pair")
            prepared, _ = _prepare(rows, model, pairs, DEPTH)  # type: ignore[arg-type]
            loaders = [lambda: prepared]
        else:
            loaders, pairs, _, _ = _write_parts(
                pl.scan_parquet(path),
                LogColumns(),
                model,  # type: ignore[arg-type]
                parts,
                Path(folder),
            )
        setup = time.perf_counter() - start
        sizes = {"pairs": pairs.height, "depth": DEPTH, "cells": DEPTH * DEPTH}
        start = time.perf_counter()
        estimator(loaders, iterations, (1.0, 2.0), sizes)
        per_iteration = (time.perf_counter() - start) / iterations
    return {"setup_s": setup, "per_iteration_s": per_iteration, "peak_mib": _peak_mib()}


def _peak_mib() -> float:
    """This process's peak resident memory: VmHWM, which (unlike ru_maxrss, kept across
    execve from the parent) starts afresh in a new program."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # not Linux


def run_fit(path: Path, model: str, iterations: int, parts: int) -> dict[str, float]:
    command = [
        sys.executable,
        "-m",
        "benchmarks.bench_online",
        "--worker",
        str(path),
        model,
        str(iterations),
        str(parts),
    ]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return dict(json.loads(output.strip().splitlines()[-1]))


# The slow references: the book's updates, one session at a time.
def _sessions(frame: pl.DataFrame) -> list[tuple[list[int], list[int]]]:
    grouped = (
        frame.sort("session", "rank")
        .group_by("session", maintain_order=True)
        .agg(pl.struct("query", "document").alias("pair"), "click")
    )
    return [
        ([(p["query"], p["document"]) for p in pairs], clicks)
        for pairs, clicks in grouped.select("pair", "click").iter_rows()
    ]


def pbm_slow(sessions: list, iterations: int) -> tuple[dict, dict]:
    alpha: dict = defaultdict(lambda: 0.5)
    gamma: dict = defaultdict(lambda: 0.5)
    for _ in range(iterations):
        num_a, den_a = defaultdict(float), defaultdict(float)
        num_g, den_g = defaultdict(float), defaultdict(float)
        for pairs, clicks in sessions:
            for r, (pair, c) in enumerate(zip(pairs, clicks, strict=True), 1):
                a, g = alpha[pair], gamma[r]
                num_a[pair] += 1.0 if c else (1 - g) * a / (1 - g * a)
                num_g[r] += 1.0 if c else (1 - a) * g / (1 - g * a)
                den_a[pair] += 1
                den_g[r] += 1
        alpha = defaultdict(lambda: 0.5, {k: (1 + num_a[k]) / (2 + den_a[k]) for k in den_a})
        gamma = defaultdict(lambda: 0.5, {k: (1 + num_g[k]) / (2 + den_g[k]) for k in den_g})
    return dict(alpha), dict(gamma)


def dbn_slow(sessions: list, iterations: int) -> tuple[dict, dict, float]:
    """DBN's EM with the book's recursions: eps_r = P(E_r=1 | C_<r) forward, X_r backward."""
    alpha: dict = defaultdict(lambda: 0.5)
    sigma: dict = defaultdict(lambda: 0.5)
    gamma = 0.5
    for _ in range(iterations):
        num_a, den_a = defaultdict(float), defaultdict(float)
        num_s, den_s = defaultdict(float), defaultdict(float)
        num_g = den_g = 0.0
        for pairs, clicks in sessions:
            n = len(pairs)
            a = [alpha[p] for p in pairs]
            s = [sigma[p] for p in pairs]
            last = max((r for r in range(1, n + 1) if clicks[r - 1]), default=0)
            x = [0.0] * (n + 2)  # X_r = P(C_>=r = 1 | E_r = 1)
            for r in range(n, 0, -1):
                x[r] = a[r - 1] + (1 - a[r - 1]) * gamma * x[r + 1]
            eps = [0.0] * (n + 2)  # eps_r = P(E_r = 1 | C_<r)
            eps[1] = 1.0
            for r in range(1, n + 1):
                if clicks[r - 1]:
                    eps[r + 1] = gamma * (1 - s[r - 1])
                else:
                    eps[r + 1] = eps[r] * (1 - a[r - 1]) * gamma / (1 - eps[r] * a[r - 1])
            for r in range(1, n + 1):
                pair, c = pairs[r - 1], clicks[r - 1]
                if c:
                    num_a[pair] += 1
                elif r > last:
                    num_a[pair] += a[r - 1] * (1 - eps[r]) / (1 - eps[r] * x[r])
                den_a[pair] += 1
                if c:
                    den_s[pair] += 1
                    if r == last:
                        d = 1 - (1 - s[r - 1]) * gamma * x[r + 1]
                        num_s[pair] += s[r - 1] / d
                if r < last:
                    num_g += 1
                    den_g += 1
                elif r == last:
                    d = 1 - (1 - s[r - 1]) * gamma * x[r + 1]
                    num_g += (1 - s[r - 1]) * gamma * (1 - x[r + 1]) / d
                    den_g += (1 - s[r - 1]) * (1 - gamma * x[r + 1]) / d
                else:
                    here = eps[r] * (1 - x[r]) / (1 - eps[r] * x[r])
                    below = eps[r + 1] * (1 - x[r + 1]) / (1 - eps[r + 1] * x[r + 1])
                    num_g += below
                    den_g += here
        alpha = defaultdict(lambda: 0.5, {k: (1 + num_a[k]) / (2 + den_a[k]) for k in den_a})
        sigma = defaultdict(lambda: 0.5, {k: (1 + num_s[k]) / (2 + den_s[k]) for k in den_a})
        gamma = (1 + num_g) / (2 + den_g)
    return dict(alpha), dict(sigma), gamma


def slow_references(path: Path, sample: int, iterations: int) -> dict[str, float]:
    """Seconds per iteration of the slow references on ``sample`` sessions, and their check."""
    frame = pl.scan_parquet(path).filter(pl.col("session") < sample).collect()
    sessions = _sessions(frame)
    result = {}
    for model, slow in (("pbm", pbm_slow), ("dbn", dbn_slow)):
        start = time.perf_counter()
        expected = slow(sessions, iterations)
        result[model] = (time.perf_counter() - start) / iterations
        fitted = online.fit(frame, model, iterations=iterations)
        got = {(q, d): v for q, d, v in fitted.attractiveness.iter_rows()}
        worst = max(abs(got[key] - value) for key, value in expected[0].items())
        assert worst < 1e-9, (model, worst)
        if model == "dbn":
            assert abs(fitted.continuation - expected[2]) < 1e-9  # type: ignore[operator]
    return result


# Interleaving.
def interleaving_pairs(n: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    a = np.argsort(rng.random((n, 15)), axis=1)[:, :DEPTH]
    b = np.argsort(rng.random((n, 15)), axis=1)[:, :DEPTH]
    clicks = (rng.random((n, DEPTH)) < 0.2).astype(np.int8)
    return pl.DataFrame({"query": np.arange(n), "a": a, "b": b, "clicks": clicks}).with_columns(
        pl.col("a", "b", "clicks").arr.to_list()
    )


def time_interleaving(pairs: pl.DataFrame) -> dict[str, float]:
    result = {}
    for name in ("team_draft", "balanced", "probabilistic"):
        interleave = getattr(online, name)
        start = time.perf_counter()
        shown = pairs.select("clicks", interleave("a", "b", seed=1, key="query", k=DEPTH))
        clicks = pl.col("clicks").list.head(
            pl.col("interleaved").struct.field("document").list.len()
        )
        shown.select(online.interleaving_outcome("interleaved", clicks))
        result[name] = time.perf_counter() - start
    return result


def time_interleaving_slow(pairs: pl.DataFrame) -> dict[str, float]:
    from tests.test_online_interleaving import (
        balanced_reference,
        probabilistic_reference,
        team_draft_reference,
    )

    keys = pairs.select(pl.col("query").hash(1)).to_series().to_list()
    rows = list(zip(keys, pairs["a"].to_list(), pairs["b"].to_list(), strict=True))
    result = {}
    for name, reference in (
        ("team_draft", lambda a, b, key: team_draft_reference(a, b, key)),
        ("balanced", lambda a, b, key: balanced_reference(a, b, key)),
        ("probabilistic", lambda a, b, key: probabilistic_reference(a, b, key)),
    ):
        start = time.perf_counter()
        for key, a, b in rows:
            reference(a, b, key)  # the full list: the references have no k
        result[name] = time.perf_counter() - start
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=500_000)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument(
        "--sample", type=int, default=5_000, help="sessions for the slow references"
    )
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--pair-sample", type=int, default=20_000)
    parser.add_argument(
        "--parts", type=int, nargs="+", default=[1, 10], help="fit(parts=) values to time"
    )
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        path, model, iterations, parts = args.worker
        print(json.dumps(fit_worker(path, model, int(iterations), int(parts))))
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.parquet"
        start = time.perf_counter()
        write_log(path, args.sessions)
        rows = args.sessions * DEPTH
        size = path.stat().st_size / 2**20
        written = time.perf_counter() - start
        print(f"log: {rows:,} rows ({args.sessions:,} sessions x {DEPTH}), {size:.0f} MiB parquet")
        print(f"(written in {written:.1f} s)")
        slow = slow_references(path, args.sample, args.iterations)
        print(f"slow references equal the library on {args.sample:,} sessions (1e-9)")
        print(
            "| model | parts | set-up (s) | s / iteration | peak RSS (MiB) "
            "| slow s / iteration (scaled) | x |"
        )
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for model in ("pbm", "dbn"):
            scaled = slow[model] * args.sessions / args.sample
            for parts in args.parts:
                fitted = run_fit(path, model, args.iterations, parts)
                seconds = fitted["per_iteration_s"]
                print(
                    f"| {model.upper()} | {parts} | {fitted['setup_s']:.1f} | {seconds:.2f} | "
                    f"{fitted['peak_mib']:.0f} | {scaled:.0f} | {scaled / seconds:.0f} |"
                )
    if not args.pairs:
        return
    pairs = interleaving_pairs(args.pairs)
    fast = time_interleaving(pairs)
    slow_pairs = time_interleaving_slow(pairs.head(args.pair_sample))
    print()
    print(f"interleaving {args.pairs:,} query pairs (10 documents each), with the credit:")
    print("| method | seconds | pseudo-code per pair, scaled (s) | x |")
    print("| --- | ---: | ---: | ---: |")
    for name, seconds in fast.items():
        scaled = slow_pairs[name] * args.pairs / args.pair_sample
        print(f"| {name} | {seconds:.1f} | {scaled:.0f} | {scaled / seconds:.0f} |")
    print(f"\npolars {pl.__version__}, {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
