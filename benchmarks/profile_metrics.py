"""``python -m benchmarks.profile_metrics``: where ``metrics()``' time goes, step by step.

The six benchmark measures (``benchmarks.contenders.MEASURES``) in one
``group_by("query").agg(rm.metrics(...))`` are cut into the steps of their
plan, each timed as its own ``group_by`` over the same frame (best of
``--repeat``, the steps taken in turn; CPU = user + system seconds of every
thread of this process, the work done whatever the load):

- the grouped sort (the floor of every ratio);
- the labels' sort code gathered per group without sorting, then the sort stage
  itself (the code sorted by the score, NaN as null; Int8 labels' codes stay Int8);
- the staged frame: the sorted list wrapped in a list of one and one
  ``list.eval`` holding a single constant aggregate (the fixed cost of staging);
- the other per-list aggregates added one at a time, in the plan's order (each
  row holds all the aggregates above it: its difference from the row above is
  that aggregate's cost among the others), then the whole expression with the
  measures' ``struct.eval``;
- the fixed costs that every call pays whatever the frame (:func:`fixed_costs`):
  building ``rm.metrics(...)`` in Python, and planning and starting the whole
  expression (timed on 50 rows).

The steps are taken from the serialised expression of ``rm.metrics`` (its
``list.eval`` and the aggregates in it), so they are the code that runs, not a
copy of it. Per-list fixed costs show up as the difference between two sizes
with the same number of rows (100,000 lists of 100 and 1,000,000 lists of 10).

Examples
--------
::

    python -m benchmarks.profile_metrics --sizes 100000x100 1000000x10 --threads 1
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_NAN = {"Literal": {"Dyn": {"Float": None}}}
"""A NaN literal as polars writes it in JSON (``null``), which it cannot read back."""
_ZERO = {"Literal": {"Dyn": {"Float": 0.0}}}
_ZERO_BY_ZERO = {"BinaryExpr": {"left": _ZERO, "op": "TrueDivide", "right": _ZERO}}


def _readable(tree: Any) -> Any:
    """``tree`` with each NaN literal written as ``0.0 / 0.0`` (NaN, folded by the optimiser)."""
    if tree == _NAN:
        return copy.deepcopy(_ZERO_BY_ZERO)
    if isinstance(tree, dict):
        return {key: _readable(value) for key, value in tree.items()}
    if isinstance(tree, list):
        return [_readable(value) for value in tree]
    return tree


def _parts(measures: list[str]) -> tuple[Any, Any, dict[str, Any], list[Any]]:
    """The JSON of the whole expression, its sort stage, its ``list.eval``, its aggregates.

    The benchmark's labels are integers (Int8): the aggregates are built in their
    integer forms (``INTEGER_LABELS``), which the relevance type picks in ``metrics()``.
    Where aggregates share the hits (``engine/hits.py``), the shared struct is one
    aggregate and the fields read from it come with the measures' ``struct.eval``.
    """
    import polars_rankmetrics as rm
    import polars_rankmetrics.engine.staged as staged_module

    staged_module.INTEGER_LABELS = True
    try:
        text = rm.metrics("relevance", measures, by="score").meta.serialize(format="json")
    finally:
        staged_module.INTEGER_LABELS = None
    whole = _readable(json.loads(text))
    get = copy.deepcopy(whole["StructEval"]["expr"]["Function"])
    staged = get["input"][0]["Eval"]
    sort_stage = staged["expr"]["Agg"]["Implode"]["input"]["Agg"]["Implode"]["input"]
    evaluation = staged["evaluation"]
    if "StructEval" in evaluation:  # the shared hits: `as_struct(...).struct.with_fields(...)`
        staged["evaluation"] = evaluation = evaluation["StructEval"]["expr"]
    aggregates = evaluation["Function"]["input"]
    return whole, sort_stage, get, aggregates


def _expr(tree: Any) -> Any:
    import polars as pl

    return pl.Expr.deserialize(io.StringIO(json.dumps(tree)), format="json")


def _with_aggregates(get: dict[str, Any], aggregates: list[Any]) -> Any:
    """``list.eval(as_struct(aggregates)).list.get(0)``: the staged frame with these only."""
    tree = {"Function": copy.deepcopy(get)}
    tree["Function"]["input"][0]["Eval"]["evaluation"]["Function"]["input"] = aggregates
    return _expr(tree)


def _label(aggregate: Any) -> str:
    text = str(_expr(aggregate))
    return text if len(text) <= 70 else text[:67] + "..."


def steps(measures: list[str]) -> list[tuple[str, Any]]:
    """``(label, expression)`` of each step, in the order of the plan."""
    import polars as pl

    whole, sort_stage, get, aggregates = _parts(measures)
    # Integer labels' codes are sorted in their own type, not cast (engine/narrow.py).
    code = sort_stage.get("Cast", {"expr": sort_stage})["expr"]["SortBy"]["expr"]
    # `list.len() * 0 + 10`: P@10's denominator, no list pass
    constant = next(part for part in aggregates if "_rankmetrics_constant" in json.dumps(part))
    result = [
        (
            "grouped sort (floor)",
            pl.col("relevance").sort_by("score", descending=True, nulls_last=True),
        ),
        ("sort code per group, unsorted", _expr(code)),
        ("sort stage (code sorted by score)", _expr(sort_stage)),
        ("staged frame, one constant aggregate", _with_aggregates(get, [constant])),
    ]
    taken = [constant]
    for index, aggregate in enumerate(aggregates):
        if aggregate is not constant:
            taken.append(aggregate)  # cumulative: interactions count where they appear
            label = f"+ aggregate {index}: {_label(aggregate)}"
            result.append((label, _with_aggregates(get, list(taken))))
    result.append(("metrics(), 6 measures (with struct.eval)", _expr(whole)))
    return result


def profile(glob: str, repeat: int, measures: list[str]) -> list[tuple[str, float, float]]:
    """``(label, best CPU s, best wall s)`` of each step on the frame of ``glob``."""
    import polars as pl

    import polars_rankmetrics as rm

    frame = pl.read_parquet(glob, columns=["query", "score", "relevance"])
    # The rebuilt expression gives metrics()' values, bit for bit (first 200k rows).
    head = frame.head(200_000).lazy().group_by("query")
    rebuilt = head.agg(steps(measures)[-1][1].alias("m")).sort("query").collect()
    original = head.agg(rm.metrics("relevance", measures, by="score").alias("m"))
    assert rebuilt.equals(original.sort("query").collect()), "rebuilt expression differs"
    queries = [
        (label, frame.lazy().group_by("query").agg(expression.alias("x")))
        for label, expression in steps(measures)
    ]
    for _, query in queries:
        query.collect()  # warm-up
    cpu = [float("inf")] * len(queries)
    wall = [float("inf")] * len(queries)
    for _ in range(repeat):  # round robin: a change of load hits every step alike
        for index, (_, query) in enumerate(queries):
            started, started_cpu = time.perf_counter(), time.process_time()
            query.collect()
            wall[index] = min(wall[index], time.perf_counter() - started)
            cpu[index] = min(cpu[index], time.process_time() - started_cpu)
    rows = [(label, cpu[i], wall[i]) for i, (label, _) in enumerate(queries)]
    for label, best_cpu, best_wall in rows:
        print(f"  {label}: CPU {best_cpu:.3f} s, wall {best_wall:.3f} s", flush=True)
    return rows


def fixed_costs(glob: str, repeat: int, measures: list[str]) -> list[tuple[str, float]]:
    """What every call pays whatever the size: building the expression, planning it.

    ``benchmarks.ratios`` times ``rm.metrics(...)`` built and collected each time;
    the plan's fixed part is measured as the whole expression on the first 50 rows
    (a few queries), where the data costs next to nothing. Best CPU s of ``repeat * 5``.
    """
    import polars as pl

    import polars_rankmetrics as rm

    tiny = pl.read_parquet(glob, columns=["query", "score", "relevance"]).head(50).lazy()
    built = rm.metrics("relevance", measures, by="score")
    query = tiny.group_by("query").agg(built.alias("m"))
    timed: list[tuple[str, Callable[[], object]]] = [
        (
            "fixed: building `rm.metrics(...)` (Python)",
            lambda: rm.metrics("relevance", measures, by="score"),
        ),
        ("fixed: planning and starting it (the whole expression, 50 rows)", query.collect),
    ]
    best = [float("inf")] * len(timed)
    for _ in range(repeat * 5):
        for index, (_, step) in enumerate(timed):
            started = time.process_time()
            step()
            best[index] = min(best[index], time.process_time() - started)
    return [(label, best[index]) for index, (label, _) in enumerate(timed)]


def main() -> None:
    """Parse the arguments, set the thread count, print one table per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["100000x100", "1000000x10"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).parent / "data")
    args = parser.parse_args()
    os.environ["POLARS_MAX_THREADS"] = str(args.threads)  # before polars is imported

    import polars as pl

    from benchmarks.contenders import MEASURES
    from benchmarks.data import parse_size, write_dataset

    print(
        f"polars {pl.__version__}, {pl.thread_pool_size()} thread(s), "
        f"load average {os.getloadavg()[0]:.1f}; best of {args.repeat}"
    )
    for size in args.sizes:
        n_queries, docs = parse_size(size)
        glob = str(write_dataset(args.data_dir, n_queries, docs))
        print(f"{n_queries:,} queries x {docs} rows:")
        rows = profile(glob, args.repeat, list(MEASURES))
        floor = rows[0][1]
        print("\n| step | CPU s | x floor | over the row above |\n|---|---:|---:|---:|")
        for index, (label, cpu, _) in enumerate(rows):
            extra = f"{cpu - rows[index - 1][1]:+.3f}" if index > 2 else ""
            print(f"| {label} | {cpu:.3f} | {cpu / floor:.2f} | {extra} |")
        for label, cpu in fixed_costs(glob, args.repeat, list(MEASURES)):
            print(f"| {label} | {cpu:.4f} | {cpu / floor:.2f} | |")
        print(f"\nload average {os.getloadavg()[0]:.1f} at the end\n", flush=True)


if __name__ == "__main__":
    main()
