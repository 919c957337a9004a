"""``python -m benchmarks.ratios``: every ratio of the performance issue (31), in one run.

Each ratio is two timings taken in the same run, interleaved (A, B, A, B, ...),
best of ``--repeat``, so that load on a shared machine moves both alike:

- ``rankmetrics trec-eval`` against trec_eval 10 on a generated run of 170k lines
  and 50 topics, default measures and ``-q -m all_trec`` (trec_eval only where
  ``TREC_EVAL`` names a binary; trec_eval is not shipped here), and on a run of
  50k lines against ``python -c "import polars"`` (the difference);
- ``import polars_rankmetrics`` against ``import polars`` (the difference);
- ``rm.evaluate`` from TREC files (read + evaluate, six measures) against
  pytrec_eval (parse into its dicts + evaluate), at 10k, 50k and 170k lines;
- ranx ``Qrels``/``Run`` objects into ``rm.evaluate`` against ranx's own
  ``evaluate`` of the same four measures (both warmed up: compilation excluded);
- alpha-nDCG@20 (greedy ideal) against the grouped sort of the subtopic lists, at
  10k and 100k queries of 50 documents;
- ``metrics()`` (six measures) against the grouped sort of the labels at 1 and 2
  threads, queries of 100 and of 10 rows (each in a fresh process,
  ``benchmarks.scaling``'s workers).

It checks first that the CLI's output equals trec_eval's (when a binary is
given) and that the means of ``rm.evaluate`` equal pytrec_eval's. ``--markdown``
prints the table for the README.

Examples
--------
::

    TREC_EVAL=/path/to/trec_eval python -m benchmarks.ratios
    python -m benchmarks.ratios --quick     # smaller sizes, fewer repeats
"""

from __future__ import annotations

import argparse
import compileall
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchmarks.bench_trec import write_files
from benchmarks.data import write_dataset
from benchmarks.scaling import run_one

SIX = ["map", "P_10", "recall_100", "ndcg_cut_10", "recip_rank", "Rprec"]
"""The six measures of ``rm.evaluate`` against pytrec_eval (trec_eval names)."""
RANX_MEASURES = {"map": "AP", "ndcg@10": "nDCG@10", "precision@10": "P@10", "recall@100": "R@100"}
"""Ranx's names and ours of the four measures of the ranx comparison."""

Row = dict[str, Any]


def interleaved(steps: Sequence[Callable[[], object]], repeat: int) -> list[float]:
    """The best wall time of each step, run in turn ``repeat`` times."""
    best = [math.inf] * len(steps)
    for _ in range(repeat):
        for index, step in enumerate(steps):
            started = time.perf_counter()
            step()
            best[index] = min(best[index], time.perf_counter() - started)
    return best


def _process(command: list[str]) -> Callable[[], object]:
    def step() -> object:
        return subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

    return step


def _row(what: str, ours: float, theirs: float | None, target: str, ratio: str) -> Row:
    value: float | None = None
    if theirs is not None:
        value = ours - theirs if ratio == "diff" else ours / theirs
    return {
        "what": what,
        "ours s": ours,
        "other s": theirs,
        "ratio": value,
        "kind": ratio,
        "target": target,
    }


# ------------------------------------------------------------------ the CLI


def _trec_files(folder: Path, topics: int, docs: int) -> tuple[Path, Path]:
    sub = folder / f"{topics}x{docs}"
    sub.mkdir(parents=True, exist_ok=True)
    run, qrels = write_files(sub, topics, docs)
    return qrels, run


