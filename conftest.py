"""Spark set-up for the whole test run (doctests included).

- The Spark workers must run this interpreter, the virtual environment's, which
  has polars and this package: set ``PYSPARK_PYTHON`` before any session starts.
- Skip the doctests of polars_rankmetrics.spark when pyspark or Java is missing.
  CI installs both (``.ci/run``); a checkout without them still passes.
- Doctests see ``pl`` (polars) and ``rm`` (polars_rankmetrics), as polars' own
  docstring examples see ``pl``, so that examples need no import lines.
- numba, which compiles ranx (an oracle of many tests) on its first use in a fresh
  environment, compiles it at optimisation level 1 (``NUMBA_OPT=1``, not 3) into
  this checkout's ``.numba_cache/``: about a fifth less compile time for the same
  semantics (no fast-math at any level), and a cache of its own, so that the less
  optimised code never lands in the environment's ranx cache that benchmarks read.
  (Level 0 leaves globals in ranx's code that numba then refuses to cache.) Set
  ``NUMBA_OPT`` to choose otherwise.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if "NUMBA_OPT" not in os.environ:
    os.environ["NUMBA_OPT"] = "1"
    os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).parent / ".numba_cache"))
    if "numba" in sys.modules:  # a plugin imported it first: read the environment again
        from numba.core import config as _numba_config

        _numba_config.reload_config()

import polars
import pytest

import polars_rankmetrics
from polars_rankmetrics.spark import spark_unavailable

os.environ["PYSPARK_PYTHON"] = sys.executable
os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the Spark doctests skipped, with the reason, when Spark cannot run."""
    reason = spark_unavailable()
    if reason is None:
        return
    for item in items:
        if item.nodeid.startswith("polars_rankmetrics/spark.py"):
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict[str, object]) -> None:
    doctest_namespace["pl"] = polars
    doctest_namespace["rm"] = polars_rankmetrics
