"""Local worker processes that do not outlive the process that started them.

A process pool's workers are separate processes: when their parent is killed with SIGKILL (the OOM
killer, a batch scheduler's hard stop, `kill -9`), nothing in the parent can run, and its workers
would be reparented to init and keep simulating until their current point ends (minutes for a
large scenario; case ../shared/cases/input/10, for sweep/compare). On Linux each worker therefore
asks the kernel for SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG); the multiprocessing
resource tracker then sees its pipe close and exits too. Elsewhere, the workers end after their
current task (the task queue closes).
"""
import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(parent_pid):
    """ProcessPoolExecutor initializer (initargs=(os.getpid(),) in the parent): SIGKILL this
    worker when the parent dies. The death signal is tied to the parent thread that started the
    worker, so the pool must be used from a thread that outlives it (a ``with`` block in the
    thread that submits, as sweep, compare and run(isolate=True) do). If the parent died before
    this ran, the worker ends at once."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no libc symbol: fall back to ending after the task
            pass
    if os.getppid() != parent_pid:
        os._exit(1)


def terminate(executor):
    """Stops a ProcessPoolExecutor now: its workers get SIGTERM (their current task is lost) and its
    queued tasks are dropped; returns without waiting. For Ctrl-C or an error while waiting on it,
    where shutdown(wait=True) would run every queued task first."""
    for proc in list((getattr(executor, "_processes", None) or {}).values()):
        proc.terminate()
    executor.shutdown(wait=False, cancel_futures=True)
