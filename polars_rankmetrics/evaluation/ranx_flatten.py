"""The compiled reader of :mod:`.ranx_bulk` (imported only for a large ranx object: needs numba)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numba.typed import List


@njit(cache=True)
def flatten(nested: Any) -> Any:  # pragma: no cover (compiled)
    """The query ids and the doc ids, each joined by NUL, and the values as float64."""
    total = 0
    for query in nested:
        total += len(nested[query])
    values = np.empty(total, dtype=np.float64)
    queries = List()
    docs = List()
    i = 0
    for query in nested:
        queries.append(query)
        for doc, number in nested[query].items():
            docs.append(doc)
            values[i] = number
            i += 1
    return "\x00".join(queries), "\x00".join(docs), values
