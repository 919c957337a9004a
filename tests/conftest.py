"""Shared fixtures: where ../shared lives, and skips when it is absent."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
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
