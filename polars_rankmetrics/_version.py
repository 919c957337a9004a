"""The package's version: the one place it is written.

``pyproject.toml`` reads it (hatchling's ``[tool.hatch.version]``), and so do
``polars_rankmetrics.__version__``, ``rankmetrics --version``,
``rankmetrics trec-eval -v`` and the documentation site's header
(``docs/hooks/version.py``). ``CHANGELOG.md`` names each released version.
"""

__version__ = "0.1.0"
