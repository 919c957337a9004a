"""``python -m benchmarks.profile_alpha``: where alpha-nDCG@20's time goes, step by step.

The data of ``benchmarks.ratios``' diversity rows (queries of 50 documents, 0-3
subtopics each, random scores). Each step is timed alone, best of
``--repeat``, in CPU seconds (user + system of this process) and wall seconds:

- the floor: polars' grouped sort of the subtopic lists;
- the engine's sort of each query's ``{code, subtopics}`` list (the lists as
  given, as the batched measures read them);
- the whole measure, ``group_by(...).agg(rm.alpha_ndcg_at_k(...))``;
- the batched computation on the sorted lists
  (:func:`~polars_rankmetrics.metrics.diversity_batched.normalised_values`), and
  its parts on one block of lists: the flat arrays, the ranking's terms, the
  ideal's documents, pools, tie-break keys and greedy loop, and the sums of the
  terms of all lists (as many blocks' terms).

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
    greedy = importlib.import_module("polars_rankmetrics.metrics.diversity_greedy")
    flat_module = importlib.import_module("polars_rankmetrics.metrics.diversity_flat")
    statistics = importlib.import_module("polars_rankmetrics.metrics.diversity_statistics")
    ideal_module = importlib.import_module("polars_rankmetrics.metrics.diversity_ideal")

    lazy = frame(n_queries).lazy()
    ranking = statistics.subtopic_ranking("subtopics", "score", True, "stable", as_given=True)
    listed = ranking.listed([SUBTOPICS])
    lists = lazy.group_by("query").agg(listed.alias("lists")).collect()["lists"]
    block = lists.slice(0, batched.BLOCK)
    scale = len(lists) / len(block)  # the parts, measured on one block, scaled to all
    options = {"alpha": 0.5, "discount": "log", "k": 20, "beta": 0.5, "scale": 1.0}
    flat = flat_module.flatten(block, SUBTOPICS, clean=True)
    tables = batched._tables(0.5, "log", 0.5, 20, 20)
    covered = greedy.covered_pairs(flat)
    terms, counts = batched._ranked_terms(flat, tables, 20)[:2]
    all_terms, all_counts = (
        np.concatenate([terms] * round(scale)),
        np.concatenate([counts] * round(scale)),
    )
    doc_list = flat.row_list[covered.doc_row]
    length = np.minimum(np.bincount(doc_list, minlength=flat.n_lists), 20)
    pools = greedy._pools(flat, covered, doc_list, length)
    ties = greedy._tie_keys(pools, covered, None)
    weight = np.ones(flat.n_gid)
    discounts = ideal_module._discounts("log", pools.longest, 0.5)
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
        ("part: flat arrays", lambda: flat_module.flatten(block, SUBTOPICS, clean=True), scale),
        ("part: the ranking's terms", lambda: batched._ranked_terms(flat, tables, 20), scale),
        (
            "part: the ranking's sums",
            lambda: batched._sums(all_terms, all_counts, compensated=True),
            1.0,
        ),
        ("part: ideal, documents", lambda: greedy.covered_pairs(flat), scale),
        ("part: ideal, pools", lambda: greedy._pools(flat, covered, doc_list, length), scale),
        ("part: ideal, tie-break keys", lambda: greedy._tie_keys(pools, covered, None), scale),
        (
            "part: ideal, greedy loop",
            lambda: greedy._greedy(pools, ties, weight, 0.5, discounts),
            scale,
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
