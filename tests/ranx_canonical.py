"""ranx ``Qrels`` and ``Run`` built with one doc-id width, so numba compiles ranx once.

``ranx.Qrels(d)`` and ``ranx.Run(d)`` store doc ids as numpy ``<U{n}`` arrays, ``n``
the longest id of that dict, and numba compiles ranx's data-structure helpers
(``create_and_sort``, ``sort_dict_*``, ``to_typed_list``, ...) once per width: a
test collection with ids ``d0``-``d9`` and one with ``d000``-``d999`` cost two
compilations of every helper in a fresh environment. These builders run ranx's own
constructor code (the same ``create_and_sort`` on the same lists) with the ids
stored at one width, ``WIDTH`` (wider only where an id is longer). numpy's ``<U``
strings pad with nulls that ``str`` drops, and numba hashes a ``UnicodeCharSeq`` as
``hash(str(s))``, so the ids, their hashes and every value ranx computes are those
of ``ranx.Qrels(d)`` / ``ranx.Run(d)`` (checked in ``test_ranx_canonical.py``).

Tests whose point is a specific ranx input (objects read back by our adapters with
their own id types, ``from_df``, ``add_score``) build ranx objects directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

WIDTH = 16


def _width(nested: Mapping[str, Mapping[str, Any]]) -> int:
    return max(WIDTH, *(len(doc) for docs in nested.values() for doc in docs))


def _lists(nested: Mapping[str, Mapping[str, Any]], dtype: type) -> tuple[Any, Any, Any]:
    from numba.typed import List as TypedList

    ids = f"<U{_width(nested)}"
    q_ids = TypedList([str(q) for q in nested])
    doc_ids = TypedList([np.array(list(docs), dtype=ids) for docs in nested.values()])
    values = TypedList([np.array(list(docs.values()), dtype=dtype) for docs in nested.values()])
    return q_ids, doc_ids, values


def as_ranx_run(nested: Mapping[str, Mapping[str, float]], name: str | None = None) -> Any:
    """``ranx.Run(nested, name=name)``, its doc ids stored ``WIDTH`` wide."""
    import ranx
    from ranx.data_structures.common import create_and_sort

    run = ranx.Run(name=name)
    run.run = create_and_sort(*_lists(nested, float))
    run.sorted = True
    return run


def as_ranx_qrels(nested: Mapping[str, Mapping[str, int]], name: str | None = None) -> Any:
    """``ranx.Qrels(nested, name=name)``, its doc ids stored ``WIDTH`` wide."""
    import ranx
    from ranx.data_structures.common import create_and_sort

    qrels = ranx.Qrels(name=name)
    qrels.qrels = create_and_sort(*_lists(nested, int))
    qrels.sorted = True
    return qrels
