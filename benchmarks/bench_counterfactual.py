"""Counterfactual evaluation benchmarks: the slate estimators against obp, and streaming.

Run from the repository root:

    python -m benchmarks.bench_counterfactual                  # 1M slates x 10 positions
    python -m benchmarks.bench_counterfactual --slates 100000 --obp-slates 20000
    python -m benchmarks.bench_counterfactual --streaming 100000000   # 100M rows from parquet

1. In memory (``--slates`` S x ``--positions`` L rows, obp's column names, 5
   actions): each estimator's expression (``log.select(expr)``, its data checks
   included) against obp 0.5.7's ``estimate_policy_value`` on the same numpy
   arrays, and against the floor: polars' grouped sort of the same frame,
   ``group_by(slate_id).agg(reward.sort_by(position))``. obp's input checks run
   pandas' ``groupby().apply`` once per slate, and its cascade DR a Python loop
   per row, so obp runs on the first ``--obp-slates`` slates and its time is
   scaled to S (linear in the slates), except for ``iips`` and ``sniips``,
   whose checks are vectorised (one pandas ``duplicated``): obp runs those on
   all S slates (scaling a small sample underestimated them); obp's arithmetic alone (its
   ``_estimate_round_rewards`` on all S slates, no checks) is shown beside it.
2. Streaming (``--streaming`` R rows): the log is written to parquet in files
   of 5M rows, then ``estimate(scan_parquet(...), every estimator)`` (read in
   parts of whole slates: bounded memory), with ``--expressions`` also every
   estimator in one ``scan_parquet(...).select(...)`` with the streaming
   engine (polars holds the columns: memory grows with the log), and
   ``fit_pbm`` (query = slate % 1000, document = action, rank = position + 1,
   click = reward): the counting pass over the files and the time per EM
   iteration. Peak resident memory (VmHWM) of each step.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from polars_rankmetrics import counterfactual as cf
from polars_rankmetrics.counterfactual.position_bias import click_counts, iterate, with_ids

_OBP_ON_ALL = frozenset({"iips", "sniips"})
"""obp's estimators whose input checks are vectorised: timed on every slate, not scaled."""
ESTIMATORS: dict[str, Callable[[], pl.Expr]] = {
    "sips": cf.slate_standard_ips,
    "iips": cf.slate_independent_ips,
    "rips": cf.slate_reward_interaction_ips,
    "snsips": cf.self_normalized_slate_standard_ips,
    "sniips": cf.self_normalized_slate_independent_ips,
    "snrips": cf.self_normalized_slate_reward_interaction_ips,
    "cascade-dr": cf.slate_cascade_dr,
}
N_ACTIONS = 5
_FILE_ROWS = 5_000_000


def make_log(n_slates: int, len_list: int, seed: int, first_slate: int = 0) -> pl.DataFrame:
    """A random log of full slates with every column obp's estimators read."""
    rng = np.random.default_rng(seed)
    shape = (n_slates, len_list)
    logging = rng.uniform(0.05, 1.0, shape)
    target = rng.uniform(0.0, 1.0, shape)
    cascade_logging, cascade_target = np.cumprod(logging, axis=1), np.cumprod(target, axis=1)
    n = n_slates * len_list
    dist = rng.random((n, N_ACTIONS))
    dist /= dist.sum(axis=1, keepdims=True)
    return pl.DataFrame(
        {
            "slate_id": np.repeat(np.arange(first_slate, first_slate + n_slates), len_list),
            "position": np.tile(np.arange(len_list), n_slates),
            "action": rng.integers(0, N_ACTIONS, n),
            "reward": (rng.random(n) < 0.2).astype(np.float64),
            "pscore": np.repeat(cascade_logging[:, -1], len_list),
            "evaluation_policy_pscore": np.repeat(cascade_target[:, -1], len_list),
            "pscore_item_position": logging.ravel(),
            "evaluation_policy_pscore_item_position": target.ravel(),
            "pscore_cascade": cascade_logging.ravel(),
            "evaluation_policy_pscore_cascade": cascade_target.ravel(),
            "q_hat": pl.Series(rng.random((n, N_ACTIONS))).cast(pl.List(pl.Float64)),
            "evaluation_policy_action_dist": pl.Series(dist).cast(pl.List(pl.Float64)),
        }
    )


