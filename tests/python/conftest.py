"""Shared fixtures of the Python tests. Run from the repo root:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest -q tests/python
"""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "scenarios" / "stargate-uk-8k.yaml"
# The CLI next to the imported package (build/python/aidcsim -> build/bin/aidcsim).


def _cli():
    import aidcsim
    build = pathlib.Path(aidcsim.__file__).resolve().parents[2]
    exe = build / "bin" / "aidcsim"
    return exe if exe.exists() else None


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def default_path():
    return DEFAULT


@pytest.fixture(scope="session")
def cli():
    exe = _cli()
    if exe is None:
        pytest.skip("build/bin/aidcsim not built")
    return exe


def small(scenario):
    """A 576-GPU variant (8 NVL72 racks): same model and parallelism per replica, dp = 8, so each
    test run takes seconds while exercising every stage of the pipeline."""
    s = scenario.copy()
    s["cluster.gpus"] = 576
    s["workload.parallelism.dp"] = 8
    s["workload.global_batch"] = 144  # 18 microbatches per replica: a multiple of pp = 9 (interleaved)
    return s


@pytest.fixture(scope="session")
def small_scenario():
    import aidcsim
    return small(aidcsim.Scenario.load(DEFAULT))


@pytest.fixture(scope="session")
def small_results(small_scenario):
    import aidcsim
    return aidcsim.run(small_scenario)


@pytest.fixture
def bad_file(tmp_path):
    """Writes the default scenario with one line replaced; returns (path, 1-based line number)."""
    def make(old, new, name="bad.yaml"):
        text = DEFAULT.read_text()
        assert old in text, old
        line = text[: text.index(old)].count("\n") + 1
        p = tmp_path / name
        p.write_text(text.replace(old, new, 1))
        return p, line
    return make
