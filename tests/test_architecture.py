"""The package's shape: no import cycles, no module over 600 lines.

The import graph is read from the source with :mod:`ast`, not from what Python
happens to have loaded: every ``import`` and ``from ... import`` anywhere in a
module (at module level, under ``if TYPE_CHECKING``, and inside functions, so
that a cycle cannot hide behind a deferred import), relative imports resolved,
and ``from package import name`` counted as an edge to ``package`` and, when
``name`` is a submodule, to ``package.name`` as well.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "polars_rankmetrics"
MAX_LINES = 600


def module_name(path: Path, root: Path) -> str:
    """The dotted name of a source file under ``root`` (the package's parent)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each module of ``package`` and the modules of ``package`` it imports."""
    root = package.parent
    paths = {module_name(path, root): path for path in sorted(package.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
                    source = f"{base}.{node.module}" if node.module else base
                else:
                    source = node.module or ""
                targets.add(source)
                targets.update(f"{source}.{alias.name}" for alias in node.names)
        graph[name] = {target for target in targets if target in paths and target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _describe(graph: dict[str, set[str]], component: list[str]) -> str:
    edges = [f"{a} -> {b}" for a in component for b in sorted(graph[a]) if b in component]
    return "; ".join(edges)


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert len(graph) > 50, "the graph should hold every module"
    found = cycles(graph)
    assert not found, "import cycles: " + " | ".join(_describe(graph, c) for c in found)


def test_no_module_is_over_600_lines() -> None:
    lengths = {
        str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    too_long = {path: n for path, n in lengths.items() if n > MAX_LINES}
    assert not too_long, f"modules over {MAX_LINES} lines: {too_long}"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # a plain cycle, through a relative import
        ({"a.py": "from . import b\n", "b.py": "import pkg.a\n"}, [["pkg.a", "pkg.b"]]),
        # a package's __init__ and a submodule that imports a sibling through it
        (
            {"sub/__init__.py": "from pkg.sub.x import f\n", "sub/x.py": "from pkg.sub import y\n"},
            [["pkg.sub", "pkg.sub.x"]],
        ),
        # a deferred import inside a function and one under TYPE_CHECKING still count
        (
            {
                "a.py": "def f():\n    from pkg.b import g\n",
                "b.py": (
                    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n"
                ),
            },
            [["pkg.a", "pkg.b"]],
        ),
        # imports that point down only: no cycle
        ({"a.py": "from pkg import b\n", "b.py": "import os\nfrom .c import x\n", "c.py": ""}, []),
    ],
)
def test_the_cycle_finder_finds_cycles(
    tmp_path: Path, files: dict[str, str], expected: list[list[str]]
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).parent.mkdir(exist_ok=True)
        (package / name).write_text(text)
    assert cycles(import_graph(package)) == expected


MAX_BODY_LINES = 100


def _body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The lines of a function's body, its docstring aside (nested functions included)."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    if not body:
        return 0
    end = max(getattr(n, "end_lineno", n.lineno) or n.lineno for n in body)
    return end - body[0].lineno + 1


def long_functions(package: Path) -> dict[str, int]:
    """Every function of ``package`` whose body is over :data:`MAX_BODY_LINES` lines."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = _body_lines(node)
                if lines > MAX_BODY_LINES:
                    found[f"{path.relative_to(package).as_posix()}:{node.name}"] = lines
    return found


def test_no_function_body_is_over_100_lines() -> None:
    too_long = long_functions(PACKAGE)
    assert not too_long, f"function bodies over {MAX_BODY_LINES} lines: {too_long}"


def test_the_length_check_reads_bodies_without_docstrings(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    doc = '    """' + "\n" * 150 + '    """\n'
    short = "def short():\n" + doc + "    return 1\n"
    long = "def long():\n" + doc + "    x = 1\n" * 101
    (package / "a.py").write_text(short + "\n\n" + long)
    assert long_functions(package) == {"a.py:long": 101}
