"""The progress bars moved to :mod:`polars_rankmetrics._progress`; imported from there."""

from polars_rankmetrics._progress import DELAY, Progress, progress, status

__all__ = ["DELAY", "Progress", "progress", "status"]
