"""Progress bars for long sweeps: :mod:`tqdm` bars that stay silent off a terminal.

``progress=None`` (the default everywhere in :mod:`sosproj.certificates`) shows a
bar only when standard error is an interactive terminal, so logs, CI output and
doctests stay clean; ``True`` forces a bar, ``False`` silences it.

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


__all__ = ["progress_bar", "progress_enabled"]
