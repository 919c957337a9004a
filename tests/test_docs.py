"""The documentation site's API reference covers the public API.

``mkdocs build --strict`` (in .ci/run) fails on a broken page, link or reference;
this checks what it cannot: that every public name has a place in the reference.
"""

from __future__ import annotations

import importlib
import re

import polars_rankmetrics as rm
from tests.conftest import PROJECT

API = PROJECT / "docs" / "api"


def documented() -> set[str]:
    """The objects the API pages render (``::: module`` and its ``members:`` list)."""
    objects: set[str] = set()
    for page in API.glob("*.md"):
        module = None
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("::: "):
                module = line[4:].strip()
                objects.add(module)
            elif module and re.fullmatch(r"\s+- \w+", line):
                name = line.split("-", 1)[1].strip()
                target = getattr(importlib.import_module(module), name)  # it exists
                objects.add(f"{target.__module__}.{target.__qualname__}")
    return objects


def test_every_public_name_is_in_the_api_reference() -> None:
    objects = documented()
    for name in rm.__all__:
        target = getattr(rm, name)
        module = name in ("spark", "recsys", "online", "counterfactual")
        path = target.__name__ if module else f"{target.__module__}.{target.__qualname__}"
        assert path in objects, f"{name}: add it to a page of docs/api/"
    assert {"polars_rankmetrics", "polars_rankmetrics.spark"} <= objects


def test_every_api_page_is_in_the_nav() -> None:
    nav = (PROJECT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in API.glob("*.md"):
        assert f"api/{page.name}" in nav, page.name
