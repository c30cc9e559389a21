"""Exit codes of the Python commands (`aidcsim report|sweep|compare`, `python3 -m aidcsim`): the C++
CLI's (sim/cli/commands.hpp, docs/cli.md): 64 for a usage error, 2 for an invalid scenario or
sweep file, 1 for an error. argparse alone would exit 2 on a usage error."""
import os
import subprocess
import sys

import pytest

USAGE, INVALID, ERROR = 64, 2, 1


def _python_m(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "aidcsim", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env=os.environ.copy())


@pytest.mark.parametrize("args", [
    ["report"],                                   # missing RESULTS.h5
    ["report", "r.h5", "--frobnicate"],           # unknown option
    ["report", "r.h5", "--out"],                  # option without its value
    ["sweep"],                                    # missing SWEEP.yaml
    ["sweep", "s.yaml", "-j", "two"],             # not an integer
    ["sweep", "s.yaml", "--frobnicate"],
    ["compare"],                                  # no design file
    ["compare", "--set", "a=1", "a.yaml"],        # --set before any design
    ["compare", "a.yaml", "--seeds", "many"],     # not an integer
    # -j out of 0..limits.MAX_PROCESSES (case input/11's kind, a number out of range on the command
    # line): on 1e9e09c `compare -j 2**64` was an OverflowError traceback (exit 1), `compare -j -1`
    # ran, `sweep -j -1` was exit 2 (an invalid sweep file).
    ["compare", "a.yaml", "-j", "-1"],
    ["compare", "a.yaml", "-j", "18446744073709551616"],
    ["compare", "a.yaml", "-j", "4097"],
    ["sweep", "s.yaml", "-j", "-1"],
    ["sweep", "s.yaml", "-j", "18446744073709551616"],
    ["frobnicate"],                               # unknown command
    [],                                           # no command
])
def test_usage_errors_exit_64(args, tmp_path):
    r = _python_m(*args, cwd=tmp_path)
    assert r.returncode == USAGE, (args, r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    if args and args[0] in ("report", "sweep", "compare"):
        assert f"aidcsim {args[0]}: error: " in r.stderr and "usage:" in r.stderr


@pytest.mark.parametrize("command", ["report", "sweep", "compare"])
def test_help_exits_0(command):
    r = _python_m(command, "--help")
    assert r.returncode == 0 and "usage:" in r.stdout, r.stderr


def test_through_the_cxx_cli(cli, tmp_path):
    """The C++ CLI passes the Python command's exit code through (it execs the interpreter)."""
    for args in (["report", "--frobnicate"], ["sweep", "s.yaml", "-j", "two"], ["compare"]):
        r = subprocess.run([str(cli), *args], capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert r.returncode == USAGE, (args, r.returncode, r.stderr)
    r = subprocess.run([str(cli), "frobnicate"], capture_output=True, text=True, timeout=60)
    assert r.returncode == USAGE


def test_invalid_sweep_file_exits_2_and_errors_1(tmp_path, default_path):
    (tmp_path / "zip.yaml").write_text(f"base: {default_path}\nzip: {{a: [1, 2], b: [1]}}\n")
    r = _python_m("sweep", str(tmp_path / "zip.yaml"), cwd=tmp_path)
    assert r.returncode == INVALID and "one length" in r.stderr and "zip.yaml" in r.stderr, r.stderr
    (tmp_path / "key.yaml").write_text(f"base: {default_path}\nparameters: {{seed: [1]}}\nfrobnicate: 1\n")
    r = _python_m("sweep", str(tmp_path / "key.yaml"), cwd=tmp_path)
    assert r.returncode == INVALID and "unknown sweep key 'frobnicate'" in r.stderr, r.stderr
    r = _python_m("report", str(tmp_path / "missing.h5"), cwd=tmp_path)
    assert r.returncode == ERROR, r.stderr


def test_processes_out_of_range_is_a_parameter_error():
    """compare(processes=...) is checked as sweep(processes=...) is, before any design loads."""
    import aidcsim
    for bad in (-1, 2**64, aidcsim.limits.MAX_PROCESSES + 1):
        with pytest.raises(aidcsim.ParameterError, match="processes: got"):
            aidcsim.compare(["no-such-design.yaml"], seeds=1, processes=bad)
