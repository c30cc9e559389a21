"""Examples of docs/python.md that are meant to be saved as a script and run with `python3 FILE`
(not pasted into a REPL or a notebook): each block after a `<!-- script: tests/python/...::NAME -->`
marker is written to a file and run as __main__ in a fresh interpreter, as a user would."""
import os
import pathlib
import subprocess
import sys

import pytest

import aidcsim

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _script(name):
    text = (ROOT / "docs" / "python.md").read_text()
    at = text.index(f"<!-- script: tests/python/test_docs_scripts.py::{name} -->")
    start = text.index("```python\n", at) + len("```python\n")
    return text[start:text.index("```", start)]


def test_sweep_script(tmp_path):
    # A sweep on local processes (multiprocessing spawn re-imports the script in every worker):
    # the documented script runs as __main__ and prints one row per point.
    path = tmp_path / "sweep_study.py"
    path.write_text(_script("test_sweep_script"))
    env = dict(os.environ)
    env["PYTHONPATH"] = str(pathlib.Path(aidcsim.__file__).resolve().parents[1])
    p = subprocess.run([sys.executable, str(path)], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    rows = [line.split() for line in p.stdout.splitlines() if line.split()[:1] in (["rail_optimized"], ["rack_local"])]
    assert [r[:2] for r in rows] == [["rail_optimized", "1"], ["rail_optimized", "4"], ["rack_local", "1"],
                                     ["rack_local", "4"]], p.stdout
    step = {(r[0], r[1]): float(r[2]) for r in rows}
    # The example's point: each DP replica is one NVL72 rack, so only the gradient reduction crosses
    # the fabric. Rail-optimized, it stays on its rail and a 4:1 leaf costs nothing (up to ECMP's hash
    # draw); rack-local, it crosses the spines and 4:1 lengthens the step (11 % when written). The
    # example it replaced swept the leaf ratio on rail-optimized wiring only: its points were equal.
    assert step["rail_optimized", "4"] == pytest.approx(step["rail_optimized", "1"], rel=1e-3), p.stdout
    assert step["rack_local", "1"] >= step["rail_optimized", "1"] * (1 - 1e-3), p.stdout
    assert step["rack_local", "4"] >= step["rack_local", "1"] * 1.05, p.stdout
