"""Files written whole or not at all: a temporary file beside the target, then a rename.

An interrupted or failed write (a full disk, a missing renderer, Ctrl-C) never
leaves a truncated file that looks complete: the file appears whole, or an
earlier file of that name stays as it was.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``, renamed onto ``path`` when the block ends.

    The temporary name is unique and in the same folder (the rename stays on
    one file system), and the file gets the permissions of any new file. If the
    block raises, the temporary file is removed and ``path`` is left alone.
    """
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        yield temporary
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    with replacing(path) as temporary:
        temporary.write_bytes(data)
