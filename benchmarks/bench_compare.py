"""Comparing many systems: all pairs with the randomised Tukey HSD, against ranx.

Seeded per-query values (``--systems`` x ``--queries`` x ``--metrics``, each
system a shifted beta-like score per query) go to
``rm.compare_pairs(test="randomised-tukey", n_resamples=--trials)``; the
one-way and two-way Tukey HSD and the paired t-test over all pairs are timed
too. The peer is ranx (0.3.x): its ``compare`` runs Tukey's HSD through
``scipy.stats.tukey_hsd`` and Fisher's randomization test pair by pair (numba,
both orders of each pair); both are timed on a smaller size (the first
``--peer-systems`` systems, ``--peer-trials`` permutations) next to ours on the
same smaller data, as are our one-way and two-way Tukey HSD (scipy's studentized
range distribution costs about 50 ms a pair). Each timing is the best of ``--repeat`` runs in this
process.

    python -m benchmarks.bench_compare                # 50 x 1,000 x 5, 10,000 trials
    python -m benchmarks.bench_compare --systems 10 --trials 1000
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

import polars_rankmetrics as rm


def per_query_frame(n_systems: int, n_queries: int, n_metrics: int, seed: int = 0) -> pl.DataFrame:
    """One row per (system, query), ``n_metrics`` columns in [0, 1]."""
    rng = np.random.default_rng(seed)
    difficulty = rng.random(n_queries)
    columns: dict[str, Any] = {
        "system": np.repeat([f"sys{i:02d}" for i in range(n_systems)], n_queries),
        "query": np.tile([f"q{j}" for j in range(n_queries)], n_systems),
    }
    strength = np.linspace(0.0, 0.1, n_systems)[:, None]
    for m in range(n_metrics):
        noise = rng.random((n_systems, n_queries)) * 0.4
        columns[f"metric{m}"] = np.clip(difficulty * 0.6 + noise + strength, 0, 1).reshape(-1)
    return pl.DataFrame(columns)


def best_of(repeat: int, function: Callable[[], object]) -> tuple[float, float]:
    """The best wall time of ``repeat`` calls and its CPU time (this process), in seconds.

    On a shared machine the CPU time says what the wall time would be on idle cores
    (at one thread; with several threads the wall time is less).
    """
    times = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        function()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    return min(times)


def ranx_scores(frame: pl.DataFrame) -> tuple[list[str], dict[str, dict[str, np.ndarray]]]:
    """ranx's per-query input: ``{model: {metric: values}}``."""
    metrics = [name for name in frame.columns if name not in ("system", "query")]
    names = frame["system"].unique(maintain_order=True).to_list()
    scores = {
        name: {m: frame.filter(pl.col("system") == name)[m].to_numpy() for m in metrics}
        for name in names
    }
    return names, scores


def _print(rows: list[tuple[str, str, tuple[float, float]]]) -> None:
    print(f"cores: {os.cpu_count()}, numpy {np.__version__}, polars {pl.__version__}")
    print("| what | data | wall seconds | CPU seconds |")
    print("| --- | --- | ---: | ---: |")
    for label, data, (wall, cpu) in rows:
        print(f"| {label} | {data} | {wall:.2f} | {cpu:.2f} |")


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--metrics", type=int, default=5)
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--peer-systems", type=int, default=10)
    parser.add_argument("--peer-trials", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--only-target", action="store_true", help="time the target row alone")
    args = parser.parse_args(argv)

    frame = per_query_frame(args.systems, args.queries, args.metrics)
    size = f"{args.systems} systems x {args.queries} queries x {args.metrics} metrics"
    rows: list[tuple[str, str, tuple[float, float]]] = []

    def ours(test: str, data: pl.DataFrame, trials: int) -> Callable[[], object]:
        return lambda: rm.compare_pairs(data, test=test, correction=None, n_resamples=trials)  # type: ignore[arg-type]

    names = frame["system"].unique(maintain_order=True).to_list()
    small = frame.filter(pl.col("system").is_in(names[: args.peer_systems]))
    small_size = f"{args.peer_systems} systems x {args.queries} queries x {args.metrics} metrics"
    ours("t", small, 1)()  # imports scipy and the modules; not timed
    rows.append(
        (
            f"randomised Tukey HSD, {args.trials:,} trials",
            size,
            best_of(args.repeat, ours("randomised-tukey", frame, args.trials)),
        )
    )
    if args.only_target:
        _print(rows)
        return
    rows.append(("paired t, all pairs", size, best_of(args.repeat, ours("t", frame, 1))))
    floor = best_of(args.repeat, lambda: frame.group_by("system").agg(pl.exclude("query").mean()))
    rows.append(("floor: group_by(system).mean()", size, floor))
    # scipy's studentized range survival function integrates numerically, about 50 ms a
    # pair: the one-way and two-way Tukey HSD (ours and scipy's) run on the smaller data.
    for test, label in (("tukey", "Tukey HSD (one-way)"), ("tukey-two-way", "Tukey HSD (two-way)")):
        rows.append((label, small_size, best_of(args.repeat, ours(test, small, 1))))
    if not args.no_peer:
        from scipy import stats  # type: ignore[import-untyped]

        small_names, small_scores = ranx_scores(small)
        metrics = list(small_scores[small_names[0]])

        def scipy_tukey() -> None:
            for m in metrics:
                stats.tukey_hsd(*(small_scores[name][m] for name in small_names))

        rows.append(
            (
                "peer: ranx's Tukey (scipy.stats.tukey_hsd)",
                small_size,
                best_of(args.repeat, scipy_tukey),
            )
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from ranx.statistical_tests import compute_statistical_significance

            def ranx_fisher() -> None:
                compute_statistical_significance(
                    small_names, small_scores, stat_test="fisher", n_permutations=args.peer_trials
                )

            ranx_fisher()  # numba compiles on the first call; not timed
            rows.append(
                (
                    f"peer: ranx Fisher, all pairs, {args.peer_trials:,} permutations",
                    small_size,
                    best_of(args.repeat, ranx_fisher),
                )
            )
        rows.append(
            (
                f"randomised Tukey HSD, {args.peer_trials:,} trials",
                small_size,
                best_of(args.repeat, ours("randomised-tukey", small, args.peer_trials)),
            )
        )
        rows.append(
            (
                f"randomization test, all pairs, {args.peer_trials:,} resamples",
                small_size,
                best_of(args.repeat, ours("randomization", small, args.peer_trials)),
            )
        )
    _print(rows)


if __name__ == "__main__":
    main()
