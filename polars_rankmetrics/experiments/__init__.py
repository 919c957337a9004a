"""The experiment in one call: qrels and runs in, a comparison and a shareable report out.

:func:`experiment` evaluates the runs (:mod:`..evaluation`), compares them
(:mod:`..comparisons`) and returns an :class:`Experiment`: the frames, the
tables, the charts and a self-contained HTML report. The modules, from the
bottom up: ``sources`` (the runs, named), ``record`` (what an experiment holds),
``build`` (the steps), ``tables``, ``charts`` and ``report`` (how it shows), and
``experiment`` (the call and the object).
"""

from polars_rankmetrics.experiments.experiment import Experiment, experiment

__all__ = ["Experiment", "experiment"]
