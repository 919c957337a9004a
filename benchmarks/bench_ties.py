"""Cost of each `ties` mode: 10k queries x 100 docs, scores rounded to 2 decimals.

Run: python benchmarks/bench_ties.py   (prints a markdown table; best of 3 runs)
"""

from __future__ import annotations

import time

import numpy as np
import polars as pl

import polars_rankmetrics as rm

N_QUERIES, N_DOCS = 10_000, 100


def main() -> None:
    rng = np.random.default_rng(0)
    n = N_QUERIES * N_DOCS
    frame = pl.DataFrame(
        {
            "query": np.repeat(np.arange(N_QUERIES), N_DOCS),
            "score": np.round(rng.random(n), 2),  # ~100 distinct scores: many ties
            "rel": rng.integers(0, 3, n) * (rng.random(n) < 0.3),
        }
    )

    def best_of_3(expr: pl.Expr) -> float:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            frame.lazy().group_by("query").agg(expr).collect()
            times.append(time.perf_counter() - start)
        return min(times)

    measures = ["map", "P@10", "nDCG@10", "RR", "Rprec"]
    workloads = {
        "metrics(map, P@10, nDCG@10, RR, Rprec)": lambda t: rm.metrics(
            "rel", measures, by="score", ties=t
        ),
        "average_precision": lambda t: rm.average_precision("rel", by="score", ties=t),
        "ap_at_k(10, denominator='hits')": lambda t: rm.ap_at_k(
            "rel", 10, by="score", denominator="hits", ties=t
        ),
    }
    modes = ["stable", "optimistic", "pessimistic", "average"]
    print(f"{N_QUERIES * N_DOCS:,} rows; seconds (ratio to 'stable')\n")
    print("| workload | " + " | ".join(modes) + " |")
    print("|---|" + "---|" * len(modes))
    for name, build in workloads.items():
        seconds = [best_of_3(build(mode)) for mode in modes]
        cells = [f"{s:.2f} ({s / seconds[0]:.1f}x)" for s in seconds]
        print(f"| `{name}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