def cli_rows(folder: Path, repeat: int, trec_eval: str | None) -> list[Row]:
    """The CLI against trec_eval (170k lines) and against ``import polars`` (50k lines).

    The package's bytecode is compiled first, as an installation compiles it
    (with ``PYTHONDONTWRITEBYTECODE`` set, a checkout would otherwise compile every
    module at every start).
    """
    import polars_rankmetrics

    compileall.compile_dir(str(Path(polars_rankmetrics.__file__).parent), quiet=1)
    python = sys.executable
    qrels, run = _trec_files(folder, 50, 3400)
    small_qrels, small_run = _trec_files(folder, 50, 1000)
    ours = [python, "-m", "polars_rankmetrics.cli", "trec-eval"]
    rows = []
    for label, options, target in (
        ("CLI, default measures, 170k lines", [], "<= 1.5x"),
        ("CLI, -q -m all_trec, 170k lines", ["-q", "-m", "all_trec"], "<= 2x"),
    ):
        mine = [*ours, *options, str(qrels), str(run)]
        if trec_eval:
            theirs = [trec_eval, *options, str(qrels), str(run)]
            same = subprocess.run(mine, capture_output=True, check=True).stdout
            assert same == subprocess.run(theirs, capture_output=True, check=True).stdout, label
            a, b = interleaved([_process(mine), _process(theirs)], repeat)
            rows.append(_row(label + " vs trec_eval 10", a, b, target, "x"))
        else:
            (a,) = interleaved([_process(mine)], repeat)
            rows.append(_row(label + " (no TREC_EVAL binary)", a, None, target, "x"))
    imports = [python, "-c", "import polars"]
    a, b = interleaved(
        [_process([*ours, str(small_qrels), str(small_run)]), _process(imports)], repeat
    )
    rows.append(
        _row(
            'CLI, default measures, 50k lines, minus `python -c "import polars"`',
            a,
            b,
            "<= +0.1 s",
            "diff",
        )
    )
    a, b = interleaved(
        [_process([python, "-c", "import polars_rankmetrics"]), _process(imports)], repeat * 2
    )
    rows.append(
        _row("`import polars_rankmetrics` minus `import polars`", a, b, "<= +0.05 s", "diff")
    )
    return rows


# --------------------------------------------------------- evaluate vs peers


def _pytrec(qrels_path: Path, run_path: Path) -> dict[str, float]:
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open() as lines:
        for line in lines:
            query, _, doc, relevance = line.split()
            qrels.setdefault(query, {})[doc] = int(relevance)
    run: dict[str, dict[str, float]] = {}
    with run_path.open() as lines:
        for line in lines:
            query, _, doc, _, score, _ = line.split()[:6]
            run.setdefault(query, {})[doc] = float(score)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(SIX)).evaluate(run)
    return {m: sum(v[m] for v in per_query.values()) / len(per_query) for m in SIX}


def _ours(qrels_path: Path, run_path: Path) -> dict[str, float]:
    import polars_rankmetrics as rm

    result = rm.evaluate(rm.read_trec_qrels(qrels_path), rm.read_trec_run(run_path), SIX)
    return dict(result.aggregate.row(0, named=True))


def evaluate_rows(folder: Path, repeat: int, sizes: Sequence[tuple[int, int]]) -> list[Row]:
    """``rm.evaluate`` from TREC files against pytrec_eval, end to end."""
    rows = []
    for topics, docs in sizes:
        qrels, run = _trec_files(folder, topics, docs)
        with run.open("rb") as text:
            lines = sum(1 for _ in text)
        mine, theirs = _ours(qrels, run), _pytrec(qrels, run)
        for name in SIX:
            assert math.isclose(mine[name], theirs[name], rel_tol=1e-9), name
        a, b = interleaved(
            [lambda q=qrels, r=run: _ours(q, r), lambda q=qrels, r=run: _pytrec(q, r)], repeat
        )
        rows.append(
            _row(
                f"rm.evaluate from TREC files, 6 measures, {lines:,} lines vs pytrec_eval",
                a,
                b,
                "< 1x",
                "x",
            )
        )
    return rows


def ranx_rows(folder: Path, repeat: int) -> list[Row]:
    """ranx objects into ``rm.evaluate`` against ranx's ``evaluate`` (170k lines)."""
    import ranx

    import polars_rankmetrics as rm

    qrels_path, run_path = _trec_files(folder, 50, 3400)
    run_frame = rm.read_trec_run(run_path)
    qrels_frame = rm.read_trec_qrels(qrels_path)
    run = ranx.Run.from_df(run_frame.select(q_id="query", doc_id="doc", score="score").to_pandas())
    qrels = ranx.Qrels.from_df(
        qrels_frame.select(q_id="query", doc_id="doc", score="relevance").to_pandas()
    )
    theirs_names, ours_names = list(RANX_MEASURES), list(RANX_MEASURES.values())

    def mine() -> object:
        return rm.evaluate(qrels, run, ours_names)

    def theirs() -> object:
        return ranx.evaluate(qrels, run, theirs_names)

    mine(), theirs()  # compile both (ranx's numba functions, our bulk reader)
    a, b = interleaved([mine, theirs], repeat)
    return [
        _row(
            f"ranx Qrels/Run into rm.evaluate, 4 measures, {run_frame.height:,} lines "
            "vs ranx.evaluate",
            a,
            b,
            "<= 1x",
            "x",
        )
    ]


# ---------------------------------------------------------------- diversity


