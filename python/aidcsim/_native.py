"""Lazy access to the compiled module aidcsim._core (pybind11, python/bindings/*.cpp), so the pure
Python parts (Scenario, plots over HDF5 files) import even where the extension is not built."""

import importlib

_CORE_NAME = __name__.rpartition(".")[0] + "._core"
_core = None


def _interrupt_behind(err):
    """The KeyboardInterrupt in err's cause/context chain, or None. pybind11's module init
    (PYBIND11_CATCH_INIT_EXCEPTIONS) turns any Python error raised while _core initialises, a
    Ctrl-C included, into ImportError("initialization failed") raised from the original."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return err
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return None


def core():
    """The aidcsim._core extension module.

    Raises ImportError with build instructions only when the module is absent; any other
    ImportError (e.g. an undefined symbol in a stale build) propagates with its own message, and a
    Ctrl-C during the import propagates as KeyboardInterrupt."""
    global _core
    if _core is None:
        try:
            mod = importlib.import_module(_CORE_NAME)
        except ImportError as e:
            interrupt = _interrupt_behind(e)
            if interrupt is not None:
                raise interrupt
            if isinstance(e, ModuleNotFoundError) and e.name == _CORE_NAME:
                raise ImportError(
                    "aidcsim._core is not built: run `cmake --build build --target _core "
                    "aidcsim_python` and use PYTHONPATH=build/python") from e
            raise
        _core = mod
    return _core


def has(name):
    """True when the compiled module exposes `name` (bindings follow what the C++ offers)."""
    try:
        return hasattr(core(), name)
    except ImportError:
        return False
