"""Many files judged at once: a bounded pool of worker processes, results in the order given.

`scan DIR...` and `eval` replay every file through a fresh engine; a file costs from milliseconds to
seconds of pure Python, so they run in worker processes (`ProcessPoolExecutor`, as many as the CPUs
this process may use, never more than the files), each file in one task. The results come back in
the order of the inputs whatever order they finish in, so output and exit status never depend on
timing. While it runs, a progress line is drawn on stderr when stderr is a terminal (never into a
pipe or a log). One file, or one CPU, runs in this process: no pool is started for nothing. The pool
is shut down before returning, so no worker outlives the command; a worker that dies is reported as
`PoolBroken` (the caller says which files it could not judge).

Workers are started with `spawn`: a fresh interpreter, so nothing the parent holds (threads, open
files, a terminal) is copied into them.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import IO, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class PoolBroken(Exception):
    """A worker process died (killed, out of memory); `done` holds the results that came back."""

    def __init__(self, done: dict[int, object]) -> None:
        super().__init__("a worker process died")
        self.done = done


def cpus() -> int:
    """How many CPUs this process may run on (its affinity, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class Progress:
    """`label 12/40` redrawn in place on a terminal's stderr; silent anywhere else."""

    def __init__(self, label: str, total: int, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.on = total > 1 and self.stream.isatty()
        self.label, self.total, self.done = label, total, 0

    def step(self) -> None:
        """One more item finished."""
        self.done += 1
        if self.on:
            self.stream.write(f"\r{self.label} {self.done}/{self.total}\x1b[K")
            self.stream.flush()

    def close(self) -> None:
        """Erase the line, so what follows starts on a clean one."""
        if self.on:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def run_all(fn: Callable[[T], R], items: Sequence[T], label: str, workers: int | None = None) -> list[R]:
    """`[fn(item) for item in items]`, in parallel when it pays; `fn` must be a module-level function."""
    progress = Progress(label, len(items))
    n = min(workers or cpus(), len(items))
    try:
        if n <= 1:
            out = []
            for item in items:
                out.append(fn(item))
                progress.step()
            return out
        return _pooled(fn, items, n, progress)
    finally:
        progress.close()


def _pooled(fn: Callable[[T], R], items: Sequence[T], n: int, progress: Progress) -> list[R]:
    done: dict[int, object] = {}
    pool = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"))
    try:
        futures: dict[Future[R], int] = {pool.submit(fn, item): i for i, item in enumerate(items)}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                try:
                    done[futures[f]] = f.result()
                except BrokenProcessPool:
                    raise PoolBroken(done) from None
                progress.step()
    finally:
        # on an error or ctrl+c nothing more starts, and every worker is joined before we return
        pool.shutdown(wait=True, cancel_futures=True)
    return [done[i] for i in range(len(items))]  # type: ignore[misc]
