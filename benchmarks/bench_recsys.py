"""Recommender metrics: rm.recsys.evaluate against RecTools' calc_metrics, and intra-list diversity.

Two workloads on synthetic data written to parquet (Zipf-like item popularity):

1. **one pass**: catalogue coverage, MeanInvUserFreq (novelty), ARP, the Gini
   index and accuracy (Precision, Recall, NDCG, MAP, MRR, HitRate at 10) of
   top-10 lists, from the parquet files, by ``rm.recsys.evaluate`` and by
   RecTools' ``calc_metrics`` (its Gini by pandas, which RecTools lacks);
2. **diversity**: intra-list diversity of the top 10 over 64-dimensional item
   embeddings, ``rm.recsys.intra_list_diversity`` (Hamming, as RecTools, and
   cosine) against RecTools' ``IntraListDiversity`` with
   ``PairwiseHammingDistanceCalculator``.

Each contender runs in a fresh process with ``POLARS_MAX_THREADS`` (and the
BLAS thread variables) set to the thread count; the floor is polars' grouped
sort of the same lists, ``group_by("user").agg(pl.col("item").sort_by("rank"))``.
The results of both sides are compared (max absolute difference) before timing.

Run (default 100k users x top-10, 20k items, 5M training rows, ILD on 20k users):

    python -m benchmarks.bench_recsys
    python -m benchmarks.bench_recsys --size issue      # 1M users, 100k items, 50M rows
    python -m benchmarks.bench_recsys --users 10000 --items 2000 --train 500000 --repeat 1
    python -m benchmarks.bench_recsys --baseline /tmp/main-export  # before/after, one run

``--baseline DIR`` also runs ``rm.recsys.evaluate`` from another checkout of the
repository (e.g. ``git archive main | tar -x -C DIR``) on the same data, as
``ours_baseline``, right after ours: a before/after pair in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SIZES = {
    "small": {"users": 10_000, "items": 5_000, "train": 500_000, "ild_users": 5_000},
    "default": {"users": 100_000, "items": 20_000, "train": 5_000_000, "ild_users": 20_000},
    "issue": {"users": 1_000_000, "items": 100_000, "train": 50_000_000, "ild_users": 50_000},
}
K = 10
METRICS = [
    "CatalogCoverage@10",
    "MeanInvUserFreq@10",
    "AvgRecPopularity@10",
    "Gini@10",
    "Precision@10",
    "Recall@10",
    "NDCG@10",
    "MAP@10",
    "MRR@10",
    "HitRate@10",
]


def write_data(directory: Path, users: int, items: int, train: int, seed: int = 0) -> None:
    """reco (top-10 per user), test (2 per user) and train (Zipf-like items) as parquet."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, items + 1) ** 0.9
    weights /= weights.sum()
    train_frame = pl.DataFrame(
        {
            "user": rng.integers(0, users, train, dtype=np.int64),
            "item": rng.choice(items, size=train, p=weights).astype(np.int64),
        }
    )
    train_frame.write_parquet(directory / "train.parquet")
    # top-10 lists: a popularity-biased draw without repeats within a list (rejection by offset)
    first = rng.choice(items, size=users, p=weights)
    step = max(2, min(50, items // K))  # K steps stay below `items`: no repeat within a list
    offsets = np.cumsum(rng.integers(1, step, size=(users, K)), axis=1)
    reco_items = (first[:, None] + offsets) % items
    pl.DataFrame(
        {
            "user": np.repeat(np.arange(users, dtype=np.int64), K),
            "item": reco_items.ravel().astype(np.int64),
            "rank": np.tile(np.arange(1, K + 1, dtype=np.int64), users),
        }
    ).write_parquet(directory / "reco.parquet")
    test_items = np.where(
        rng.random((users, 2)) < 0.3,
        reco_items[np.arange(users)[:, None], rng.integers(0, K, (users, 2))],
        rng.choice(items, size=(users, 2), p=weights),
    )
    pl.DataFrame(
        {
            "user": np.repeat(np.arange(users, dtype=np.int64), 2),
            "item": test_items.ravel().astype(np.int64),
        }
    ).unique().write_parquet(directory / "test.parquet")
    embeddings = rng.normal(size=(items, 64)).round(0)  # few distinct values: Hamming is meaningful
    pl.DataFrame(
        {"item": np.arange(items, dtype=np.int64), "embedding": embeddings.tolist()}
    ).write_parquet(directory / "embeddings.parquet")


# ------------------------------------------------------------------ contenders (one per process)


def _floor(data: Path, ild_users: int) -> Any:
    import polars as pl

    lists = pl.scan_parquet(data / "reco.parquet").group_by("user")
    return lists.agg(pl.col("item").sort_by("rank")).collect().height


def _ours(data: Path, ild_users: int) -> Any:
    import polars_rankmetrics as rm

    result = rm.recsys.evaluate(
        str(data / "reco.parquet"),
        metrics=METRICS,
        interactions=str(data / "test.parquet"),
        train=str(data / "train.parquet"),
    )
    return result.summary.drop("model").row(0, named=True)


def _rectools(data: Path, ild_users: int) -> Any:
    import warnings

    import pandas as pd
    from rectools.metrics import (
        MAP,
        MRR,
        NDCG,
        AvgRecPopularity,
        CatalogCoverage,
        HitRate,
        MeanInvUserFreq,
        Precision,
        Recall,
        calc_metrics,
    )

    names = {"user": "user_id", "item": "item_id"}
    reco = pd.read_parquet(data / "reco.parquet").rename(columns=names)
    test = pd.read_parquet(data / "test.parquet").rename(columns=names)
    train = pd.read_parquet(data / "train.parquet").rename(columns=names)
    metrics = {
        "CatalogCoverage@10": CatalogCoverage(k=K),
        "MeanInvUserFreq@10": MeanInvUserFreq(k=K),
        "AvgRecPopularity@10": AvgRecPopularity(k=K),
        "Precision@10": Precision(k=K),
        "Recall@10": Recall(k=K),
        "NDCG@10": NDCG(k=K),
        "MAP@10": MAP(k=K),
        "MRR@10": MRR(k=K),
        "HitRate@10": HitRate(k=K),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = calc_metrics(metrics, reco, test, train, catalog=train["item_id"].unique())
    counts = reco.loc[reco["rank"] <= K, "item_id"].value_counts().sort_values().to_numpy()
    n = len(counts)
    positions = pd.RangeIndex(1, n + 1).to_numpy()
    values["Gini@10"] = float(((2 * positions - n - 1) * counts).sum() / (n * counts.sum()))
    return values


def _ild_lists(data: Path, ild_users: int) -> Any:
    import polars as pl

    return pl.read_parquet(data / "reco.parquet").filter(pl.col("user") < ild_users)


def _ours_ild(distance: str) -> Any:
    def run(data: Path, ild_users: int) -> Any:
        import polars as pl

        import polars_rankmetrics as rm

        reco = _ild_lists(data, ild_users)
        features = pl.read_parquet(data / "embeddings.parquet")
        result = rm.recsys.intra_list_diversity(reco, features, k=K, distance=distance)
        return {"mean": result["ild"].mean()}

    return run


def _rectools_ild(data: Path, ild_users: int) -> Any:
    import warnings

    import numpy as np
    import pandas as pd
    import polars as pl
    from rectools.metrics import IntraListDiversity, PairwiseHammingDistanceCalculator

    embeddings = pl.read_parquet(data / "embeddings.parquet")
    matrix = np.asarray(embeddings["embedding"].to_list())
    features = pd.DataFrame(matrix, index=embeddings["item"].to_numpy())
    reco = _ild_lists(data, ild_users).rename({"user": "user_id", "item": "item_id"}).to_pandas()
    metric = IntraListDiversity(
        k=K, distance_calculator=PairwiseHammingDistanceCalculator(features)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {"mean": metric.calc(reco)}


CONTENDERS = {
    "floor": ("grouped sort of the lists (floor)", _floor),
    "ours": ("rm.recsys.evaluate, 10 metrics, one pass", _ours),
    "rectools": ("RecTools calc_metrics + pandas Gini", _rectools),
    "ours_ild_hamming": ("rm.recsys.intra_list_diversity (Hamming)", _ours_ild("hamming")),
    "ours_ild_cosine": ("rm.recsys.intra_list_diversity (cosine)", _ours_ild("cosine")),
    "rectools_ild": ("RecTools IntraListDiversity (Hamming)", _rectools_ild),
}


def _worker(name: str, data: Path, ild_users: int, repeat: int) -> None:

    if name.startswith("rectools"):
        import pandas  # noqa: F401
        import rectools.metrics  # noqa: F401
    function = CONTENDERS[name][1]
    seconds, cpu, value = [], [], None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        value = function(data, ild_users)
        seconds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(json.dumps({"seconds": seconds, "cpu": cpu, "value": value}, default=float))


def _run(
    name: str, data: Path, ild_users: int, repeat: int, threads: int, cwd: Path | None = None
) -> dict[str, Any]:
    env = dict(os.environ)
    for variable in (
        "POLARS_MAX_THREADS",
        "OMP_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
    ):
        env[variable] = str(threads)
    command = [
        sys.executable,
        "-m",
        "benchmarks.bench_recsys",
        "--worker",
        name,
        "--data",
        str(data),
        "--ild-users",
        str(ild_users),
        "--repeat",
        str(repeat),
    ]
    output = subprocess.run(
        command, env=env, check=True, capture_output=True, text=True, cwd=cwd
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def _difference(ours: dict[str, float], theirs: dict[str, float]) -> float:
    return max(abs(float(ours[key]) - float(theirs[key])) for key in theirs)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="default")
    parser.add_argument("--users", type=int)
    parser.add_argument("--items", type=int)
    parser.add_argument("--train", type=int)
    parser.add_argument("--ild-users", type=int)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=2, help="runs per process (best is kept)")
    parser.add_argument("--skip", nargs="*", default=[], choices=sorted(CONTENDERS))
    parser.add_argument("--baseline", type=Path, help="another checkout to run `ours` from")
    parser.add_argument("--worker", choices=sorted(CONTENDERS), help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    size = dict(SIZES[args.size])
    for key in ("users", "items", "train", "ild_users"):
        if getattr(args, key) is not None:
            size[key] = getattr(args, key)
    if args.worker:
        _worker(args.worker, args.data, size["ild_users"], args.repeat)
        return
    with tempfile.TemporaryDirectory(prefix="bench-recsys-") as directory:
        data = Path(directory)
        write_data(data, size["users"], size["items"], size["train"])
        print(
            f"command: python -m benchmarks.bench_recsys {' '.join(argv or sys.argv[1:])}\n"
            f"{size['users']:,} users x top-{K} ({size['users'] * K:,} rows), "
            f"{size['items']:,} items, {size['train']:,} training rows (parquet); "
            f"ILD on {size['ild_users']:,} users x 64-d; "
            f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
            f"best of {args.repeat} runs in one fresh process each\n"
        )
        rows = []
        for threads in args.threads:
            results = {}
            for name in CONTENDERS:
                if name in args.skip:
                    continue
                results[name] = _run(name, data, size["ild_users"], args.repeat, threads)
                if name == "ours" and args.baseline is not None:
                    results["ours_baseline"] = _run(
                        "ours", data, size["ild_users"], args.repeat, threads, args.baseline
                    )
            best = {name: min(result["seconds"]) for name, result in results.items()}
            best_cpu = {name: min(result["cpu"]) for name, result in results.items()}
            for name, result in results.items():
                reference = {
                    "ours": "rectools",
                    "ours_baseline": "rectools",
                    "ours_ild_hamming": "rectools_ild",
                }.get(name)
                check = ""
                if reference in results:
                    check = f"{_difference(result['value'], results[reference]['value']):.1e}"
                versus = {
                    "ours": "rectools",
                    "ours_baseline": "rectools",
                    "ours_ild_hamming": "rectools_ild",
                    "ours_ild_cosine": "rectools_ild",
                }.get(name)
                speedup = f"{best[versus] / best[name]:.1f}x" if versus in best else ""
                cpu_speedup = f"{best_cpu[versus] / best_cpu[name]:.1f}x" if versus in best else ""
                floor = f"{best[name] / best['floor']:.2f}" if "floor" in best else ""
                label = (
                    f"{CONTENDERS['ours'][0]} (baseline: {args.baseline})"
                    if name == "ours_baseline"
                    else CONTENDERS[name][0]
                )
                rows.append(
                    f"| {threads} | {label} | {best[name]:.2f} | {floor} | "
                    f"{speedup} | {best_cpu[name]:.2f} | {cpu_speedup} | {check} |"
                )
        print(
            "| threads | contender | wall s | wall x floor | wall: faster than RecTools "
            "| CPU s | CPU: less than RecTools | max abs diff |"
        )
        print("|---|---|---|---|---|---|---|---|")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
