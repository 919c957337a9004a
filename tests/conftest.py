"""Shared fixtures: where ../shared lives, and skips when it is absent."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PROJECT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout; a worktree nested one level deeper finds it higher up.
SHARED = next(
    (folder / "shared" for folder in PROJECT.parents if (folder / "shared").is_dir()),
    PROJECT.parent / "shared",
)
TREC_EVAL = SHARED / "trec_eval"


@pytest.fixture(scope="session")
def trec_eval_dir() -> Path:
    """The trec_eval 10.0 conformance files from ../shared/trec_eval."""
    if not (TREC_EVAL / "qrels.test").is_file():
        pytest.skip(f"trec_eval conformance data not found at {TREC_EVAL}")
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
