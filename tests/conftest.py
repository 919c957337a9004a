"""Shared fixtures: where ../shared lives, and skips when it is absent."""

from __future__ import annotations

import os
import sys
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# CI replays the same examples on every run (HYPOTHESIS_PROFILE=ci, set by .ci/run), so a
# landing never depends on luck; elsewhere each run draws new examples and finds more.
settings.register_profile("ci", derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

PROJECT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout; a worktree nested one level deeper finds it higher up.
SHARED = next(
    (folder / "shared" for folder in PROJECT.parents if (folder / "shared").is_dir()),
    PROJECT.parent / "shared",
)
TREC_EVAL_ENV = "RANKMETRICS_TREC_EVAL_DATA"
"""The environment variable naming trec_eval's test folder (qrels.test, results.test, out.test*)."""
TREC_EVAL = Path(os.environ.get(TREC_EVAL_ENV) or SHARED / "trec_eval").expanduser()
"""trec_eval 10.0's test data: ``$RANKMETRICS_TREC_EVAL_DATA``, else ../shared/trec_eval."""


def trec_eval_data_missing() -> str | None:
    """Why the trec_eval test data cannot be used (a skip reason), or None."""
    if (TREC_EVAL / "qrels.test").is_file():
        return None
    return (
        f"trec_eval's test data (qrels.test, results.test, out.test*) not found at {TREC_EVAL}: "
        f"set {TREC_EVAL_ENV} to the folder holding it (trec_eval 10.0's test/ folder)"
    )


@pytest.fixture(scope="session")
def trec_eval_dir() -> Path:
    """The trec_eval 10.0 conformance files: ``$RANKMETRICS_TREC_EVAL_DATA``, or ../shared/."""
    reason = trec_eval_data_missing()
    if reason is not None:
        pytest.skip(reason)
    return TREC_EVAL


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One light local[2] session for every test that needs Spark; stopped at the end."""
    from polars_rankmetrics.spark import spark_unavailable

    reason = spark_unavailable()
    if reason is not None:
        pytest.skip(reason)
    from polars_rankmetrics.spark import local_session

    # The workers run the virtual environment's Python, which has polars.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable

    session = local_session(2, shuffle_partitions=4)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


# --- The seeded sample of the parity sweeps (``@pytest.mark.sweep``; see tests/sweep.py) ---


def _sweep_seed(config: pytest.Config) -> int | None:
    from tests.sweep import ENV, parse_sweep

    try:
        return parse_sweep(os.environ.get(ENV))
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None


def _sweep_key(value: object) -> Hashable:
    """A hashable stand-in for a parameter's value (its repr when it is not hashable)."""
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value  # type: ignore[return-value]


@pytest.hookimpl(tryfirst=True)  # before -k/-m, so a sample never depends on them
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the seeded sample of every test marked ``sweep``; report the rest deselected."""
    from tests.sweep import pick_cases

    seed = _sweep_seed(config)
    if seed is None:
        return
    groups: dict[tuple[str, str], list[int]] = {}
    for position, item in enumerate(items):
        if item.get_closest_marker("sweep") is not None and hasattr(item, "callspec"):
            key = (item.nodeid.split("[", 1)[0], getattr(item, "originalname", item.name))
            groups.setdefault(key, []).append(position)
    dropped: set[int] = set()
    for (nodeid, _), positions in groups.items():
        marker = items[positions[0]].get_closest_marker("sweep")
        assert marker is not None
        by, keep = marker.kwargs.get("by", ()), marker.kwargs.get("keep", 1)
        cases = [
            {name: _sweep_key(value) for name, value in items[p].callspec.params.items()}  # type: ignore[attr-defined]
            for p in positions
        ]
        try:
            kept = pick_cases(cases, by=by, keep=keep, seed=seed, salt=nodeid)
        except ValueError as error:
            raise pytest.UsageError(f"{nodeid}: {error}") from None
        kept_positions = {positions[i] for i in kept}
        dropped.update(p for p in positions if p not in kept_positions)
    if dropped:
        config.hook.pytest_deselected(items=[items[p] for p in sorted(dropped)])
        items[:] = [item for p, item in enumerate(items) if p not in dropped]


def pytest_report_header(config: pytest.Config) -> str:
    """Which sample of the parity sweeps runs, and how to run another or all."""
    from tests.sweep import ENV

    seed = _sweep_seed(config)
    if seed is None:
        return f"sweep: every case of the parity sweeps ({ENV}=all)"
    return (
        f"sweep: the seeded sample {seed} of the parity sweeps (marked sweep); "
        f"{ENV}=all runs every case, {ENV}=<integer> another sample"
    )
