"""Sweeps: cartesian product, local processes, Dask (thread and process workers, a separately
started scheduler and workers), failures recorded, progress, and the sweep-file CLI."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import pandas as pd
import pytest

import aidcsim
from aidcsim.sweep import design_points, points, read_csv, to_csv

ROOT = pathlib.Path(__file__).resolve().parents[2]

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
    header = (tmp_path / "out.csv").read_text().splitlines()[0].split(",")
    # the units are in the CSV itself, for a spreadsheet: summary values as "NAME [UNIT]"
    assert header[0] == "fabric.oversubscription.leaf"
    assert {"step_time [s]", "mfu [%]", "time_to_train [d]", "coolant_inlet [degC]", "gpus [1]"} <= set(header)
    assert not any(h in ("step_time", "mfu", "gpus") for h in header)
    df = read_csv(tmp_path / "out.csv")
    assert len(df) == 2 and "fabric.oversubscription.leaf" in df.columns
    assert df.attrs["units"]["step_time"] == "s" and (df["step_time"] > 0).all()
    # Named variants of the design (no product): one row each, named in the `variant` column.
    (tmp_path / "variants.yaml").write_text(
        "base: base.yaml\nvariants:\n  clos: {}\n  leaf-spine-128: {fabric.topology: leaf_spine, "
        "fabric.switch_radix: 128}\nseed: 7\noutput: variants.csv\n")
    r = subprocess.run([sys.executable, "-m", "aidcsim.sweep", str(tmp_path / "variants.yaml"), "-j", "1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    df = read_csv(tmp_path / "variants.csv")
    assert list(df["variant"]) == ["clos", "leaf-spine-128"]
    assert df.loc[1, "switches"] < df.loc[0, "switches"]
    (tmp_path / "bad.yaml").write_text("base: base.yaml\nzip: {a: [1, 2], b: [1]}\n")
    r = subprocess.run([sys.executable, "-m", "aidcsim.sweep", str(tmp_path / "bad.yaml")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and "one length" in r.stderr  # an invalid sweep file


def test_csv_units_in_header_round_trip(tmp_path):
    df = pd.DataFrame({"variant": ["a", "b"], "fabric.link_rate": ["400 Gbps", "800 Gbps"], "seed": [1, 2],
                       "step_time": [6.5, 6.25], "mfu": [41.5, 43.0], "gpus": [576.0, 576.0],
                       "tokens_per_second": [1e6, 1.1e6], "error": [None, None]})
    df.attrs["units"] = {"step_time": "s", "mfu": "%", "gpus": "1", "tokens_per_second": "1/s"}
    text = to_csv(df)
    assert text.splitlines()[0] == ("variant,fabric.link_rate,seed,step_time [s],mfu [%],gpus [1],"
                                    "tokens_per_second [1/s],error")
    assert list(df.columns)[3] == "step_time"        # the DataFrame itself is not renamed
    (tmp_path / "s.csv").write_text(text)
    back = read_csv(tmp_path / "s.csv")
    assert list(back.columns) == list(df.columns) and back.attrs["units"] == df.attrs["units"]
    pd.testing.assert_frame_equal(back.drop(columns="error"), df.drop(columns="error"))
    # a CSV written before the units were in the header reads with no units
    (tmp_path / "old.csv").write_text("seed,step_time\n1,6.5\n")
    old = read_csv(tmp_path / "old.csv")
    assert list(old.columns) == ["seed", "step_time"] and old.attrs["units"] == {}
    assert aidcsim.sweep_to_csv is to_csv and aidcsim.read_sweep_csv is read_csv


def test_design_points_variants_zip_product():
    pts = design_points({"c": [1, 2]}, zipped={"a": [1, 2], "b": ["x", "y"]}, variants={"v": {"d": 0}, "w": {}})
    assert len(pts) == 2 * 2 * 2
    assert pts[0] == ({"variant": "v", "a": 1, "b": "x", "c": 1}, {"d": 0, "a": 1, "b": "x", "c": 1})
    assert pts[1][0] == {"variant": "v", "a": 1, "b": "x", "c": 2}                       # product fastest
    assert pts[2][0] == {"variant": "v", "a": 2, "b": "y", "c": 1}                       # zipped: a and b together
    assert pts[4] == ({"variant": "w", "a": 1, "b": "x", "c": 1}, {"a": 1, "b": "x", "c": 1})
    assert design_points(variants={"only": {"d": 1}}) == [({"variant": "only"}, {"d": 1})]
    with pytest.raises(ValueError, match="one length"):
        design_points(zipped={"a": [1, 2], "b": [1]})
    with pytest.raises(ValueError, match="both in parameters and zip"):
        design_points({"a": [1]}, zipped={"a": [2]})
    with pytest.raises(ValueError, match="sets swept keys"):
        design_points({"a": [1]}, variants={"v": {"a": 3}})
    with pytest.raises(ValueError, match="needs parameters"):
        design_points()


def test_sweep_zipped_with_seed_replicates_matches_single_runs(small_scenario):
    zipped = {"fabric.oversubscription.leaf": ["1:1", "2:1"], "cooling.flow_per_gpu": ["1 L/min", "0.5 L/min"]}
    df = aidcsim.sweep(small_scenario, zipped=zipped, seeds=2, processes=2)
    assert list(df["seed"]) == [42, 43, 42, 43]
    assert list(df["fabric.oversubscription.leaf"]) == ["1:1", "1:1", "2:1", "2:1"]
    assert list(df["cooling.flow_per_gpu"]) == ["1 L/min", "1 L/min", "0.5 L/min", "0.5 L/min"]
    s = small_scenario.copy()
    s.update({"fabric.oversubscription.leaf": "2:1", "cooling.flow_per_gpu": "0.5 L/min"})
    alone = aidcsim.run(s, seed=43).summary
    for k in ("step_time", "time_to_train_p50", "max_gpu_temperature"):
        assert df.loc[3, k] == alone[k], k  # bit for bit
    assert df.loc[2, "step_time"] != df.loc[3, "step_time"]  # another seed, another ECMP draw


# -- Dask process workers and a separately started cluster ----------------------------------------

def _docs_example():
    """The Dask example of docs/python.md, as written there (the block after its 'tested' marker)."""
    text = (ROOT / "docs" / "python.md").read_text()
    at = text.index("<!-- tested: tests/python/test_sweep.py::test_docs_dask_example -->")
    start = text.index("```python\n", at) + len("```python\n")
    return text[start:text.index("```", start)]


def test_docs_dask_example(monkeypatch, capsys):
    # LocalCluster(processes=True): each worker is a daemonic process; every point runs there.
    pytest.importorskip("distributed")
    monkeypatch.chdir(ROOT)
    env = {}
    exec(compile(_docs_example(), "docs/python.md", "exec"), env)
    df = env["df"]
    assert len(df) == 4 and "error" not in df.columns, df.get("error")
    s = env["s"]
    for i, p in enumerate(points(env["params"])):
        one = s.copy()
        one.update(p)
        assert df.loc[i, "step_time"] == aidcsim.run(one).summary["step_time"], p   # bit for bit
    assert df.attrs["units"]["step_time"] == "s"


def test_failed_points_are_recorded_on_process_workers(small_scenario):
    distributed = pytest.importorskip("distributed")
    params = {"fabric.link_rate": ["400 Gbps", "400 GB", "800 Gbps", "-1 Gbps"]}
    seen = []
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        df = aidcsim.sweep(small_scenario, params, client=client, errors="record",
                           progress=lambda stage, f: seen.append(f))
        with pytest.raises(aidcsim.ScenarioError):
            aidcsim.sweep(small_scenario, params, client=client)
    assert list(df["error"].isna()) == [True, False, True, False]
    assert "fabric.link_rate" in df.loc[1, "error"]
    assert df.loc[2, "step_time"] > 0
    assert seen == [0.25, 0.5, 0.75, 1.0]


@pytest.fixture
def separate_cluster(tmp_path):
    """`dask scheduler` and `dask worker --nworkers 2` started as a cluster user would, on
    127.0.0.1 with a free port; stopped (by their process ids) afterwards."""
    pytest.importorskip("distributed")
    dask = shutil.which("dask")
    if dask is None:
        pytest.skip("the dask command (python3-distributed) is not installed")
    sched_file = tmp_path / "scheduler.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(aidcsim.__file__))   # workers import aidcsim
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(sched_file)], env=env, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=open(tmp_path / "scheduler.log", "w"))]
    try:
        deadline = time.monotonic() + 120
        while not sched_file.exists() or not sched_file.read_text().strip():
            assert time.monotonic() < deadline, (tmp_path / "scheduler.log").read_text()
            time.sleep(0.2)
        address = json.loads(sched_file.read_text())["address"]
        procs.append(subprocess.Popen([dask, "worker", address, "--nworkers", "2", "--nthreads", "1",
                                       "--no-dashboard"], env=env, cwd=tmp_path,
                                      stdout=subprocess.DEVNULL, stderr=open(tmp_path / "worker.log", "w")))
        from distributed import Client
        with Client(address, timeout=120) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_sweep_on_a_separately_started_scheduler(separate_cluster, small_scenario, tmp_path):
    from distributed import Client
    params = {"fabric.oversubscription.leaf": [1, 2], "cooling.flow_per_gpu": ["0.5 L/min", "1 L/min"]}
    with Client(separate_cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        df = aidcsim.sweep(small_scenario, params, client=client)
    assert len(df) == 4
    for i, p in enumerate(points(params)):
        one = small_scenario.copy()
        one.update(p)
        assert df.loc[i, "step_time"] == aidcsim.run(one).summary["step_time"], p
    # and the sweep-file CLI against the same scheduler
    (tmp_path / "base.yaml").write_text(small_scenario.to_yaml())
    (tmp_path / "sweep.yaml").write_text("base: base.yaml\nparameters:\n  fabric.oversubscription.leaf: [1, 2]\n")
    r = subprocess.run([sys.executable, "-m", "aidcsim", "sweep", str(tmp_path / "sweep.yaml"), "-o",
                        str(tmp_path / "out.csv"), "--scheduler", separate_cluster, "--progress"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert len(pd.read_csv(tmp_path / "out.csv")) == 2


def test_sweep_progress_on_local_processes(small_scenario):
    seen = []
    df = aidcsim.sweep(small_scenario, {"fabric.oversubscription.leaf": [1, 2]}, processes=1,
                       progress=lambda stage, f: seen.append((stage, f)))
    assert len(df) == 2 and seen == [("1/2 points", 0.5), ("2/2 points", 1.0)]


def test_sweep_keeps_the_runs_warnings(small_scenario, tmp_path):
    """A point whose run used an input otherwise than written (here a 3-tier Clos of 576 GPUs,
    built as 2 tiers, so its spine ratio has no effect) carries the run's warnings in a `warnings`
    column, and `aidcsim sweep` prints them on stderr: the sweep's rows do not silently describe
    another fabric than their swept keys say. A point built as written has none."""
    s = small_scenario.copy()
    s["fabric.oversubscription.spine"] = "1:1"
    df = aidcsim.sweep(s, {"fabric.oversubscription.spine": ["1:1", "2:1"]}, processes=1)
    alone = aidcsim.run(s).warnings
    assert alone and "built a 2-tier leaf-spine" in alone[0]
    assert "warnings" in df.columns
    assert "built a 2-tier leaf-spine" in df.loc[0, "warnings"]
    assert "fabric.oversubscription.spine (2:1) has no effect" in df.loc[1, "warnings"]
    assert df.loc[1, "fabric_tiers"] == 2
    df = aidcsim.sweep(s, {"fabric.topology": ["leaf_spine"]}, processes=1)
    assert "warnings" not in df.columns  # built as written: no column, as `error` without errors
    base = tmp_path / "base.yaml"
    base.write_text(s.to_yaml())
    (tmp_path / "sweep.yaml").write_text(
        "base: base.yaml\nparameters:\n  fabric.oversubscription.spine: ['2:1']\nseeds: 2\noutput: out.csv\n")
    r = subprocess.run([sys.executable, "-m", "aidcsim.sweep", str(tmp_path / "sweep.yaml"), "-j", "1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    # one line per distinct warning, with the points it concerns
    assert r.stderr.count("aidcsim sweep: warning:") == 1, r.stderr
    assert "aidcsim sweep: warning: points 1, 2 of 2: fabric.topology: clos3 asked, built a 2-tier" in r.stderr
    back = read_csv(tmp_path / "out.csv")
    assert "(2:1) has no effect" in back.loc[0, "warnings"] and back.loc[0, "warnings"] == back.loc[1, "warnings"]


def test_runs_bounded_before_any_run(small_scenario, monkeypatch):
    """Points x seeds (and variants x zipped rows x product) are bounded by
    aidcsim.limits.MAX_SWEEP_POINTS before anything runs: only the parameters' product was, so a
    typo in `seeds` (10**8) built and started a sweep that never ended. `seeds` is checked as an
    integer (2.0 was converted silently)."""
    monkeypatch.setattr(aidcsim.limits, "MAX_SWEEP_POINTS", 3)
    started = []
    with pytest.raises(aidcsim.ParameterError, match="2 points x 2 seeds = 4"):
        aidcsim.sweep(small_scenario, {"fabric.oversubscription.leaf": [1, 2]}, seeds=2, processes=1,
                      progress=lambda stage, fraction: started.append(stage))
    assert started == []
    with pytest.raises(aidcsim.ParameterError, match="2 variants x 1 zipped rows x 2 parameter points = 4"):
        design_points({"fabric.oversubscription.leaf": [1, 2]}, None, {"a": {}, "b": {}})
    with pytest.raises(aidcsim.ParameterError, match="seeds: got 0"):
        aidcsim.sweep(small_scenario, {"fabric.oversubscription.leaf": [1]}, seeds=0)
    with pytest.raises(aidcsim.ArgumentTypeError, match="seeds: got 2.0"):
        aidcsim.sweep(small_scenario, {"fabric.oversubscription.leaf": [1]}, seeds=2.0)


def test_a_bad_point_fails_before_any_point_runs(small_scenario):
    """A misspelt value in one point of a sweep raised only after every other point had run (a
    3-point rollout sweep ran 48 s for nothing, and the CLI wrote no CSV): errors="raise" checks
    every point first and names the bad one; errors="record" still runs the others."""
    ran = []
    params = {"cooling.flow_per_gpu": ["1 L/min", "0.5 Lmin"]}
    with pytest.raises(aidcsim.ScenarioError, match=r"sweep point 2 of 2: cooling.flow_per_gpu=0.5 Lmin") as ei:
        aidcsim.sweep(small_scenario, params, processes=1, progress=lambda stage, f: ran.append(stage))
    assert ran == [] and ei.value.key == "cooling.flow_per_gpu" and ei.value.value == "0.5 Lmin"
    df = aidcsim.sweep(small_scenario, params, processes=1, errors="record")
    assert df.loc[0, "step_time"] > 0 and "Lmin" in df.loc[1, "error"]


def test_sweep_file_errors_point_at_the_sweep_file(small_scenario, tmp_path):
    """Errors about what a sweep file sets named the base scenario "(set from Python)", with no
    line: they name the sweep file, line and column of the bad value (or key); an unknown top-level
    key has its line and a "did you mean"."""
    base = tmp_path / "base.yaml"
    base.write_text(small_scenario.to_yaml())

    def sweep_cli(text):
        (tmp_path / "s.yaml").write_text(text)
        return subprocess.run([sys.executable, "-m", "aidcsim", "sweep", str(tmp_path / "s.yaml"), "-j", "1",
                               "-o", str(tmp_path / "out.csv")], capture_output=True, text=True, timeout=600)

    r = sweep_cli('base: base.yaml\nparameters:\n  cooling.flow_per_gpu: ["1 L/min", "0.5 Lmin"]\n')
    assert r.returncode == 2 and not (tmp_path / "out.csv").exists()
    assert r.stderr.startswith(f"aidcsim sweep: {tmp_path / 's.yaml'}:3:37: cooling.flow_per_gpu: got '0.5 Lmin'"), \
        r.stderr
    assert "set from Python" not in r.stderr and "sweep point 2 of 2" in r.stderr
    r = sweep_cli("base: base.yaml\noverrides:\n  fabric.oversubscripton.leaf: 2\nparameters:\n  seed: [1]\n")
    assert r.returncode == 2 and r.stderr.startswith(
        f"aidcsim sweep: {tmp_path / 's.yaml'}:3:3: fabric.oversubscripton: got 'oversubscripton'"), r.stderr
    r = sweep_cli("base: base.yaml\nvariants:\n  a: {}\n  b: {fabric.switch_radix: 6400}\n")
    assert r.returncode == 2 and f"s.yaml:4:28: fabric.switch_radix: got '6400'" in r.stderr, r.stderr
    r = sweep_cli("base: base.yaml\nparameter:\n  seed: [1]\n")
    assert r.returncode == 2 and f"s.yaml:2:1: unknown sweep key 'parameter'" in r.stderr, r.stderr
    assert "did you mean 'parameters'?" in r.stderr


@pytest.mark.parametrize("body, line, column, words", [
    ("parameters:\n  fabric.link_rate: [\"400 Gbps\"]\nseeds: 0\n", 3, 1, "seeds: got 0"),
    ("parameters:\n  fabric.link_rate: [\"400 Gbps\"]\nseed: -1\n", 3, 1, "seed: got -1"),
    ("parameters:\n  fabric.link_rate: []\n", 2, 3, "fabric.link_rate: got [], expected at least one value"),
    ("zip:\n  fabric.link_rate: [\"400 Gbps\"]\n  fabric.nic_rate: []\n", 3, 3, "fabric.nic_rate: got []"),
    ("zip:\n  fabric.link_rate: [\"400 Gbps\"]\n  fabric.nic_rate: [\"400 Gbps\", \"800 Gbps\"]\n", 1, 1,
     "one length"),
    ("variants:\n  a: {fabric.link_rate: \"400 Gbps\"}\n  b: 3\n", 3, 3, "variant 'b'"),
    ("parameters:\n  fabric.link_rate: [\"400 Gbps\"]\nzip:\n  fabric.link_rate: [\"800 Gbps\"]\n", 4, 3,
     "fabric.link_rate: swept both in parameters and zip"),
    ("parameters:\n  fabric.link_rate: [\"400 Gbps\"]\nfrobnicate: 1\n", 3, 1, "unknown sweep key 'frobnicate'"),
])
def test_sweep_file_errors_name_file_line_and_column(tmp_path, default_path, body, line, column, words):
    """Every error of a sweep file names file:line:column of the entry at fault, as a scenario's do:
    `seeds: 0` and an empty value list said neither file nor line, found only when the sweep ran."""
    from aidcsim.sweep import load_sweep_file
    path = tmp_path / "s.yaml"
    path.write_text(f"base: {default_path}\n" + body)  # the body starts on line 2
    with pytest.raises(aidcsim.ScenarioError) as e:
        load_sweep_file(str(path))
    assert str(e.value).startswith(f"{path}:{line + 1}:{column}: "), str(e.value)
    assert words in str(e.value)
    assert (e.value.file, e.value.line, e.value.column) == (str(path), line + 1, column)
    r = subprocess.run([sys.executable, "-m", "aidcsim", "sweep", str(path)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and f"s.yaml:{line + 1}:{column}: " in r.stderr, r.stderr
