"""Examples of docs/python.md that are meant to be saved as a script and run with `python3 FILE`
(not pasted into a REPL or a notebook): each block after a `<!-- script: tests/python/...::NAME -->`
marker is written to a file and run as __main__ in a fresh interpreter, as a user would."""
import os
import pathlib
import subprocess
import sys

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
    rows = [line.split() for line in p.stdout.splitlines() if line[:1].isdigit()]
    assert [r[1] for r in rows] == ["1", "4"], p.stdout
    # More leaf oversubscription never makes the step faster, up to ECMP's hash draw: the two
    # fabrics hash flows onto different uplinks (under the default rank order the DP rings hardly
    # leave a leaf, so 1:1 and 4:1 differed by 1e-5 relative, the 4:1 fabric the faster).
    assert float(rows[1][2]) >= float(rows[0][2]) * (1 - 1e-3), p.stdout
