"""Skip the doctests of polars_rankmetrics.spark when pyspark or Java is missing.

CI installs both (``.ci/run``); a checkout without them still passes.
"""

from __future__ import annotations

import pytest

from polars_rankmetrics.spark import spark_unavailable


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = spark_unavailable()
    if reason is None:
        return
    for item in items:
        if item.nodeid.startswith("polars_rankmetrics/spark.py"):
            item.add_marker(pytest.mark.skip(reason=reason))
