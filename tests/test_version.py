"""One version: the package, the build, the CLI, the docs' header and the changelog agree."""

from __future__ import annotations

import re
import runpy
import sys
from types import SimpleNamespace

import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.cli import main
from tests.conftest import PROJECT

VERSION_FILE = PROJECT / "polars_rankmetrics" / "_version.py"


def written_version() -> str:
    """The version as ``_version.py`` writes it, read as text (not imported)."""
    match = re.search(r'^__version__ = "([^"]+)"$', VERSION_FILE.read_text("utf-8"), re.M)
    assert match is not None, "_version.py must assign __version__ a string literal"
    return match.group(1)


def test_the_version_is_a_release_number() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?", written_version())


def test_the_package_reports_the_written_version() -> None:
    assert rm.__version__ == written_version()


def test_the_build_reads_the_same_file() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text("utf-8"))
    assert "version" not in project["project"], "write the version only in _version.py"
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["hatch"]["version"]["path"] == "polars_rankmetrics/_version.py"


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_rankmetrics_version(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([flag])
    assert exit_info.value.code == 0
    captured = capsys.readouterr()
    assert captured.out == f"rankmetrics {written_version()}\n"
    assert captured.err == ""


@pytest.mark.parametrize("flag", ["-v", "--version"])
def test_trec_eval_version_keeps_trec_evals_behaviour(
    flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """trec_eval -v prints its version on standard error and exits 0, whatever follows."""
    assert main(["trec-eval", flag, "no-such-qrels", "no-such-run"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"rankmetrics trec-eval {written_version()} ")


def test_the_docs_header_names_the_version() -> None:
    assert "docs/_ext/version.py" in (PROJECT / "mkdocs.yml").read_text("utf-8")
    hook = runpy.run_path(str(PROJECT / "docs" / "_ext" / "version.py"))
    config = SimpleNamespace(site_name="polars_rankmetrics", extra={})
    hook["on_config"](config)
    assert config.site_name == f"polars_rankmetrics {written_version()}"


def test_the_changelog_has_the_version_and_an_unreleased_section() -> None:
    changelog = (PROJECT / "CHANGELOG.md").read_text("utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", changelog, re.M)
    assert headings[0] == "Unreleased"
    assert written_version() in headings
    dated = re.findall(r"^## \[(\d[^\]]*)\] - (\d{4}-\d{2}-\d{2})$", changelog, re.M)
    assert [version for version, _ in dated] == headings[1:], "each release has a date"


def test_the_version_module_imports_nothing() -> None:
    """``_version.py`` is read by the docs hook without importing the package."""
    assert set(runpy.run_path(str(VERSION_FILE))) >= {"__version__"}
    assert "import" not in VERSION_FILE.read_text("utf-8").split('"""', 2)[2]
    assert sys.modules["polars_rankmetrics._version"].__version__ == written_version()


def test_the_site_shows_the_changelog() -> None:
    assert '--8<-- "CHANGELOG.md"' in (PROJECT / "docs" / "changelog.md").read_text("utf-8")
    assert "changelog.md" in (PROJECT / "mkdocs.yml").read_text("utf-8")
