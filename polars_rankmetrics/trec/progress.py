"""A progress line on standard error for the command line's long steps.

Shown only when standard error is a terminal and a step has run longer than
``delay`` seconds (a 10M-line run takes tens of seconds to read and evaluate);
silent otherwise: in a pipe, in a log file, in tests, and whenever rich (a
dependency of the ``stats`` and ``plot`` extras) is not installed. The line is
transient (erased when the work ends) and never touches standard output.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

DELAY = 1.0
"""Seconds of work before the progress line appears."""


class _Status:
    """A rich progress line (spinner, step, elapsed time) started by a timer."""

    def __init__(self, stream: TextIO, description: str) -> None:
        self.stream = stream
        self.description = description
        self.lock = threading.Lock()
        self.status: Any = None
        self.task: Any = None
        self.closed = False

    def _text(self) -> str:
        return f"rankmetrics: {self.description}"

    def start(self) -> None:
        try:
            from rich.console import Console
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
        except ImportError:  # pragma: no cover - depends on the environment
            return
        with self.lock:
            if self.closed:
                return
            self.status = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=Console(file=self.stream, stderr=True),
                transient=True,
            )
            self.task = self.status.add_task(self._text(), total=None)
            self.status.start()

    def update(self, description: str) -> None:
        with self.lock:
            self.description = description
            if self.status is not None:
                self.status.update(self.task, description=self._text())

    def stop(self) -> None:
        with self.lock:
            self.closed = True
            if self.status is not None:
                self.status.stop()
                self.status = None


@contextmanager
def status(
    description: str, *, stream: TextIO | None = None, delay: float | None = None
) -> Iterator[Callable[[str], None]]:
    """Show ``description`` on ``stream`` (stderr) if the work lasts ``delay`` seconds.

    Yields a function that names the next step. Nothing is written when the
    stream is not a terminal. ``delay`` defaults to :data:`DELAY`.
    """
    target = sys.stderr if stream is None else stream
    if not target.isatty():
        yield lambda _: None
        return
    line = _Status(target, description)
    timer = threading.Timer(DELAY if delay is None else delay, line.start)
    timer.daemon = True
    timer.start()
    try:
        yield line.update
    finally:
        timer.cancel()
        line.stop()
