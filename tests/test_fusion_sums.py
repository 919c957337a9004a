"""Fused sums add each document's terms in run order, at any thread count.

A float sum depends on the order of its terms; polars' streaming group-by adds a
group's rows in an order that varies with its threads and morsels. The terms here
are chosen so that the exact sum of each document's three terms lies on a boundary
of the rounding to 12 significant digits, and that adding them in any other order
gives another rounded score. The fusion runs in a child process with 4 threads and small
morsels (several partial sums per group), and every fused score must be the Python
sum of its terms in run order, ``(a + b) + c``, rounded.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CHILD = r"""
import random
import sys

import polars as pl

import polars_rankmetrics as rm

method, kind = sys.argv[1], sys.argv[2]
rng = random.Random(7)


def terms():
    # three terms whose sum rounds otherwise in any order but run order
    while True:
        target = (rng.randint(10**11, 10**12 - 1) + 0.5) * 1e-12  # a rounding boundary
        a = rng.random() * target
        b = rng.random() * (target - a)
        c = target - a - b
        run_order = f"{(a + b) + c:.12g}"
        if f"{(a + c) + b:.12g}" != run_order and f"{a + (b + c):.12g}" != run_order:
            return a, b, c


rows, expected = [], []
for q in range(10):
    for d in range(500):
        a, b, c = terms()
        for system, term in enumerate((a, b, c)):
            rows.append((f"s{system}", f"q{q}", f"d{d}", term))
        expected.append((f"q{q}", f"d{d}", (a + b) + c))  # run order
long = pl.DataFrame(rows, schema=["system", "query", "doc", "score"], orient="row")
runs = long if kind == "eager" else long.lazy()
weights = [1.0, 1.0, 1.0] if method == "wsum" else None
fused = rm.fuse(runs, method=method, norm=None, weights=weights)
fused = fused.collect() if isinstance(fused, pl.LazyFrame) else fused
want = pl.DataFrame(expected, schema=["query", "doc", "want"], orient="row")
joined = fused.join(want.with_columns(pl.col("want").round_sig_figs(12)), on=["query", "doc"])
assert joined.height == len(expected), joined.height
print((joined["score"] != joined["want"]).sum())
"""


@pytest.mark.parametrize("kind", ["eager", "lazy"])
@pytest.mark.parametrize("method", ["sum", "wsum"])
def test_sums_in_run_order_at_any_thread_count(method: str, kind: str) -> None:
    env = dict(os.environ, POLARS_MAX_THREADS="4", POLARS_IDEAL_MORSEL_SIZE="500")
    root = Path(__file__).resolve().parent.parent
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", CHILD, method, kind],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "0"  # documents whose score is not the run-order sum
