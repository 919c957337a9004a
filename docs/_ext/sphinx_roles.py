"""A griffe extension: the docstrings as the API reference should read them.

The docstrings cross-reference with Sphinx roles (``:func:`~polars_rankmetrics.pr_curve```),
which mkdocstrings' numpy parser leaves as text. This rewrites each role when the
site is built: to a link where its target is an object the API pages document
(``docs/api/*.md``, by its canonical path), else to plain code. The source is not
changed, so the doctests and Sphinx-style readers see the same docstrings.

It writes out the shared parameter descriptions (an entry with a name and no
description: ``polars_rankmetrics._docstrings``), as ``help()`` shows them, and
splits numpy's shared parameter entries (``by, descending, ties``: one
description for several parameters) into one entry per parameter, which griffe
would otherwise give the first one's type and default.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import griffe

from polars_rankmetrics._docstrings import fill_parameters

API_PAGES = Path(__file__).resolve().parents[1] / "api"
SHARED = re.compile(r"([a-z_]\w*(?:, [a-z_]\w*)+)(\s*:.*)?")
ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|obj|exc):`(~?)([^`<>]+)`")


def documented_objects() -> dict[str, str]:
    """Every object the API pages render: its canonical path, by each suffix of its paths.

    A page renders ``::: module`` with a ``members:`` list; the module itself has no
    heading, so it is no target.
    """
    paths = []
    for page in sorted(API_PAGES.glob("*.md")):
        module = None
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("::: "):
                module = line[4:].strip()
            elif module and re.fullmatch(r"\s+- \w+", line):
                name = line.split("-", 1)[1].strip()
                target = getattr(importlib.import_module(module), name)
                canonical = f"{target.__module__}.{target.__qualname__}"
                paths += [(f"{module}.{name}", canonical), (canonical, canonical)]
    names: dict[str, str] = {}
    ambiguous: set[str] = set()
    for path, canonical in paths:
        parts = path.split(".")
        for key in [".".join(parts[start:]) for start in range(len(parts))]:
            if names.setdefault(key, canonical) != canonical:
                ambiguous.add(key)
        # The package re-exports every public name at the top.
        names.setdefault(f"polars_rankmetrics.{parts[-1]}", canonical)
    for key in ambiguous:
        if not key.startswith("polars_rankmetrics."):
            del names[key]
    return names


def split_shared_parameters(docstring: str) -> str:
    """Each ``a, b : type`` entry of the Parameters sections as ``a : type`` and ``b : type``."""
    lines = docstring.splitlines()
    out: list[str] = []
    in_parameters = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if index + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[index + 1].strip()):
            in_parameters = line.strip() in {"Parameters", "Other Parameters"}
        shared = SHARED.fullmatch(line) if in_parameters else None
        if shared is None:
            out.append(line)
            index += 1
            continue
        end = index + 1
        while end < len(lines) and (not lines[end].strip() or lines[end].startswith(" ")):
            end += 1
        while end > index + 1 and not lines[end - 1].strip():
            end -= 1  # the blank lines before the next entry stay after the last copy
        for name in shared.group(1).split(", "):
            out += [name + (shared.group(2) or ""), *lines[index + 1 : end]]
        index = end
    return "\n".join(out)


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles in every docstring the handler loads."""

    def __init__(self) -> None:
        self.targets = documented_objects()

    def _replace(self, match: re.Match[str]) -> str:
        short, target = match.group(1) == "~", match.group(2).strip().lstrip(".")
        shown = target.rsplit(".", 1)[-1] if short else target
        path = self.targets.get(target)
        if path is None and target.startswith("polars_rankmetrics."):
            path = self.targets.get(target.removeprefix("polars_rankmetrics."))
        return f"[`{shown}`][{path}]" if path else f"`{shown}`"

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite the object's docstring, once the tree is built."""
        if obj.docstring is not None:
            value = split_shared_parameters(fill_parameters(obj.docstring.value))
            obj.docstring.value = ROLE.sub(self._replace, value)
