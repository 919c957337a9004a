"""Statistics that read fields beside staged ones: the same values as the plain path, bit for bit.

One statistic that reads a field (bpref, infAP, unj read the raw labels) no
longer puts the others on the list of fields: :func:`.entry._split` computes it
there and the rest on the fast paths. The reference is :func:`.entry.plain`
(every statistic computed whole on one sorted list), via ``FAST_PATHS = False``.
"""

from __future__ import annotations

import random

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics.engine import entry

MEASURES = ["P@10", "bpref", "AP", "nDCG@10", "infAP", "R@100", "RR", "ndcg"]


def _frame(seed: int) -> pl.DataFrame:
    rng = random.Random(seed)
    rows = [
        (
            q,
            f"d{d}",
            rng.choice([None, float("nan"), 0.5, 1.0, 2.0, rng.random()]),
            rng.choice([None, -1, 0, 0, 1, 2, 3]),
        )
        for q in range(30)
        for d in range(rng.randint(1, 40))
    ]
    return pl.DataFrame(rows, schema=["query", "doc", "score", "relevance"], orient="row")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_split_equals_the_plain_path(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _frame(seed)
    calls: list[int] = []
    original = entry._split

    def counted(*args: object) -> pl.Expr:
        calls.append(1)
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(entry, "_split", counted)

    def values() -> pl.DataFrame:
        query = frame.group_by("query").agg(rm.metrics("relevance", MEASURES, by=["score", "doc"]))
        return query.sort("query").unnest("relevance")

    fast = values()
    assert calls, "the split path was not taken"
    monkeypatch.setattr(entry, "FAST_PATHS", False)
    assert_frame_equal(fast, values(), check_exact=True)  # same bits, same column order
    assert fast.columns[1:] == MEASURES
