"""Progress of long runs: :mod:`tqdm` bars on a terminal, and progress *lines* for suites.

``progress=None`` (the default everywhere in :mod:`sosproj.certificates`) shows a
bar only when standard error is an interactive terminal, so logs, CI output and
doctests stay clean; ``True`` forces a bar, ``False`` silences it.

A certificate suite runs for minutes, so :class:`SuiteProgress` also writes plain
lines that read well in a log: one when a check starts (with the time it took in a
recorded report, when there is one), one when it ends (verdict, its time, the
suite's elapsed time and an estimate of the time left), and a heartbeat line at
least every ``interval`` seconds (30 by default) while a check runs. The estimate of
the time left is the recorded time of the remaining checks, scaled by how fast this
machine ran the finished checks compared with the recording.

Examples
--------
>>> from sosproj.certificates.progress import progress_bar
>>> with progress_bar(total=3, desc="trials", enabled=False) as bar:
...     for _ in range(3):
...         bar.update(1)
>>> bar.disable
True
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tqdm.auto import tqdm

from sosproj.errors import InputTypeError


def progress_enabled(progress: bool | None) -> bool:
    """Resolve the ``progress`` argument: ``None`` means "only on a terminal".

    >>> progress_enabled(False)
    False
    >>> progress_enabled(True)
    True
    """
    if progress is None:
        stream = sys.stderr
        try:
            return bool(stream is not None and stream.isatty())
        except (AttributeError, ValueError):  # closed or replaced streams
            return False
    if isinstance(progress, bool):
        return progress
    raise InputTypeError("progress must be None (bar only on a terminal), True or False; "
                         f"got {type(progress).__name__}")


def progress_bar(total: int | None = None, desc: str = "", enabled: bool | None = None,
                 **kwargs: Any) -> tqdm:
    """A :class:`tqdm.tqdm` bar, disabled unless :func:`progress_enabled` says otherwise.

    A disabled bar accepts ``update``/``set_postfix_str`` as no-ops, so callers need no
    special case.

    >>> bar = progress_bar(total=2, enabled=False)
    >>> bar.update(2); bar.close(); bar.disable
    True
    """
    return tqdm(total=total, desc=desc, disable=not progress_enabled(enabled), leave=False,
                dynamic_ncols=True, **kwargs)


def format_seconds(seconds: float | None) -> str:
    """A duration for humans: ``"42 s"``, ``"3.5 min"``; ``"?"`` when unknown.

    >>> format_seconds(42.4), format_seconds(210), format_seconds(None)
    ('42 s', '3.5 min', '?')
    """
    if seconds is None:
        return "?"
    return f"{seconds:.0f} s" if seconds < 100 else f"{seconds / 60:.1f} min"


class SuiteProgress:
    """Progress lines of a suite of named checks, written through ``emit``.

    ``recorded`` maps check names to their seconds in an earlier run (the estimates);
    ``interval`` is the longest silence, in seconds, while a check runs. Use
    :meth:`check` around each check; it returns a context manager that writes the start
    line, runs the heartbeat, and leaves :meth:`done` to write the end line.

    >>> lines = []
    >>> p = SuiteProgress(["a", "b"], {"a": 2.0, "b": 6.0}, lines.append, interval=60, clock=iter(
    ...     [0.0, 0.0, 1.0, 1.0, 4.0]).__next__)
    >>> with p.check(0):
    ...     _ = p.done(0, "pass")
    >>> with p.check(1):
    ...     _ = p.done(1, "inconclusive")
    >>> for line in lines:
    ...     print(line)
    [1/2] a: running (recorded 2 s)
    [1/2] a: pass in 1 s; suite 1 s elapsed, about 3 s left
    [2/2] b: running (recorded 6 s)
    [2/2] b: inconclusive in 3 s; suite 4 s elapsed, about 0 s left
    """

    def __init__(self, names: Sequence[str], recorded: Mapping[str, float] | None,
                 emit: Callable[[str], None], *, interval: float = 30.0,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if not interval > 0:
            from sosproj.errors import InvalidParameterError

            raise InvalidParameterError("interval must be > 0 seconds (the longest silence)")
        self.names = list(names)
        self.recorded = {k: float(v) for k, v in (recorded or {}).items() if k in self.names}
        self.emit = emit
        self.interval = float(interval)
        self.clock = clock
        self.t0 = clock()
        self.times: dict[str, float] = {}
        self._check_t0 = self.t0

    def _tag(self, i: int) -> str:
        return f"[{i + 1}/{len(self.names)}] {self.names[i]}"

    def speed(self) -> float:
        """This run's time over the recorded time, on the finished checks that have a record."""
        rec = sum(self.recorded[n] for n in self.times if n in self.recorded)
        act = sum(t for n, t in self.times.items() if n in self.recorded)
        return act / rec if rec > 0 and act > 0 else 1.0

    def time_left(self, running: int | None = None, running_for: float = 0.0) -> float | None:
        """Estimated seconds left (``None`` when a remaining check has no record)."""
        left = [n for n in self.names if n not in self.times]
        if any(n not in self.recorded for n in left):
            return None
        speed = self.speed()
        current = None if running is None else self.names[running]
        total = sum(self.recorded[n] for n in left if n != current) * speed
        if current is not None and current in self.recorded:
            total += max(self.recorded[current] * speed - running_for, 0.0)
        return total

    def check(self, i: int) -> Any:
        """Context manager around check ``i``: start line, heartbeat lines every ``interval`` s."""
        import contextlib

        @contextlib.contextmanager
        def cm() -> Any:
            name = self.names[i]
            rec = self.recorded.get(name)
            self.emit(f"{self._tag(i)}: running" + (f" (recorded {format_seconds(rec)})" if rec else ""))
            self._check_t0 = self.clock()
            stop = threading.Event()

            def beat() -> None:
                while not stop.wait(self.interval):
                    now = self.clock()
                    so_far = now - self._check_t0
                    left = self.time_left(i, so_far)
                    late = rec is not None and so_far > rec * self.speed()
                    self.emit(f"{self._tag(i)}: still running, {format_seconds(so_far)} so far"
                              + (f" (recorded {format_seconds(rec)}"
                                 + ("; slower than estimated" if late else "") + ")" if rec else "")
                              + f"; suite {format_seconds(now - self.t0)} elapsed"
                              + (f", about {format_seconds(left)} left" if left is not None and not late
                                 else f", at least {format_seconds(left)} left" if left is not None else ""))

            thread = threading.Thread(target=beat, name=f"sosproj-progress-{name}", daemon=True)
            thread.start()
            try:
                yield self
            finally:
                stop.set()
                thread.join()

        return cm()

    def done(self, i: int, verdict: str) -> float:
        """Write check ``i``'s end line; return its seconds."""
        now = self.clock()
        secs = now - self._check_t0
        self.times[self.names[i]] = secs
        left = self.time_left()
        self.emit(f"{self._tag(i)}: {verdict} in {format_seconds(secs)}; suite {format_seconds(now - self.t0)} "
                  "elapsed" + (f", about {format_seconds(left)} left" if left is not None else ""))
        return secs


__all__ = ["SuiteProgress", "format_seconds", "progress_bar", "progress_enabled"]
