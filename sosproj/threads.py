r"""BLAS thread policy: how many threads sosproj's linear algebra may use.

sosproj's hot loops (the structured ADMM, Newton and Dykstra projections, SCS and
Clarabel iterations, Gaussian-complexity trials) are long sequences of *small*
dense operations: eigendecompositions and products of matrices a few dozen to a
few hundred wide. For those, a second BLAS thread gains little on an idle machine
and loses a lot on a busy one: OpenBLAS threads spin-wait for work, and when the
cores are taken by other processes every call waits for time slices.

**The policy.** Every public entry point of sosproj (the mechanisms, ``project`` /
``support`` / ``contains`` of every convex set, the certificate runner, every CLI
verb) runs its linear algebra on :data:`DEFAULT_THREADS` (= 1) BLAS thread, applied
with :mod:`threadpoolctl` for the duration of the call and restored afterwards.
Nested calls keep the limit (and apply it to BLAS libraries loaded meanwhile, e.g.
a solver's own). Measured (``benchmarks/threads_under_load.py``, raw output in
``benchmarks/results_threads/``) on a 2-core machine shared with other jobs: the
libraries' default two threads made the README marginals release about 40 times
slower than one thread, a degree-4 support at ``n = 12`` 5 to 20 times slower, and
even one large factorization (``eigh`` of order 2000) 3.6 to 4.6 times slower. So
sosproj never raises the thread count on its own: on a machine you have to
yourself, ask for more threads explicitly (below).

**Overriding it** (first match wins):

1. an argument: ``with sosproj.threads.blas_threads(4): ...`` or
   ``sosproj.threads.set_num_threads(4)`` in Python; ``sosproj --threads 4 <verb>``
   on the command line;
2. the environment variable ``SOSPROJ_NUM_THREADS``: a positive integer, or ``all``
   to leave the BLAS libraries' own setting (one thread per core) untouched;
3. the policy above.

``OPENBLAS_NUM_THREADS`` and friends still set the libraries' own default, used
outside sosproj's calls; inside them the policy (or ``SOSPROJ_NUM_THREADS``) decides.
Without :mod:`threadpoolctl` installed the policy is a no-op (it is a dependency, so
that only happens in unusual installs).

Examples
--------
>>> import numpy as np
>>> from threadpoolctl import threadpool_info
>>> from sosproj.threads import blas_threads, policy_threads
>>> policy_threads(), policy_threads(3), policy_threads("all")
(1, 3, None)
>>> with blas_threads(1):
...     {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}
{1}
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypeVar

from sosproj.errors import InputTypeError, InvalidParameterError

#: environment variable overriding the policy (a positive integer, or ``all``)
ENV_VAR = "SOSPROJ_NUM_THREADS"
#: BLAS threads of sosproj's operations when nothing overrides the policy
DEFAULT_THREADS = 1

ThreadsLike = int | Literal["all"] | None
F = TypeVar("F", bound=Callable[..., Any])

_ALL = "all"
_override: ThreadsLike = None
_state = threading.local()  # depth of nested policy regions in this thread
_controller_lock = threading.Lock()
_controller: Any = None
_controller_key = -1


def _check_threads(value: Any, name: str) -> int | Literal["all"]:
    if isinstance(value, str):
        text = value.strip().lower()
        if text == _ALL:
            return _ALL
        if not text.isdigit():
            raise InvalidParameterError(
                f"{name} must be a positive integer (BLAS threads of sosproj's operations) or 'all' "
                f"(leave the BLAS library's own setting); got {value!r}")
        value = int(text)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputTypeError(f"{name} must be a positive integer or 'all'; got {type(value).__name__}")
    if value < 1:
        raise InvalidParameterError(f"{name} must be >= 1 (or 'all' for every core); got {value}")
    return value


def set_num_threads(threads: ThreadsLike) -> None:
    """Set the process-wide override of the policy (``None`` restores the policy / environment).

    >>> set_num_threads(2); configured_threads()
    2
    >>> set_num_threads(None)
    """
    global _override
    _override = None if threads is None else _check_threads(threads, "threads")


def configured_threads(threads: ThreadsLike = None) -> int | Literal["all"] | None:
    """The user's choice: ``threads`` if given, else :func:`set_num_threads`'s, else ``$SOSPROJ_NUM_THREADS``.

    ``None`` means "no choice: apply the policy".

    >>> configured_threads(3)
    3
    >>> configured_threads("all")
    'all'
    """
    if threads is not None:
        return _check_threads(threads, "threads")
    if _override is not None:
        return _override
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return _check_threads(env, ENV_VAR)
    return None


def policy_threads(threads: ThreadsLike = None) -> int | None:
    """BLAS threads of sosproj's operations: an integer limit, or ``None`` for "do not limit".

    The user's choice (see :func:`configured_threads`) if any, else :data:`DEFAULT_THREADS`.

    >>> policy_threads(), policy_threads(4), policy_threads("all") is None
    (1, 4, True)
    """
    chosen = configured_threads(threads)
    if chosen == _ALL:
        return None
    if chosen is not None:
        return int(chosen)
    return DEFAULT_THREADS


def _get_controller() -> Any:
    """A :class:`threadpoolctl.ThreadpoolController` of the loaded libraries (``None`` without threadpoolctl).

    Scanning the loaded libraries takes about a millisecond, limiting them about ten
    microseconds: the scan is cached and redone only when new modules were imported
    (a solver package loads its own BLAS, e.g. SCS's OpenBLAS).
    """
    global _controller, _controller_key
    with _controller_lock:
        key = len(sys.modules)
        if _controller is None or (_controller is not False and key != _controller_key):
            try:
                from threadpoolctl import ThreadpoolController
            except ImportError:  # pragma: no cover - threadpoolctl is a dependency
                _controller = False
            else:
                import numpy  # noqa: F401 - load numpy's and scipy's BLAS before scanning the libraries
                import scipy.linalg  # noqa: F401

                _controller = ThreadpoolController()
                _controller_key = len(sys.modules)
        return _controller or None


@contextlib.contextmanager
def blas_threads(threads: ThreadsLike = None) -> Iterator[int | None]:
    """Run the body with the policy's BLAS threads (see :func:`policy_threads`); yield the limit.

    ``None`` (yielded) means "not limited". Nested regions are nearly free: an inner
    region with the limit already in force changes nothing, and the limit is
    restored when the outermost region ends.

    >>> with blas_threads(1) as n:
    ...     n
    1
    """
    current = getattr(_state, "limit", None)  # None: no sosproj region is active in this thread
    outer_explicit = getattr(_state, "explicit", False)
    scanned = getattr(_state, "scanned", -1)  # len(sys.modules) when the current limit was applied
    if threads is None and outer_explicit:
        limit = current  # an enclosing blas_threads(N) chose for everything inside it
    else:
        limit = policy_threads(threads)
    if limit is None and current is None:
        changed = False  # no region limits anything: leave the libraries alone
    else:
        # a different limit, or libraries loaded since the limit was applied (e.g. scipy's or a
        # solver's own BLAS, imported inside an outer region): apply it (again)
        changed = limit != current or len(sys.modules) != scanned
    controller = _get_controller() if changed else None
    _state.limit, _state.explicit = limit, outer_explicit or threads is not None
    if controller is not None:
        _state.scanned = _controller_key
    try:
        if controller is None:  # nothing to change (or no threadpoolctl: the policy is a no-op)
            yield limit
        else:
            # None ('all') inside a limited region: the cores, as the libraries' default would
            apply = (os.cpu_count() or 1) if limit is None else limit
            with controller.limit(limits=apply, user_api="blas"):
                yield limit
    finally:
        _state.limit, _state.explicit, _state.scanned = current, outer_explicit, scanned


def with_thread_policy(func: F) -> F:
    """Decorator: run ``func`` inside :func:`blas_threads` (the default policy or the user's override).

    >>> @with_thread_policy
    ... def f():
    ...     return current_blas_threads()
    >>> f()  # the policy: one thread (unless SOSPROJ_NUM_THREADS says otherwise)
    1
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with blas_threads():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def active_limit() -> int | None:
    """The limit in force in this thread: the innermost :func:`blas_threads` region's, else the policy's.

    ``None`` means "not limited" (``all``).

    >>> with blas_threads(2):
    ...     active_limit()
    2
    """
    if getattr(_state, "limit", None) is not None or getattr(_state, "explicit", False):
        return _state.limit
    return policy_threads()


def current_blas_threads() -> int | None:
    """The smallest thread count the loaded BLAS libraries report now (``None`` if none is loaded).

    >>> with blas_threads(1):
    ...     current_blas_threads()
    1
    """
    controller = _get_controller()
    if controller is None:  # pragma: no cover
        return None
    counts = [lib.num_threads for lib in controller.lib_controllers if lib.user_api == "blas"]
    return min(counts) if counts else None


#: environment variable choosing the threads of sosproj's own compiled kernels apart from the BLAS threads
KERNEL_ENV_VAR = "SOSPROJ_KERNEL_THREADS"


def kernel_threads() -> int:
    """Threads of sosproj's own compiled kernels (the LNN dual's step, :mod:`sosproj.data.fused_kernel`), at most
    the cores: ``$SOSPROJ_KERNEL_THREADS`` if set (a positive integer, or ``all``: the cores), else the BLAS limit
    in force (:func:`active_limit`: the policy's 1 unless the user chose more, so one setting -- ``threads=``,
    ``SOSPROJ_NUM_THREADS``, ``sosproj --threads`` -- governs every thread sosproj starts). The kernels' threads
    wait on a lock when idle (no spinning), unlike BLAS threads, hence the separate variable: more kernel threads
    without more BLAS threads.

    >>> with blas_threads(1):
    ...     kernel_threads() if not os.environ.get(KERNEL_ENV_VAR) else 1
    1
    """
    cores = os.cpu_count() or 1
    env = os.environ.get(KERNEL_ENV_VAR, "").strip()
    limit: int | Literal["all"] | None = _check_threads(env, KERNEL_ENV_VAR) if env else active_limit()
    return cores if limit is None or limit == _ALL else max(1, min(int(limit), cores))


_pool: Any = None
_pool_size = 0
_pool_lock = threading.Lock()


def worker_pool(threads: int) -> Any:
    """A process-wide :class:`concurrent.futures.ThreadPoolExecutor` with at least ``threads - 1`` workers (the
    caller's own thread is the other one), created on first use and kept (idle workers wait on a lock: no spinning,
    so an idle pool costs nothing on a busy machine)."""
    global _pool, _pool_size
    from concurrent.futures import ThreadPoolExecutor

    need = max(int(threads) - 1, 1)
    with _pool_lock:
        if _pool is None or _pool_size < need:
            old = _pool
            _pool = ThreadPoolExecutor(max_workers=need, thread_name_prefix="sosproj-kernel")
            _pool_size = need
            if old is not None:             # its running tasks finish; new ones go to the larger pool
                old.shutdown(wait=False)
        return _pool


__all__ = ["DEFAULT_THREADS", "ENV_VAR", "KERNEL_ENV_VAR", "active_limit", "blas_threads", "configured_threads",
           "current_blas_threads", "kernel_threads", "policy_threads", "set_num_threads", "with_thread_policy",
           "worker_pool"]
