"""Every public function, class and method of the package has a docstring, and help(aidcsim)'s
example runs as written (help() is what a researcher reads first; the developers' guide asks for
shapes, units and errors on each)."""
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


def test_package_docstring_example_runs(root, tmp_path, monkeypatch):
    # help(aidcsim)'s example is what a new user copies first. It swept cluster.gpus alone (every
    # point a ScenarioError: tp x pp x dp no longer equals the GPU count) and read a sweep.csv it
    # had not written (FileError).
    lines = [line[4:] for line in aidcsim.__doc__.splitlines() if line.startswith("    ")]
    assert any("aidcsim.sweep(" in line for line in lines)
    (tmp_path / "scenarios").symlink_to(root / "scenarios")
    monkeypatch.chdir(tmp_path)
    exec(compile("\n".join(lines), "aidcsim.__doc__", "exec"), {})
    assert (tmp_path / "out.h5").exists() and (tmp_path / "sweep.csv").exists()
