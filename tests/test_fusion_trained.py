"""The trained fusion methods against ranx: its *_train estimates, then ranx.fuse."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from polars_rankmetrics.fusion import fuse
from tests.fusion_data import assert_same_fusion, random_qrels, random_runs, ranx_frame

ranx = pytest.importorskip("ranx")
from ranx import fusion as ranx_fusion  # noqa: E402
from ranx.normalization import borda_norm, norm_switch  # noqa: E402

Nested = dict[str, dict[str, float]]

# ranx's numba code warns about its own casts.
pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    # Training runs up to depth 1,200 (beyond BayesFuse's last segment), test runs of
    # other depths (at most 1,000: beyond, ranx's BayesFuse reads past its array) and
    # other queries.
    train = random_runs(3, n_queries=40, depths=(30, 60, 1200), pool=1300)
    test = random_runs(5, n_queries=60, depths=(25, 80, 300), pool=1300)
    test = [{f"t{q}": docs for q, docs in run.items()} for run in test]
    qrels = random_qrels(9, list(train[0]), pool=1300)
    return {
        "train": train,
        "test": test,
        "qrels": qrels,
        "ranx_qrels": ranx.Qrels(qrels),
        "ranx_train": [ranx.Run(r, name=f"s{i}") for i, r in enumerate(train)],
        "ranx_test": [ranx.Run(r, name=f"s{i}") for i, r in enumerate(test)],
    }


def _normalised(runs: list[Any], norm: str | None) -> list[Any]:
    if norm is None:
        return runs
    if norm == "borda":
        return list(borda_norm(runs))
    return [norm_switch(norm)(run) for run in runs]


def _ranx_params(method: str, qrels: Any, runs: list[Any], **options: Any) -> dict[str, Any]:
    if method == "probfuse":
        return {"probs": ranx_fusion.probfuse_train(qrels, runs, options["n_segments"])}
    if method == "slidefuse":
        return {"probs": ranx_fusion.slidefuse_train(qrels, runs), "w": options["w"]}
    trainer = getattr(ranx_fusion, f"{method}_train")
    name = {"bayesfuse": "log_odds", "mapfuse": "map_scores"}.get(method, "probs")
    return {name: trainer(qrels, runs)}


CASES = [
    ("probfuse", {"n_segments": 7}, "min-max"),
    ("probfuse", {"n_segments": 1}, None),
    ("probfuse", {"n_segments": 7}, "zmuv"),
    ("probfuse", {"n_segments": 7}, "rank"),
    ("segfuse", {}, "min-max"),
    ("segfuse", {}, None),
    ("segfuse", {}, "zmuv"),
    ("slidefuse", {"w": 3}, "min-max"),
    ("slidefuse", {"w": 0}, None),
    ("bayesfuse", {}, "min-max"),
    ("bayesfuse", {}, "min-max-inverted"),
    ("mapfuse", {}, "min-max"),
    ("mapfuse", {}, None),
    ("posfuse", {}, "min-max"),
    ("posfuse", {}, "sum"),
]


# The normalisation reaches the trained methods through the ranks (and SegFuse's scores).
# Every method runs; the seeded sample takes one case of each, rotating over the options
# and norms (tests/sweep.py; RANKMETRICS_SWEEP=all runs all 15).
@pytest.mark.sweep(by="method", keep=1)
@pytest.mark.parametrize(("method", "options", "norm"), CASES)
def test_trained_methods_match_ranx(
    data: dict[str, Any], method: str, options: dict[str, int], norm: str | None
) -> None:
    qrels = data["ranx_qrels"]
    train = _normalised(data["ranx_train"], norm)
    test = data["ranx_test"]
    params = _ranx_params(method, qrels, train, **options)
    theirs = ranx_frame(ranx.fuse(test, norm=norm, method=method, params=params))
    ours = fuse(
        data["test"],
        method=method,  # type: ignore[arg-type]
        norm=norm,
        train_qrels=data["qrels"],
        train_runs=data["train"],
        **options,
    )
    assert isinstance(ours, pl.DataFrame)
    assert_same_fusion(ours, theirs)