def _rss() -> float:
    """Peak resident memory of this process in GiB since the last reset (Linux), or NaN."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return float("nan")
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return int(fields["VmHWM"].split()[0]) / 2**20


def _reset_peak() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _timed(work: Callable[[], Any]) -> tuple[float, float, Any]:
    start, cpu = time.perf_counter(), time.process_time()
    value = work()
    return time.perf_counter() - start, time.process_time() - cpu, value


def _obp_module() -> Any:
    from tests.obp_slate import load_obp_slate

    return load_obp_slate()


def _obp_call(module: Any, name: str, log: pl.DataFrame, core: bool) -> Callable[[], float]:
    """obp's estimate_policy_value (or, with ``core``, its arithmetic alone) on ``log``."""
    lists = ("q_hat", "evaluation_policy_action_dist")
    arrays = {c: log[c].to_numpy() for c in log.columns if c not in lists}
    len_list = int(log["position"].max()) + 1  # type: ignore[arg-type]
    if name == "cascade-dr":
        for c in lists:
            arrays[c] = log[c].explode().to_numpy()
        estimator = module.SlateCascadeDoublyRobust(len_list=len_list, n_unique_action=N_ACTIONS)
        estimator.n_rounds_ = len(np.unique(arrays["slate_id"]))
        round_rewards = estimator._estimate_round_rewards
        kind = "pscore_cascade"
    else:
        classes = {
            "sips": (module.SlateStandardIPS, "pscore"),
            "iips": (module.SlateIndependentIPS, "pscore_item_position"),
            "rips": (module.SlateRewardInteractionIPS, "pscore_cascade"),
            "snsips": (module.SelfNormalizedSlateStandardIPS, "pscore"),
            "sniips": (module.SelfNormalizedSlateIndependentIPS, "pscore_item_position"),
            "snrips": (module.SelfNormalizedSlateRewardInteractionIPS, "pscore_cascade"),
        }
        kind_class, kind = classes[name]
        estimator = kind_class(len_list=len_list)
        round_rewards = estimator._estimate_round_rewards
    if not core:
        return lambda: float(estimator.estimate_policy_value(**arrays))
    inputs = {
        **arrays,
        "behavior_policy_pscore": arrays[kind],
        "evaluation_policy_pscore": arrays[f"evaluation_policy_{kind}"],
    }
    n_slates = len(np.unique(arrays["slate_id"]))
    return lambda: float(round_rewards(**inputs).sum() / n_slates)


def bench_memory(n_slates: int, len_list: int, obp_slates: int) -> None:
    log = make_log(n_slates, len_list, 0)
    print(f"in memory: {n_slates:,} slates x {len_list} positions = {log.height:,} rows")
    floor, floor_cpu, _ = _timed(
        lambda: log.group_by("slate_id").agg(pl.col("reward").sort_by("position"))
    )
    print(f"grouped sort (the floor): {floor:.2f} s wall, {floor_cpu:.2f} s CPU")
    module = _obp_module()
    sample = log.head(min(obp_slates, n_slates) * len_list)
    scale = n_slates / min(obp_slates, n_slates)
    header = (
        "| estimator | ours s (CPU s) | ÷ grouped sort (wall) | obp s, scaled or (all) "
        "| obp ÷ ours (wall) "
        "| obp ÷ ours (CPU) | obp arithmetic only s | equal |"
    )
    print(header)
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, function in ESTIMATORS.items():
        ours, ours_cpu, value = _timed(lambda f=function: log.select(f()).item())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            on_all = name in _OBP_ON_ALL
            theirs, theirs_cpu, _ = _timed(
                _obp_call(module, name, log if on_all else sample, core=False)
            )
            core, _, core_value = _timed(_obp_call(module, name, log, core=True))
        same = abs(value - core_value) <= 1e-9 * max(1.0, abs(core_value))
        factor = 1.0 if on_all else scale
        print(
            f"| {name} | {ours:.2f} ({ours_cpu:.2f}) | {ours / floor:.2f}× "
            f"| {theirs * factor:.1f}{' (all)' if on_all else ''} "
            f"| {theirs * factor / ours:.0f}× | {theirs_cpu * factor / ours_cpu:.0f}× "
            f"| {core:.2f} | {same} |"
        )
    names = list(ESTIMATORS)
    together, together_cpu, _ = _timed(lambda: log.select(f() for f in ESTIMATORS.values()))
    print(f"all {len(names)} in one select: {together:.2f} s wall, {together_cpu:.2f} s CPU")


