"""`pip install` of the package, as a user without the build tree would: the documented command
builds the compiled core with CMake (setup.py) and installs into a temporary prefix; with only that
prefix on the path, `import aidcsim` runs a scenario and `python3 -m aidcsim` runs the CLI's Python
commands. (The CMake package is tested by ctest's install_consumer, tests/install/.)"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory):
    pytest.importorskip("pip")
    prefix = tmp_path_factory.mktemp("prefix")
    env = dict(os.environ, PIP_ROOT_USER_ACTION="ignore", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                           "--prefix", str(prefix), "."], cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    found = sorted(prefix.rglob("aidcsim/__init__.py"))   # Debian's scheme: <prefix>/local/lib/python3.X/dist-packages
    assert len(found) == 1, found
    return found[0].parent.parent


def _python(site_dir, cwd, *args):
    """/usr/bin/python3 with only the prefix's site directory added (no build tree, no sources)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site_dir)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_installed_package_runs_a_scenario(site_dir, tmp_path):
    code = """
import json, aidcsim
s = aidcsim.Scenario.default()
s.update({"cluster.gpus": 576, "workload.parallelism.dp": 8, "workload.global_batch": 144})
r = aidcsim.run(s)
r.to_hdf5("run.h5")
print(json.dumps({"file": aidcsim.__file__, "version": aidcsim.__version__, "core": aidcsim.core_version,
                  "step_time": r.summary["step_time"]}))
"""
    proc = _python(site_dir, tmp_path, "-c", code)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert pathlib.Path(out["file"]).is_relative_to(site_dir)        # not the build tree
    assert out["version"] == out["core"]                             # one version, from CMake
    assert out["step_time"] > 0
    assert (tmp_path / "run.h5").stat().st_size > 0

    rep = _python(site_dir, tmp_path, "-m", "aidcsim", "report", "run.h5", "--out", "plots")
    assert rep.returncode == 0, rep.stderr
    assert list((tmp_path / "plots").glob("*.png"))


def test_python_m_aidcsim_commands(site_dir, tmp_path):
    v = _python(site_dir, tmp_path, "-m", "aidcsim", "version")
    assert v.returncode == 0 and v.stdout.startswith("aidcsim "), v.stderr
    h = _python(site_dir, tmp_path, "-m", "aidcsim", "sweep", "--help")
    assert h.returncode == 0 and "sweep_file" in h.stdout, h.stderr
    bad = _python(site_dir, tmp_path, "-m", "aidcsim", "simulate")
    assert bad.returncode == 64 and "unknown command" in bad.stderr
