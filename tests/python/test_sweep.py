"""Sweeps: cartesian product, local processes, a Dask LocalCluster, and the sweep-file CLI."""
import subprocess
import sys

import pandas as pd
import pytest

import aidcsim
from aidcsim.sweep import points

PARAMS = {"fabric.oversubscription.leaf": [1, 2, 4],
          "cooling.flow_per_gpu": ["0.5 L/min", "1 L/min"]}


def test_points_cartesian_product():
    p = points(PARAMS)
    assert len(p) == 6
    assert p[0] == {"fabric.oversubscription.leaf": 1, "cooling.flow_per_gpu": "0.5 L/min"}
    assert p[1] == {"fabric.oversubscription.leaf": 1, "cooling.flow_per_gpu": "1 L/min"}
    with pytest.raises(ValueError):
        points({"a": []})


@pytest.fixture(scope="module")
def alone(small_scenario):
    """Each point run on its own, in this process."""
    rows = []
    for p in points(PARAMS):
        s = small_scenario.copy()
        s.update(p)
        rows.append(aidcsim.run(s).summary)
    return rows


def _check(df, alone):
    assert len(df) == 6
    assert list(df.columns[:2]) == list(PARAMS)
    for i, expected in enumerate(alone):
        for k, v in expected.items():
            assert df.loc[i, k] == v or (pd.isna(df.loc[i, k]) and pd.isna(v)), (i, k)


def test_sweep_on_dask_local_cluster_matches_single_runs(small_scenario, alone):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        df = aidcsim.sweep(small_scenario, PARAMS, client=client)
    _check(df, alone)
    assert df.attrs["units"]


def test_sweep_on_local_processes_matches_single_runs(small_scenario, alone):
    df = aidcsim.sweep(small_scenario, PARAMS, processes=2)
    _check(df, alone)


def test_sweep_records_bad_points(small_scenario):
    df = aidcsim.sweep(small_scenario, {"fabric.link_rate": ["400 Gbps", "400 GB"]}, processes=1,
                       errors="record")
    assert pd.isna(df.loc[0, "error"]) and "fabric.link_rate" in df.loc[1, "error"]
    with pytest.raises(aidcsim.ScenarioError):
        aidcsim.sweep(small_scenario, {"fabric.link_rate": ["400 GB"]}, processes=1)


def test_sweep_file_cli(small_scenario, tmp_path, root):
    base = tmp_path / "base.yaml"
    base.write_text(small_scenario.to_yaml())
    (tmp_path / "sweep.yaml").write_text(
        "base: base.yaml\nparameters:\n  fabric.oversubscription.leaf: [1, 2]\noutput: out.csv\n")
    r = subprocess.run([sys.executable, "-m", "aidcsim.sweep", str(tmp_path / "sweep.yaml"), "-j", "1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    df = pd.read_csv(tmp_path / "out.csv")
    assert len(df) == 2 and "fabric.oversubscription.leaf" in df.columns
