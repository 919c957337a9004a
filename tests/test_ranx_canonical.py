"""``tests.ranx_canonical`` builds the same ranx objects as ``ranx.Qrels`` / ``ranx.Run``.

The builders store doc ids at one width so that numba compiles ranx once for the
whole suite; here, on ids of several lengths (and non-ASCII ones), the objects they
build equal ranx's own, entry by entry and in order, and ``ranx.evaluate`` gives
identical values on both.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from tests.ranx_canonical import WIDTH, as_ranx_qrels, as_ranx_run

ranx = pytest.importorskip("ranx")

# ids of 2 to 4 characters: the widths test_ranx_bulk compiles ranx for anyway.
DOCS = [f"d{d}" for d in range(60)] + ["é", "d€", "d𝄞"]


def _collection(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(30):
        docs = rng.sample(DOCS, rng.randrange(1, 40))
        run[f"q{q}"] = {d: round(rng.random(), 2) for d in docs}  # ties included
        qrels[f"q{q}"] = {d: rng.randrange(0, 4) for d in rng.sample(DOCS, 10)}
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1])
def test_same_objects_and_values_as_ranx(seed: int) -> None:
    qrels, run = _collection(seed)
    ours_qrels, ours_run = as_ranx_qrels(qrels), as_ranx_run(run, name="r")
    theirs_qrels, theirs_run = ranx.Qrels(qrels), ranx.Run(run, name="r")
    assert max(len(d) for d in DOCS) < WIDTH  # the ids are stored wider than ranx stores them
    assert ours_run.name == "r" and ours_run.sorted and ours_qrels.sorted
    for ours, theirs in [(ours_qrels, theirs_qrels), (ours_run, theirs_run)]:
        assert list(ours.to_dict().items()) == list(theirs.to_dict().items())
        for query, docs in theirs.to_dict().items():
            assert list(ours.to_dict()[query].items()) == list(docs.items())
    metrics = ["map", "ndcg@10", "mrr", "precision@5", "recall@20", "bpref", "rbp.8"]
    with warnings.catch_warnings():  # numba's type-safety chatter inside ranx
        warnings.simplefilter("ignore")
        ours_values = ranx.evaluate(ours_qrels, ours_run, metrics, return_mean=False)
        theirs_values = ranx.evaluate(theirs_qrels, theirs_run, metrics, return_mean=False)
    for metric in metrics:
        # NaN where a query has no relevant document: equal where ranx's is
        np.testing.assert_array_equal(ours_values[metric], theirs_values[metric], strict=True)
