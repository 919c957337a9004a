"""A progress line on standard error for the command line's long steps.

``status`` names the step under way (trec-eval: reading, evaluating, writing);
``progress`` counts items done (compare: runs read and evaluated).

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
    """A rich progress line (spinner, step, items done, elapsed time) started by a timer."""

    def __init__(self, stream: TextIO, description: str, total: int | None = None) -> None:
        self.stream = stream
        self.description = description
        self.total = total
        self.completed = 0
        self.lock = threading.Lock()
        self.status: Any = None
        self.task: Any = None
        self.closed = False

    def _text(self) -> str:
        return f"rankmetrics: {self.description}"

    def start(self) -> None:
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )
        except ImportError:  # pragma: no cover - depends on the environment
            return
        counted = [] if self.total is None else [BarColumn(), MofNCompleteColumn()]
        with self.lock:
            if self.closed:
                return
            self.status = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                *counted,
                TimeElapsedColumn(),
                console=Console(file=self.stream, stderr=True),
                transient=True,
            )
            self.task = self.status.add_task(
                self._text(), total=self.total, completed=self.completed
            )
            self.status.start()

    def update(self, description: str) -> None:
        with self.lock:
            self.description = description
            if self.status is not None:
                self.status.update(self.task, description=self._text())

    def advance(self) -> None:
        with self.lock:
            self.completed += 1
            if self.status is not None:
                self.status.update(self.task, completed=self.completed)

    def stop(self) -> None:
        with self.lock:
            self.closed = True
            if self.status is not None:
                self.status.stop()
                self.status = None


@contextmanager
def _shown(line: _Status, delay: float | None) -> Iterator[_Status]:
    """Start ``line`` after ``delay`` seconds of work (at once for 0); stop it at the end."""
    wait = DELAY if delay is None else delay
    timer = threading.Timer(wait, line.start)
    timer.daemon = True
    if wait <= 0:
        line.start()
    else:
        timer.start()
    try:
        yield line
    finally:
        timer.cancel()
        line.stop()


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
    with _shown(_Status(target, description), delay) as line:
        yield line.update


@contextmanager
def progress(
    description: str, total: int, *, stream: TextIO | None = None, delay: float | None = None
) -> Iterator[Callable[[], None]]:
    """A bar of ``total`` items on ``stream`` (stderr) if the work lasts ``delay`` seconds.

    Yields a function that counts one item done; the bar, when it appears,
    shows the items done so far. Silent when the stream is not a terminal.
    """
    target = sys.stderr if stream is None else stream
    if not target.isatty():
        yield lambda: None
        return
    with _shown(_Status(target, description, total), delay) as line:
        yield line.advance
