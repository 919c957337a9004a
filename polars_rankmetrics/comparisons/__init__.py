"""Comparing systems: paired significance tests, tables and charts, and their command line.

Its modules need the optional extras (``stats``: numpy and scipy; ``plot``:
altair), so none is imported here: :func:`polars_rankmetrics.compare`,
:func:`~polars_rankmetrics.pr_curve_chart` and
:func:`~polars_rankmetrics.query_delta_chart` load them on first use.
"""
