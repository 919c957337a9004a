"""Benchmarks for polars_rankmetrics: ``python -m benchmarks --help``.

Every contender runs in its own process (``benchmarks.worker``), so that its
peak RSS is its own; times within one run are compared as ratios.
"""
