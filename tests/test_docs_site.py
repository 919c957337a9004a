"""What the documentation site is built with: formatted signatures, no house jargon."""

from __future__ import annotations

import inspect
import re

import pytest

import polars_rankmetrics as rm
from tests.conftest import PROJECT


def docs_extra() -> list[str]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text("utf-8"))
    extra: list[str] = project["project"]["optional-dependencies"]["docs"]
    return extra


def test_the_docs_extra_pins_a_signature_formatter() -> None:
    """mkdocstrings-python formats separate signatures with Black or Ruff, if installed."""
    pins = dict(re.fullmatch(r"([\w\[\]-]+)==(\S+)", line).groups() for line in docs_extra())
    assert {"ruff", "black"} & set(pins), "add ruff or black to the docs extra"
    config = (PROJECT / "mkdocs.yml").read_text("utf-8")
    assert re.search(r"^\s+separate_signature: true$", config, re.M)
    assert re.search(r"^\s+line_length: \d+$", config, re.M)


def test_no_house_jargon_in_the_docstrings_and_pages() -> None:
    """Words only this project's authors know (their private notes) stay out of the docs."""
    jargon = re.compile(r"seed notes|the seeds\b|\.\./shared/seeds", re.I)
    texts = {name: inspect.getdoc(getattr(rm, name)) or "" for name in rm.__all__}
    texts |= {
        str(page.relative_to(PROJECT)): page.read_text("utf-8")
        for page in [PROJECT / "README.md", *(PROJECT / "docs").rglob("*.md")]
    }
    for source in (PROJECT / "polars_rankmetrics").rglob("*.py"):
        texts[str(source.relative_to(PROJECT))] = source.read_text("utf-8")
    offenders = [name for name, text in texts.items() if jargon.search(text)]
    assert offenders == []


def test_the_docs_build_draws_every_chart_the_pages_show() -> None:
    """docs/_ext/charts.py makes each image the pages link to, with the library's functions."""
    pytest.importorskip("sklearn")
    pytest.importorskip("vl_convert")
    import runpy

    assert "docs/_ext/charts.py" in (PROJECT / "mkdocs.yml").read_text("utf-8")
    hook = runpy.run_path(str(PROJECT / "docs" / "_ext" / "charts.py"))
    images = hook["draw"](n_queries=3)
    assert set(images) == set(hook["CHARTS"])
    assert all(png.startswith(b"\x89PNG") for png in images.values())
    linked = {
        name
        for page in (PROJECT / "docs").rglob("*.md")
        for name in re.findall(r"images/charts/(\w+)\.png", page.read_text("utf-8"))
    }
    assert linked == set(hook["CHARTS"])
    # Every chart function of the library is drawn.
    from polars_rankmetrics.comparisons import plot

    drawn = (PROJECT / "docs" / "_ext" / "charts.py").read_text("utf-8")
    functions = [name for name in dir(plot) if name.endswith("_chart") and not name.startswith("_")]
    assert functions and all(f"rm.{name}(" in drawn for name in functions)


def test_formulas_are_rendered_as_mathml_without_scripts() -> None:
    """docs/_ext/maths.py turns arithmatex's formulas into MathML; a bad one fails loudly."""
    pytest.importorskip("latex2mathml")
    import runpy

    config = (PROJECT / "mkdocs.yml").read_text("utf-8")
    assert "docs/_ext/maths.py" in config and "pymdownx.arithmatex" in config
    assert not re.search(r"(katex|mathjax)", config, re.I)  # nothing loaded from elsewhere
    hook = runpy.run_path(str(PROJECT / "docs" / "_ext" / "maths.py"))
    page = (
        '<p>With <span class="arithmatex">\\(R &lt; k\\)</span>:</p>'
        '<div class="arithmatex">\\[\\frac{1}{R} \\sum_{i=1}^{k} x_i\\]</div>'
    )
    rendered = hook["render"](page, "page.md")
    assert "arithmatex" not in rendered and "\\" not in rendered
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in rendered
    assert 'display="block"><mrow><mfrac>' in rendered
    assert "<mo>&#x0003C;</mo>" in rendered  # the unescaped '<'
    with pytest.raises(ValueError, match=r"page\.md: the formula"):
        hook["render"]('<span class="arithmatex">\\(\\Big\\{ x \\Big\\}\\)</span>', "page.md")
    # The pages' formulas all render.
    for source in (PROJECT / "docs").rglob("*.md"):
        text = source.read_text("utf-8")
        for latex in re.findall(r"^\$\$\n(.*?)\n\$\$$", text, re.M | re.S):
            assert "\\" not in hook["mathml"](latex, display=True), (source.name, latex)


def _parameter_entries(docstring: str) -> list[tuple[str, list[str]]]:
    """The Parameters entries of a (dedented) numpy docstring: name line, description lines."""
    _, _, rest = docstring.partition("Parameters\n----------\n")
    entries: list[tuple[str, list[str]]] = []
    for line in rest.split("\n\n")[0].splitlines():
        if line.startswith(" "):
            entries[-1][1].append(line)
        else:
            entries.append((line, []))
    return entries


def test_shared_parameter_texts_are_written_once_and_filled_everywhere() -> None:
    from polars_rankmetrics._docstrings import PARAMETERS
    from polars_rankmetrics.metrics import FUNCTIONS

    sources = "".join(
        path.read_text("utf-8") for path in (PROJECT / "polars_rankmetrics").rglob("*.py")
    )
    for header, description in PARAMETERS.values():
        first_line = description.split("\n")[0]
        assert sources.count(first_line) == 1, f"{header}: written more than once"
    for function in (*FUNCTIONS, rm.metrics):
        entries = _parameter_entries(inspect.getdoc(function) or "")
        names = [name for line, _ in entries for name in line.split(" : ")[0].split(", ")]
        assert names, function.__name__
        assert all(description for _, description in entries), function.__name__
        assert set(names) <= set(inspect.signature(function).parameters), function.__name__
    # The .rank methods show the same filled text.
    import polars as pl

    method = pl.col("relevance").rank.precision_at_k
    assert "Relevance labels: bool, int or float" in (method.__doc__ or "")
