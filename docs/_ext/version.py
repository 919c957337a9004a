"""MkDocs hook: the site's header names the version the pages describe.

The version is read from ``polars_rankmetrics/_version.py``, the one place it is
written (pyproject's version and ``rankmetrics --version`` read it too).
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

VERSION_FILE = Path(__file__).resolve().parents[2] / "polars_rankmetrics" / "_version.py"


def package_version() -> str:
    """``__version__`` from ``_version.py``, without importing the package."""
    return str(runpy.run_path(str(VERSION_FILE))["__version__"])


def on_config(config: Any) -> Any:
    """Name the version in the header and the page titles (the site name)."""
    config.site_name = f"{config.site_name} {package_version()}"
    return config
