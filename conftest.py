"""Spark set-up for the whole test run (doctests included).

- The Spark workers must run this interpreter, the virtual environment's, which
  has polars and this package: set ``PYSPARK_PYTHON`` before any session starts.
- Skip the doctests of polars_rankmetrics.spark when pyspark or Java is missing.
  CI installs both (``.ci/run``); a checkout without them still passes.
- Doctests see ``pl`` (polars) and ``rm`` (polars_rankmetrics), as polars' own
  docstring examples see ``pl``, so that examples need no import lines.
"""

from __future__ import annotations

import os
import sys

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
