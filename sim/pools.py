"""Process pools whose workers end with the process that started them.

`advise` killed with SIGTERM left its workers simulating days under PID 1 for up to 26
minutes, holding the caller's pipes open, so a caller waiting for the output's end waited
that long; a Ctrl-C waited for every running day to finish. Here each worker has the kernel
kill it when its parent dies (Linux's PR_SET_PDEATHSIG; elsewhere a thread of its own
watches its parent's id), and a parent leaving its pool by an exception (Ctrl-C, a closed
pipe, an error) kills the workers instead of waiting for their days. A terminal's Ctrl-C,
sent to the whole process group, is the parent's to handle: the workers ignore it.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the signal this process gets when the thread that forked it ends."""
WATCH_S = 0.2
"""How often a worker without PR_SET_PDEATHSIG looks whether its parent is still there."""


def local_pool(workers: int, fork: bool = False) -> ProcessPoolExecutor:
    """A pool of `workers` processes that end with this one: forked with `fork` (the
    caller has checked the platform can), else started the platform's default way."""
    context = multiprocessing.get_context("fork" if fork else None)
    # a forkserver's workers are its children, not this process's; it ends with this one
    parent = 0 if context.get_start_method() == "forkserver" else os.getpid()
    return ProcessPoolExecutor(
        workers, mp_context=context, initializer=_worker_start, initargs=(parent,)
    )


def _worker_start(parent: int) -> None:
    """A worker's first act: end when its parent ends (`parent`, or 0 for the one it has
    now), leave Ctrl-C to it, and freeze what it starts with (the parent's modules) out of
    the cyclic collector's full passes, which a day's many objects trigger: days ran 5-8 %
    faster."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = parent or os.getppid()
    if not _killed_with_parent():
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # it died before the kernel or the thread was told to look
        os._exit(1)
    gc.freeze()


def _killed_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; whether it could."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)  # the interpreter's own symbols, the C library's among them
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):  # a C library without prctl
        return False


def _watch(parent: int) -> None:
    """End this worker once its parent is gone (it was given another parent)."""
    while os.getppid() == parent:
        time.sleep(WATCH_S)
    os._exit(1)


def end_now(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's workers, not waiting for the tasks they run."""
    kill = getattr(pool, "kill_workers", None)  # Python 3.14's own
    if kill is not None:
        kill()
        return
    for process in list((pool._processes or {}).values()):
        with contextlib.suppress(OSError):  # already gone
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


@contextlib.contextmanager
def ending_with_caller(pool: ProcessPoolExecutor | None) -> Iterator[None]:
    """Shut the pool down after the block: at once, killing its workers, if the block is
    left by an exception (a Ctrl-C, a closed pipe); else once its tasks are done."""
    try:
        yield
    except BaseException:
        if pool is not None:
            end_now(pool)
        raise
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
