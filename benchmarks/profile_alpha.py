"""``python -m benchmarks.profile_alpha``: where alpha-nDCG@20's time goes, step by step.

The data of ``benchmarks.ratios``' diversity rows (queries of 50 documents, 0-3
subtopics each, random scores). Each step is timed alone, best of
``--repeat``, in CPU seconds (user + system of this process) and wall seconds:

- the floor: polars' grouped sort of the subtopic lists;
- the engine's sort of each query's ``{code, subtopics}`` list (the lists as
  given, as the batched measures read them);
- the whole measure, ``group_by(...).agg(rm.alpha_ndcg_at_k(...))``;
- the batched computation on the sorted lists
  (:func:`~polars_rankmetrics.metrics.diversity_batched.normalised_values`), on
  polars' threads and on one, and by the general path (flat arrays, pools: the
  path before the bit masks, still taken for document ids or many subtopics);
- its parts (:mod:`~polars_rankmetrics.metrics.diversity_dense`): reading the
  Arrow buffers and ranking the subtopics (all lists), then on one block of
  lists, scaled to all: the rows' masks and the block's sets, the ideal's
  table, the greedy ideal, the ranking's terms; and the sums of the terms of all
  lists (as many blocks' terms).

Examples
--------
::

    python -m benchmarks.profile_alpha --queries 10000 100000 --repeat 5
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Callable

import numpy as np
import polars as pl


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(step: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The best CPU and the best wall seconds of ``step`` over ``repeat`` runs."""
    best_cpu = best_wall = float("inf")
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), _cpu()
        step()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, _cpu() - cpu)
    return best_cpu, best_wall


def frame(n_queries: int) -> pl.DataFrame:
    """``benchmarks.ratios``' subtopic lists: 50 documents a query."""
    rng = np.random.default_rng(0)
    n = n_queries * 50
    return pl.DataFrame(
        {
            "query": np.repeat(np.arange(n_queries), 50),
            "score": rng.random(n),
            "relevance": rng.choice([0, 0, 0, 1, 2, 3], size=n),
        }
    ).with_columns(subtopics=pl.int_ranges(1, pl.col("relevance").cast(pl.Int64) + 1))


def profile(n_queries: int, repeat: int) -> list[tuple[str, float, float]]:
    """(step, CPU s, wall s) of each step at ``n_queries`` queries."""
    import importlib

    import polars_rankmetrics as rm
    from polars_rankmetrics.engine.ranked import SUBTOPICS

    batched = importlib.import_module("polars_rankmetrics.metrics.diversity_batched")
    dense = importlib.import_module("polars_rankmetrics.metrics.diversity_dense")
    statistics = importlib.import_module("polars_rankmetrics.metrics.diversity_statistics")

    lazy = frame(n_queries).lazy()
    ranking = statistics.subtopic_ranking("subtopics", "score", True, "stable", as_given=True)
    listed = ranking.listed([SUBTOPICS])
    lists = lazy.group_by("query").agg(listed.alias("lists")).collect()["lists"]
    options = {"alpha": 0.5, "discount": "log", "k": 20, "beta": 0.5, "scale": 1.0}
    ideal_options = {"k": 20, "alpha": 0.5, "discount": "log", "beta": 0.5}
    tables = batched._tables(0.5, "log", 0.5, 20, 20)
    column = dense._column(lists, SUBTOPICS)
    size = min(dense.DENSE_BLOCK, len(lists))
    scale = len(lists) / size  # the parts, measured on one block, scaled to all
    block = dense._block(column, 0, size)
    row_counts = np.diff(block.row_offsets)
    n_masks = len(block.masks)
    row_list = np.repeat(np.arange(size), row_counts)
    table = np.bincount(row_list * (n_masks + 1) + block.column, minlength=size * (n_masks + 1))
    available = table.reshape(size, n_masks + 1)[:, :n_masks]
    union = np.bitwise_or.reduce(np.where(available > 0, block.masks, 0), axis=1)
    n_subtopics = np.bitwise_count(union).astype(np.int64)
    terms, counts = dense._terms(block, 0, row_counts, n_subtopics, tables)
    all_terms = np.concatenate([terms] * round(scale))
    all_counts = np.concatenate([counts] * round(scale))

    def general() -> object:
        real = batched.dense_parts
        batched.dense_parts = lambda *_, **__: None
        try:
            return batched.normalised_values(lists, pl.lit(0.0), no_relevant="null", **options)
        finally:
            batched.dense_parts = real

    def one_thread() -> object:
        real = dense.pl.thread_pool_size
        dense.pl.thread_pool_size = lambda: 1
        try:
            return batched.normalised_values(lists, pl.lit(0.0), no_relevant="null", **options)
        finally:
            dense.pl.thread_pool_size = real

    steps: list[tuple[str, Callable[[], object], float]] = [
        (
            "grouped sort (the floor)",
            lazy.group_by("query")
            .agg(pl.col("subtopics").sort_by("score", descending=True))
            .collect,
            1.0,
        ),
        ("the engine's sort of {code, subtopics}", lazy.group_by("query").agg(listed).collect, 1.0),
        (
            "alpha-nDCG@20, whole",
            lazy.group_by("query").agg(rm.alpha_ndcg_at_k("subtopics", 20, by="score")).collect,
            1.0,
        ),
        (
            "batched computation on the sorted lists",
            lambda: batched.normalised_values(lists, pl.lit(0.0), no_relevant="null", **options),
            1.0,
        ),
        ("the same, one thread", one_thread, 1.0),
        ("the same, general path (before: flat arrays, pools)", general, 1.0),
        ("part: Arrow buffers, subtopic ranks", lambda: dense._column(lists, SUBTOPICS), 1.0),
        ("part: row masks, sets", lambda: dense._block(column, 0, size), scale),
        (
            "part: the ideal's table, S",
            lambda: np.bincount(
                np.repeat(np.arange(size), row_counts) * (n_masks + 1) + block.column,
                minlength=size * (n_masks + 1),
            ),
            scale,
        ),
        (
            "part: greedy ideal",
            lambda: dense.dense_ideal(
                available, n_subtopics, block.text, block.n_values, **ideal_options
            ),
            scale,
        ),
        (
            "part: the ranking's terms",
            lambda: dense._terms(block, 0, row_counts, n_subtopics, tables),
            scale,
        ),
        (
            "part: the ranking's sums",
            lambda: batched._sums(all_terms, all_counts, compensated=True),
            1.0,
        ),
    ]
    rows = []
    for name, step, factor in steps:
        cpu, wall = timed(step, repeat)
        rows.append((name, cpu * factor, wall * factor))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print the profile of each size as a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    import os

    print(f"polars {pl.__version__}, load average {os.getloadavg()[0]:.1f} at the start")
    for n_queries in args.queries:
        rows = profile(n_queries, args.repeat)
        floor = rows[0][1]
        print(f"\n{n_queries:,} queries x 50 (best of {args.repeat}; parts: one block, scaled)\n")
        print("| step | CPU s | wall s | CPU / floor |\n|---|---:|---:|---:|")
        for name, cpu, wall in rows:
            print(f"| {name.strip()} | {cpu:.3f} | {wall:.3f} | {cpu / floor:.2f}x |")
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
