"""run(): one simulation from a path, a Scenario or a dict.

The scenario is handed to the C++ loader as YAML text, so validation and error messages are those
of ``aidcsim run``. The simulation runs in this process (from any thread; one at a time, under a
lock: a notebook callback or a Dask worker's task thread, with threads or process workers), or in
a fresh child process when ``isolate=True`` or ``aidcsim.runner.ISOLATE = True`` (spawn context;
the result comes back as pickled plain data and exceptions arrive as the same aidcsim exception
classes; not from a daemonic process such as a Dask worker).
"""

import concurrent.futures as _cf
import multiprocessing as _mp
import os
import threading

from . import _args, _native, _workers, limits
from . import progress as _progress
from .errors import ScenarioError
from .results import Results
from .scenario import Scenario, as_scenario

#: Default for run(isolate=None). False: the engine restarts in-process (tested in
#: tests/python/test_run.py::test_two_runs_in_one_process).
ISOLATE = False

_lock = threading.RLock()


def _simulate_text(text, name, seed, progress=None):
    """Runs the C++ pipeline on YAML text in this process; returns the plain result data."""
    core = _native.core()
    with _lock:
        return core.run_text(text, name, -1 if seed is None else int(seed), progress)


def _child_entry(text, name, seed):
    return _simulate_text(text, name, seed)


def _simulate_isolated(text, name, seed):
    ctx = _mp.get_context("spawn")
    ex = _cf.ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=_workers.die_with_parent,
                                 initargs=(os.getpid(),))
    try:
        result = ex.submit(_child_entry, text, name, seed).result()
    except Exception:
        ex.shutdown(wait=True)   # the child's run ended with this error
        raise
    except BaseException:
        # Ctrl-C that reached this process alone (kill -INT PID; a terminal signals the whole
        # process group): stop the child rather than wait, in a `with` block's shutdown, for its
        # run to end (as sweep's _run_locally does).
        _workers.terminate(ex)
        raise
    ex.shutdown(wait=True)
    return result


def run(scenario=None, seed=None, progress=None, isolate=None):
    """Simulates one scenario end to end (C++ ``aidcsim::simulate``).

    Parameters
    ----------
    scenario : str | os.PathLike | Scenario | dict | None
        A YAML file path, a Scenario, or a nested dict (dotted top-level keys allowed). None runs
        the bundled default scenario (scenarios/stargate-uk-8k.yaml).
    seed : int, optional
        Overrides the scenario's ``seed``: an integer from 0 to 2**53 - 1, like ``aidcsim run
        --seed`` (same scenario + seed -> identical results).
    progress : bool | callable, optional
        True: a progress bar on stderr (tqdm, python3-tqdm). A callable is called as
        ``progress(stage, fraction)`` (str, float in [0, 1]) at each stage of the run, in the
        calling thread; an exception it raises stops the run and propagates (how a "stop"
        button cancels a run). Not reported for isolated runs.
    isolate : bool, optional
        Run in a child process. Default: ``aidcsim.runner.ISOLATE`` (False). The child is
        started with multiprocessing's spawn, which re-imports the calling script: in a script
        run as ``python3 FILE``, call under ``if __name__ == "__main__":`` (else the child fails
        at start-up and this raises BrokenProcessPool), as for sweep() and compare().

    Returns
    -------
    Results

    Raises
    ------
    ScenarioError (a ValueError)
        Invalid scenario; ``.file`` is the original path, ``.line``/``.column`` point into it
        (0 for keys set from Python), ``.key``, ``.value``, ``.expected``, ``.hint``.
    SimulationError (a RuntimeError)
        Valid input but the simulation cannot proceed.
    FileError (an OSError)
        The scenario file cannot be read.
    ParameterError, ArgumentTypeError (a ValueError, a TypeError)
        ``seed`` out of range or not an integer, ``isolate`` not a bool, ``scenario`` of another type.
    KeyboardInterrupt
        Ctrl-C (SIGINT): the run stops at its next cancellation point and the interpreter (or
        Jupyter kernel) goes on; a run on another thread raises it there too (the main thread gets
        Python's own), an isolated run's child process is stopped. ``Cancelled`` after ``aidcsim.cancel()``.
    """
    if seed is not None:
        seed = _args.integer(seed, "seed", 0, limits.MAX_SEED)
    if isolate is not None:
        isolate = _args.flag(isolate, "isolate")
    s = Scenario.default() if scenario is None else as_scenario(scenario)
    text, name = s._source()
    isolate = ISOLATE if isolate is None else isolate
    callback, bar = (None, None) if isolate else _progress.callback(progress, desc=str(s.get("name", "aidcsim")))
    try:
        raw = _simulate_isolated(text, name, seed) if isolate else _simulate_text(text, name, seed, callback)
    except ScenarioError as e:
        raise s.relocate(e) from None
    finally:
        if bar is not None:
            bar.close()
    return Results(raw)


def cancel():
    """Asks the run in progress (in this process, from any thread: a notebook button, a timer) to
    stop at its next cancellation point; that run raises aidcsim.Cancelled. No effect when nothing
    runs (each run starts uncancelled)."""
    _native.core().request_cancel()


def run_plain(text, name, seed=None):
    """Plain-data entry point for worker processes: YAML text in, result dict out."""
    return _simulate_text(text, name, seed)


def validate(scenario):
    """Validates a path, Scenario or dict as ``aidcsim validate`` does (the same C++ checks: the
    loader, then what run() checks before simulating), without running it. Returns the SI values
    {dotted key: value} as a ``Validated`` dict with ``.warnings`` and ``.notes`` (Scenario.validate);
    raises ScenarioError like run()."""
    return as_scenario(scenario).validate()


def _cpu_count():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