def diversity_rows(repeat: int, query_counts: Sequence[int]) -> list[Row]:
    """alpha-nDCG@20 against the grouped sort of the subtopic lists (50 documents a query)."""
    import polars_rankmetrics as rm

    rows = []
    for n_queries in query_counts:
        rng = np.random.default_rng(0)
        n = n_queries * 50
        frame = pl.DataFrame(
            {
                "query": np.repeat(np.arange(n_queries), 50),
                "score": rng.random(n),
                "relevance": rng.choice([0, 0, 0, 1, 2, 3], size=n),
            }
        ).with_columns(subtopics=pl.int_ranges(1, pl.col("relevance").cast(pl.Int64) + 1))
        lazy = frame.lazy()
        floor = lazy.group_by("query").agg(pl.col("subtopics").sort_by("score", descending=True))
        alpha = lazy.group_by("query").agg(rm.alpha_ndcg_at_k("subtopics", 20, by="score"))
        a, b = interleaved([alpha.collect, floor.collect], repeat)
        rows.append(
            _row(f"alpha-nDCG@20, {n_queries:,} queries x 50 vs grouped sort", a, b, "<= 3x", "x")
        )
    return rows


# ------------------------------------------------------------------ metrics()


def metrics_rows(folder: Path, repeat: int, sizes: Sequence[tuple[int, int]]) -> list[Row]:
    """``metrics()`` (six measures) against the grouped sort, 1 and 2 threads, fresh processes."""
    rows = []
    for queries, docs in sizes:
        files = str(write_dataset(folder / "frames", queries, docs))
        for threads in (1, 2):
            best = {"grouped_sort": math.inf, "metrics": math.inf}
            for _ in range(2):  # two rounds of fresh processes, alternated
                for name in best:
                    result = run_one(name, files, threads, repeat)
                    best[name] = min(best[name], min(result["wall"]))
            label = (
                f"metrics(), 6 measures, {queries:,} x {docs} rows, {threads} thread(s) "
                "vs grouped sort"
            )
            rows.append(_row(label, best["metrics"], best["grouped_sort"], "<= 1.3x", "x"))
    return rows


# -------------------------------------------------------------------- output


def markdown(rows: list[Row]) -> str:
    lines = ["| what | ours s | other s | ratio | target |", "|---|---:|---:|---:|---|"]
    for row in rows:
        other = "" if row["other s"] is None else f"{row['other s']:.3f}"
        if row["ratio"] is None:
            ratio = ""
        elif row["kind"] == "diff":
            ratio = f"{row['ratio']:+.3f} s"
        else:
            ratio = f"{row['ratio']:.2f}x"
        lines.append(
            f"| {row['what']} | {row['ours s']:.3f} | {other} | {ratio} | {row['target']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.ratios", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs of each timing (best kept)")
    parser.add_argument("--quick", action="store_true", help="smaller sizes and 2 repeats")
    parser.add_argument(
        "--only", nargs="+", choices=["cli", "evaluate", "ranx", "diversity", "metrics"]
    )
    parser.add_argument("--data-dir", type=Path, default=None, help="where to keep the data")
    args = parser.parse_args(argv)
    repeat = 2 if args.quick else args.repeat
    trec_eval = os.environ.get("TREC_EVAL")
    parts = args.only or ["cli", "evaluate", "ranx", "diversity", "metrics"]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.data_dir or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        print(
            f"python {platform.python_version()}, polars {pl.__version__}, {os.cpu_count()} cores, "
            f"load average {os.getloadavg()[0]:.1f} at the start; best of {repeat}, interleaved; "
            f"trec_eval: {trec_eval or 'none (set TREC_EVAL)'}",
            flush=True,
        )
        rows: list[Row] = []
        if "cli" in parts:
            rows += cli_rows(folder, repeat, trec_eval)
        if "evaluate" in parts:
            sizes = [(100, 100), (500, 100)] if args.quick else [(100, 100), (500, 100), (50, 3400)]
            rows += evaluate_rows(folder, repeat, sizes)
        if "ranx" in parts:
            rows += ranx_rows(folder, repeat)
        if "diversity" in parts:
            rows += diversity_rows(repeat, [10_000] if args.quick else [10_000, 100_000])
        if "metrics" in parts:
            sizes = [(1_000, 100), (10_000, 10)] if args.quick else [(10_000, 100), (100_000, 10)]
            rows += metrics_rows(folder, repeat, sizes)
    print(markdown(rows))
    print(
        f"\n{time.perf_counter() - started:.0f} s in all; "
        f"load average {os.getloadavg()[0]:.1f} at the end"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
