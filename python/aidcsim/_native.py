"""Lazy access to the compiled module aidcsim._core (pybind11, python/bindings/*.cpp), so the pure
Python parts (Scenario, plots over HDF5 files) import even where the extension is not built."""

_core = None


def core():
    """The aidcsim._core extension module. Raises ImportError with build instructions if absent."""
    global _core
    if _core is None:
        try:
            from . import _core as mod
        except ImportError as e:  # pragma: no cover - depends on the build
            raise ImportError(
                "aidcsim._core is not built: run `cmake --build build --target _core aidcsim_python` "
                "and use PYTHONPATH=build/python") from e
        _core = mod
    return _core


def has(name):
    """True when the compiled module exposes `name` (bindings follow what the C++ offers)."""
    try:
        return hasattr(core(), name)
    except ImportError:
        return False
