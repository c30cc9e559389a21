"""aidcsim._native.core(): only a missing extension gets the build hint; a Ctrl-C during the import
stays a KeyboardInterrupt and other import failures keep their own message."""
import importlib.abc
import importlib.util
import sys

import pytest

from aidcsim import _native

NAME = "aidcsim._core"


class _FailingLoader(importlib.abc.Loader):
    """Stands in for the extension loader: exec_module raises what the test asks for."""

    def __init__(self, make_error):
        self.make_error = make_error

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        raise self.make_error()


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, make_error):
        self.loader = _FailingLoader(make_error)

    def find_spec(self, fullname, path, target=None):
        if fullname == NAME:
            return importlib.util.spec_from_loader(fullname, self.loader)
        return None


@pytest.fixture
def fresh(monkeypatch):
    """core() imports afresh; sys.modules, sys.meta_path and the cache are restored after."""
    monkeypatch.setattr(_native, "_core", None)
    monkeypatch.delitem(sys.modules, NAME, raising=False)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))

    def failing_with(make_error):
        sys.meta_path.insert(0, _Finder(make_error))
    return failing_with


def _pybind_init_error(cause):
    """What PYBIND11_CATCH_INIT_EXCEPTIONS raises when module init sees a Python error."""
    def make():
        try:
            raise cause
        except BaseException as e:
            err = ImportError("initialization failed")
            err.__cause__ = e
            return err
    return make


def test_missing_module_gets_build_hint(monkeypatch):
    monkeypatch.setattr(_native, "_core", None)
    monkeypatch.setitem(sys.modules, NAME, None)  # import of aidcsim._core halted: not found
    with pytest.raises(ImportError, match="is not built"):
        _native.core()
    assert _native.has("run") is False


def test_ctrl_c_in_module_init_is_keyboard_interrupt(fresh):
    fresh(_pybind_init_error(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        _native.core()


def test_ctrl_c_during_import_is_keyboard_interrupt(fresh):
    fresh(KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        _native.core()
    fresh(KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        _native.has("run")


def test_other_import_error_keeps_its_message(fresh):
    msg = "_core.so: undefined symbol: _ZN7aidcsim3runEv"
    fresh(lambda: ImportError(msg))
    with pytest.raises(ImportError) as info:
        _native.core()
    assert str(info.value) == msg
    assert "not built" not in str(info.value)


def test_other_init_error_keeps_its_message(fresh):
    fresh(_pybind_init_error(RuntimeError("numpy ABI mismatch")))
    with pytest.raises(ImportError) as info:
        _native.core()
    assert str(info.value) == "initialization failed"
    assert isinstance(info.value.__cause__, RuntimeError)
