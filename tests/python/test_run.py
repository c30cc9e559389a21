"""run(): results shapes and units, pandas/xarray views, HDF5 and JSON through the C++ writers,
the CLI's numbers, and two simulations in one process."""
import json
import math
import subprocess

import numpy as np
import pytest

import aidcsim
from aidcsim import Results

from conftest import small


def test_summary_has_units_and_descriptions(small_results):
    r = small_results
    assert isinstance(r, Results) and r.summary
    assert set(r.summary) == set(r.units) == set(r.descriptions)
    for k, v in r.summary.items():
        assert isinstance(v, float)
        assert r.units[k], f"summary value {k} has no unit"
        assert r.descriptions[k], f"summary value {k} has no description"
    assert r.scenario_name == "stargate-uk-8k"
    assert r.scenario_file.endswith("stargate-uk-8k.yaml")


def test_datasets_are_numpy_with_shape_units_and_dims(small_results):
    r = small_results
    assert r.datasets, "the engine writes no datasets"
    for path, arr in r.datasets.items():
        assert isinstance(arr, np.ndarray) and arr.dtype == np.float64
        dims = r.dataset_dims[path]
        assert len(dims) == arr.ndim, (path, dims, arr.shape)
        assert r.dataset_units[path], f"{path} has no unit"
    for path, vals in r.labels.items():
        assert all(isinstance(v, str) for v in vals)


def test_tables(small_results):
    df = small_results.to_pandas()
    assert list(df.columns) == ["key", "value", "unit", "description"]
    assert len(df) == len(small_results.summary)
    assert df.set_index("key")["value"].to_dict() == small_results.summary
    cf = small_results.checks_frame()
    assert list(cf.columns) == ["item", "value", "limit", "unit", "headroom", "pass", "note"]
    assert len(cf) == len(small_results.checks)


def test_to_xarray(small_results):
    xr = pytest.importorskip("xarray")
    ds = small_results.to_xarray()
    assert isinstance(ds, xr.Dataset)
    for name, var in ds.data_vars.items():
        assert "units" in var.attrs


def test_gpu_count_and_seed(small_scenario, small_results):
    gpus = next((v for k, v in small_results.summary.items() if k in ("gpus", "gpu_count")), None)
    if gpus is not None:
        assert gpus == 576
    assert small_results.seed == 42


def test_two_runs_in_one_process_agree(small_scenario, small_results):
    # The engine is restarted in-process (aidcsim.runner.ISOLATE is False): a second run of the
    # same scenario in this process must reproduce the first bit for bit, and a different
    # scenario after it must differ.
    again = aidcsim.run(small_scenario)
    assert again.summary == small_results.summary
    for p, a in small_results.datasets.items():
        np.testing.assert_array_equal(again.datasets[p], a)
    other = small_scenario.copy()
    other["fabric.oversubscription.leaf"] = 4
    third = aidcsim.run(other)
    assert third.summary != small_results.summary
    # and an isolated run (child process) gives the same numbers as the in-process one
    iso = aidcsim.run(small_scenario, isolate=True)
    assert iso.summary == small_results.summary


def test_run_accepts_path_scenario_and_dict(small_scenario, small_results, tmp_path):
    p = tmp_path / "small.yaml"
    p.write_text(small_scenario.to_yaml())
    by_path = aidcsim.run(str(p))
    by_dict = aidcsim.run(small_scenario.to_dict())
    assert by_path.summary == small_results.summary == by_dict.summary


def _cli_json(cli, scenario_path, tmp_path):
    out = tmp_path / "summary.json"
    subprocess.run([str(cli), "run", str(scenario_path), "--json", str(out)], check=True,
                   capture_output=True, text=True, timeout=600)
    return json.loads(out.read_text())


def test_summary_equals_cli_json(cli, small_scenario, small_results, tmp_path):
    p = tmp_path / "small.yaml"
    p.write_text(small_scenario.to_yaml())
    doc = _cli_json(cli, p, tmp_path)
    cli_summary = {k: v["value"] for k, v in doc["summary"].items()}
    assert list(cli_summary) == list(small_results.summary)
    for k, v in cli_summary.items():
        mine = small_results.summary[k]
        assert (v is None and math.isnan(mine)) or v == mine, k
        assert doc["summary"][k]["unit"] == small_results.units[k]
    # and the Python JSON writer writes the same document
    assert small_results.to_json()["summary"] == doc["summary"]