def _write_parquet(folder: Path, n_rows: int, len_list: int) -> list[Path]:
    slates_per_file = max(1, _FILE_ROWS // len_list)
    paths, first = [], 0
    total_slates = n_rows // len_list
    while first < total_slates:
        count = min(slates_per_file, total_slates - first)
        path = folder / f"log-{len(paths):04d}.parquet"
        make_log(count, len_list, len(paths) + 1, first_slate=first).write_parquet(path)
        paths.append(path)
        first += count
    return paths


def bench_streaming(
    n_rows: int, len_list: int, em_iterations: int, folder: Path, *, expressions: bool
) -> None:
    start = time.perf_counter()
    _write_parquet(folder, n_rows, len_list)
    print(f"streaming: {n_rows:,} rows written in {time.perf_counter() - start:.1f} s")
    source = str(folder / "*.parquet")
    _reset_peak()
    wall, cpu, table = _timed(
        lambda: cf.estimate(pl.scan_parquet(source), list(ESTIMATORS), n_bootstrap_samples=200)
    )
    print(
        f"estimate(scan_parquet), all {len(ESTIMATORS)} estimators, 200 resamples: "
        f"{wall:.1f} s wall, {cpu:.1f} s CPU, peak {_rss():.2f} GiB"
    )
    print(table)
    if expressions:
        _reset_peak()
        wall, cpu, _ = _timed(
            lambda: (
                pl.scan_parquet(source)
                .select(f() for f in ESTIMATORS.values())
                .collect(engine="streaming")
            )
        )
        print(
            f"the expressions in one select, streaming engine: {wall:.1f} s wall, "
            f"{cpu:.1f} s CPU, peak {_rss():.2f} GiB"
        )
    clicks = pl.scan_parquet(source).select(
        query=pl.col("slate_id") % 1000,
        document="action",
        rank=pl.col("position") + 1,
        click="reward",
    )
    _reset_peak()
    counting, counting_cpu, _ = _timed(lambda: click_counts(clicks).collect(engine="streaming"))
    print(
        f"PBM counting pass: {counting:.1f} s wall, {counting_cpu:.1f} s CPU, peak {_rss():.2f} GiB"
    )
    _reset_peak()
    wall, cpu, model = _timed(lambda: cf.fit_pbm(clicks, n_iterations=em_iterations))
    print(
        f"fit_pbm, {em_iterations} iterations (the counting pass included): {wall:.1f} s wall, "
        f"{cpu:.1f} s CPU, peak {_rss():.2f} GiB"
    )
    # the iterations alone: the same EM on the counted table
    counted = click_counts(clicks).collect(engine="streaming")
    table, _, _ = with_ids(counted, ("query", "document", "rank"))
    values = {
        "attractiveness": model.attractiveness.get_column("alpha"),
        "examination": model.examination.get_column("gamma"),
    }
    wall, cpu, _ = _timed(lambda: iterate(table, values, em_iterations, 0.0))
    print(
        f"EM iterations on the {table.height:,} counted rows: "
        f"{wall / em_iterations * 1000:.0f} ms wall, {cpu / em_iterations * 1000:.0f} ms CPU "
        "per iteration"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--slates", type=int, default=1_000_000)
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--obp-slates", type=int, default=20_000)
    parser.add_argument("--streaming", type=int, default=0, help="rows; 0: in memory only")
    parser.add_argument("--em-iterations", type=int, default=10)
    parser.add_argument(
        "--expressions", action="store_true", help="streaming: also the plain select"
    )
    arguments = parser.parse_args(argv)
    print(f"polars {pl.__version__}, POLARS_MAX_THREADS={os.environ.get('POLARS_MAX_THREADS')}")
    if arguments.streaming:
        with tempfile.TemporaryDirectory() as folder:
            bench_streaming(
                arguments.streaming,
                arguments.positions,
                arguments.em_iterations,
                Path(folder),
                expressions=arguments.expressions,
            )
        return
    bench_memory(arguments.slates, arguments.positions, arguments.obp_slates)


if __name__ == "__main__":
    main()
