"""Every public function, class and method of the package has a docstring (help() is what a
researcher reads first; the developers' guide asks for shapes, units and errors on each)."""
import inspect

import aidcsim
import aidcsim.report
import aidcsim.thermal


def _public_api():
    seen = {}
    for mod in (aidcsim, aidcsim.thermal, aidcsim.report):
        names = getattr(mod, "__all__", None) or list(vars(mod))   # aidcsim loads Fabric lazily
        for name in names:
            obj = getattr(mod, name)
            if name.startswith("_") or inspect.ismodule(obj):
                continue
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not obj.__module__.startswith("aidcsim"):
                continue
            seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    func = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
                    if inspect.isfunction(func) or isinstance(member, property):
                        seen[f"{obj.__module__}.{obj.__qualname__}.{attr}"] = member
    return seen


def test_public_api_has_docstrings():
    api = _public_api()
    assert "aidcsim.fabric.Fabric.links" in api and "aidcsim.scenario.Scenario.copy" in api
    missing = sorted(name for name, obj in api.items() if not (inspect.getdoc(obj) or "").strip())
    assert missing == []