def test_hdf5_has_units_on_every_dataset(small_results, tmp_path):
    h5py = pytest.importorskip("h5py")
    path = small_results.to_hdf5(tmp_path / "r.h5")
    seen = []
    with h5py.File(path, "r") as f:
        assert f.attrs["scenario_name"] == "stargate-uk-8k"
        f.visititems(lambda n, o: seen.append((n, o.attrs.get("units"))) if isinstance(o, h5py.Dataset) else None)
        for p, arr in small_results.datasets.items():
            assert f[p].shape == arr.shape
            np.testing.assert_array_equal(f[p][()], arr)
    assert seen and all(u not in (None, "", b"") for _, u in seen), [n for n, u in seen if not u]
    back = Results.from_hdf5(path)
    assert back.summary == small_results.summary
    assert back.units == small_results.units
    assert set(back.datasets) == set(small_results.datasets)


def test_results_pickle(small_results):
    import pickle
    r = pickle.loads(pickle.dumps(small_results))
    assert r.summary == small_results.summary and set(r.datasets) == set(small_results.datasets)


def test_simulation_errors_are_runtime_errors():
    assert issubclass(aidcsim.SimulationError, RuntimeError)
    assert issubclass(aidcsim.ParameterError, ValueError)
    assert issubclass(aidcsim.ScenarioError, aidcsim.ParameterError)


def test_repr_shows_the_headline_with_units(small_results):
    # repr() showed the first four summary values: gpus, parameters and step_time twice, with "1"
    # printed after dimensionless counts ("gpus=576 1").
    text = repr(small_results)
    s = small_results.summary
    assert f"gpus={s['gpus']:.4g}," in text
    for key in ("step_time", "mfu", "time_to_train_p50", "max_gpu_temperature"):
        assert f"{key}={s[key]:.4g} {small_results.units[key]}" in text
    assert "parameters=" not in text


def test_stage_busy_frame(small_results, tmp_path):
    # Where each pipeline stage's GPUs spend the step: fractions summing to 1 per stage, seconds to
    # the step time, their means over the stages /step/breakdown's compute, exposed sum and bubble.
    r = small_results
    f = r.stage_busy_frame()
    t = r.stage_busy_frame(seconds=True)
    pp = len(r.datasets["/step/stage_compute"])
    assert pp == 9 and list(f.columns) == ["compute", "exposed_communication", "bubble"]
    assert f.index.name == "stage" and list(f.index) == list(range(9))
    assert f.attrs["units"] == "1" and t.attrs["units"] == "s"
    step = r.summary["step_time"]
    assert np.abs(f.sum(axis=1) - 1).max() <= 1e-12
    assert np.abs(t.sum(axis=1) - step).max() <= 1e-12 * step
    b = dict(zip(r.labels["/step/component"], r.datasets["/step/breakdown"]))
    assert t["compute"].mean() == pytest.approx(b["compute"], rel=1e-12)
    assert t["bubble"].mean() == pytest.approx(b["bubble"], rel=1e-12)
    exposed = sum(v for k, v in b.items() if k.startswith("exposed_"))
    assert t["exposed_communication"].mean() == pytest.approx(exposed, rel=1e-12)
    for p in ("compute", "exposed_communication", "bubble"):
        assert r.dataset_units[f"/step/stage_{p}_fraction"] == "1" and r.dataset_dims[f"/step/stage_{p}"] == ["stage"]
    # the thermal model's load: the same partition's stage-mean compute and exposed communication
    assert r.summary["gpu_compute_busy"] == pytest.approx(f["compute"].mean(), rel=1e-12)
    assert r.summary["gpu_comm_busy"] == pytest.approx(f["exposed_communication"].mean(), rel=1e-12)
    assert r.summary["gpu_compute_busy"] + r.summary["gpu_comm_busy"] <= 1 and r.units["gpu_comm_busy"] == "1"
    # the JSON's compact form and the HDF5 file carry the same
    g = r.to_json()["gpu_busy"]
    assert g["stages"] == 9 and g["bubble"]["max"] == f["bubble"].max() and g["compute"]["min"] == f["compute"].min()
    back = Results.from_hdf5(small_results.to_hdf5(tmp_path / "r.h5"))
    assert back.stage_busy_frame().equals(f)
    with pytest.raises(KeyError, match="stage_compute_fraction"):
        Results({"summary": [], "datasets": []}).stage_busy_frame()
