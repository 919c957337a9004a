"""Measure objects as names: ir_measures' measures (``ir_measures.nDCG@10``).

An ir_measures measure object is recognised by its type (a subclass of
``ir_measures.measures.base.Measure``, found by the classes' modules and names
in its MRO) without importing ir_measures, and becomes its
string in ir_measures' own grammar (``str(ir_measures.nDCG(dcg="exp-log2")@10)``
is ``"nDCG(dcg='exp-log2')@10"``), which the ir_measures dialect then reads:
an object means exactly what the same name means to ir_measures.

Another tool's measure objects would get a function here, returning the name in
that tool's dialect, and a line in :data:`polars_rankmetrics.measures.resolve.OBJECTS`.
"""

from __future__ import annotations


def ir_measures_name(measure: object) -> str | None:
    """The ir_measures name of an ir_measures measure object, or None for anything else.

    Examples
    --------
    >>> import ir_measures
    >>> ir_measures_name(ir_measures.AP(rel=2) @ 10)
    'AP(rel=2)@10'
    >>> ir_measures_name("AP@10") is None
    True
    """
    if not any(
        cls.__module__ == "ir_measures.measures.base" and cls.__name__ == "Measure"
        for cls in type(measure).__mro__
    ):
        return None
    return str(measure)
