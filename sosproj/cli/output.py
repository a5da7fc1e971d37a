"""Console output for the CLI: human text, ``--quiet``, ``--json`` and progress bars.

Human-readable lines go to stdout (results) and stderr (notes and progress);
``--quiet`` silences everything but errors; ``--json`` prints exactly one JSON
document on stdout (the verb's result, or ``{"error": ...}``) so scripts can
parse it. Progress bars use :mod:`tqdm` on stderr and are silent when stderr is
not a terminal, under ``--quiet`` and under ``--json``.

Examples
--------
>>> out = Console(quiet=True)
>>> out.print("not shown")
>>> [i for i in out.progress(range(3), desc="steps")]
[0, 1, 2]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO, TypeVar

from sosproj.cli.io import to_jsonable

T = TypeVar("T")


class Console:
    """Output policy of one CLI invocation.

    Parameters
    ----------
    quiet : suppress everything but error messages.
    json_mode : print one JSON document on stdout instead of text.
    stdout, stderr : streams (default: the process streams at call time).

    >>> import io
    >>> buf = io.StringIO()
    >>> Console(json_mode=True, stdout=buf).emit({"ok": True}); buf.getvalue()
    '{\\n  "ok": true\\n}\\n'
    """

    def __init__(self, *, quiet: bool = False, json_mode: bool = False,
                 stdout: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self.quiet = bool(quiet)
        self.json_mode = bool(json_mode)
        self._stdout = stdout
        self._stderr = stderr

    @property
    def stdout(self) -> TextIO:
        return self._stdout if self._stdout is not None else sys.stdout

    @property
    def stderr(self) -> TextIO:
        return self._stderr if self._stderr is not None else sys.stderr

    @property
    def show_text(self) -> bool:
        """True when human-readable text should be printed."""
        return not (self.quiet or self.json_mode)

    def print(self, *parts: Any) -> None:
        """Print a result line on stdout (text mode only).

        >>> Console().print("ok", 1)
        ok 1
        >>> Console(json_mode=True).print("hidden in --json mode")
        """
        if self.show_text:
            print(*parts, file=self.stdout, flush=True)

    def note(self, *parts: Any) -> None:
        """Print a side note on stderr (text mode only).

        >>> import io
        >>> err = io.StringIO(); Console(stderr=err).note("step 1 ..."); err.getvalue()
        'step 1 ...\\n'
        """
        if self.show_text:
            print(*parts, file=self.stderr, flush=True)

    def warn(self, message: str) -> None:
        """Print a warning on stderr that neither ``--quiet`` nor ``--json`` hides.

        For warnings the user must see whatever the output mode (privacy caveats): stdout keeps
        its one JSON document under ``--json``; the warning goes to stderr.

        >>> import io
        >>> err = io.StringIO(); Console(quiet=True, stderr=err).warn("leaks"); err.getvalue()
        'sosproj: WARNING: leaks\\n'
        """
        print(f"sosproj: WARNING: {message}", file=self.stderr, flush=True)

    def error(self, message: str, *, kind: str = "Error", exit_code: int = 1) -> None:
        """Report an error: JSON on stdout in ``--json`` mode, else ``sosproj: error: ...`` on stderr.

        >>> Console(json_mode=True).error("bad input", kind="InvalidInputError", exit_code=2)
        {
          "error": {
            "exit_code": 2,
            "message": "bad input",
            "type": "InvalidInputError"
          }
        }
        """
        if self.json_mode:
            self.emit({"error": {"type": kind, "message": message, "exit_code": exit_code}})
        else:
            print(f"sosproj: error: {message}", file=self.stderr, flush=True)

    def emit(self, result: Any) -> None:
        """Print the verb's JSON document (``--json`` mode only; numpy values converted).

        >>> import numpy as np
        >>> Console(json_mode=True).emit({"sigma": np.float64(0.5)})
        {
          "sigma": 0.5
        }
        >>> Console().emit({"not": "printed in text mode"})
        """
        if self.json_mode:
            print(json.dumps(to_jsonable(result), indent=2, sort_keys=True), file=self.stdout, flush=True)

    def table(self, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Print a plain-text table (text mode only); see :func:`format_table`.

        >>> Console().table(["a", "b"], [[1, 2.5]])
        a  b
        -  ---
        1  2.5
        """
        if self.show_text:
            print(format_table(header, rows), file=self.stdout, flush=True)

    def progress_enabled(self) -> bool:
        """Progress bars only on an interactive stderr, never under --quiet/--json.

        >>> import io
        >>> Console(stderr=io.StringIO()).progress_enabled(), Console(quiet=True).progress_enabled()
        (False, False)
        """
        if not self.show_text:
            return False
        try:
            return bool(self.stderr.isatty())
        except (AttributeError, ValueError):
            return False

    def steps(self, total: int, *, desc: str) -> Any:
        """A tqdm bar over ``total`` coarse steps (use as a context manager; silent off a TTY).

        >>> with Console(quiet=True).steps(2, desc="x") as bar:  # quiet: a silent no-op bar
        ...     bar.update(2)
        >>> bar.disable
        True
        """
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, file=self.stderr, disable=not self.progress_enabled(),
                    leave=False)

    def progress(self, iterable: Iterable[T], *, desc: str, total: int | None = None) -> Iterator[T]:
        """Wrap ``iterable`` in a tqdm bar (silent when not a TTY).

        >>> sum(Console(quiet=True).progress([1, 2, 3], desc="adding"))
        6
        """
        from tqdm.auto import tqdm

        yield from tqdm(iterable, desc=desc, total=total, file=self.stderr,
                        disable=not self.progress_enabled(), leave=False)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value == 0 or 1e-3 <= abs(value) < 1e5:
            return f"{value:.4g}"
        return f"{value:.3e}"
    return str(value)


def format_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Format rows as an aligned plain-text table (floats to 4 significant digits).

    >>> print(format_table(["method", "error"], [["gaussian", 1.23456], ["exact", 0.5]]))
    method    error
    --------  -----
    gaussian  1.235
    exact     0.5
    """
    cells = [[str(h) for h in header]] + [[_fmt(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


__all__ = ["Console", "format_table"]
