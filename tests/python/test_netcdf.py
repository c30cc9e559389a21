"""The HDF5 results file in the netCDF-4 data model: xarray opens every group with named dimensions
and coordinates (engine "h5netcdf" and "netcdf4", python3-h5netcdf / python3-netcdf4), units as
attributes, integer codes with CF flags, phase starts as dates; h5py reads it back into Results.

Files from the rollout scenario (every group the engine writes, incl. /phases and
/network/link_down) and from a cooling-fault run (/thermal/transient, /thermal/alerts)."""
import pathlib

import numpy as np
import pytest

import aidcsim
from conftest import small

xr = pytest.importorskip("xarray")
h5py = pytest.importorskip("h5py")

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENGINES = [e for e in ("h5netcdf", "netcdf4") if e in xr.backends.list_engines()]


@pytest.fixture(scope="module")
def rollout_file(tmp_path_factory):
    s = aidcsim.Scenario.load(ROOT / "scenarios" / "stargate-uk-rollout.yaml")
    # Three phases, a fabric failure (link_down) and the Monte Carlo, at test size.
    s["rollout.phases[0].gpus"] = 576
    s["rollout.phases[1].gpus"] = 1152
    s["rollout.phases[2].gpus"] = 1728
    s["cluster.gpus"] = 576
    s["workload.parallelism.dp"] = 8
    s["workload.global_batch"] = 144  # 18 microbatches per replica: a multiple of pp = 9 (interleaved)
    s["training.tokens"] = "20T"  # reaches the third phase at a tenth of the GPUs (200T: 13 years)
    path = tmp_path_factory.mktemp("nc") / "rollout.h5"
    return aidcsim.run(s).to_hdf5(path)


@pytest.fixture(scope="module")
def fault_file(tmp_path_factory, small_scenario):
    s = small_scenario.copy()
    s["cooling.pumps"] = {"running": 1, "spare": 0, "failover_time": "10 s"}
    s["cooling.faults"] = [{"type": "pump_failure", "at": "60 s", "duration": "1 h"}]
    path = tmp_path_factory.mktemp("nc") / "fault.h5"
    return aidcsim.run(s).to_hdf5(path)


def _groups(path):
    out = ["/"]
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.append("/" + n) if isinstance(o, h5py.Group) else None)
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("which", ["rollout_file", "fault_file"])
def test_every_group_has_named_dims_with_coordinates(engine, which, request):
    path = request.getfixturevalue(which)
    groups = _groups(path)
    assert {"/", "/summary", "/checks", "/network", "/network/timeline", "/thermal",
            "/reliability", "/step"} <= set(groups)
    for g in groups:
        with xr.open_dataset(path, engine=engine, group=g) as ds:
            assert not [d for d in ds.dims if d.startswith("phony_dim")], (g, dict(ds.dims))
            for d, n in ds.sizes.items():
                assert d in ds.coords, (g, d)              # every axis has a coordinate
                assert ds.coords[d].shape == (n,)
            for name, v in ds.variables.items():
                assert "units" in v.attrs or v.dtype.kind == "M", (g, name)   # dates: decoded
                assert v.attrs.get("units") != "", (g, name)


@pytest.mark.parametrize("engine", ENGINES)
def test_coordinates_label_the_data(rollout_file, engine):
    with xr.open_dataset(rollout_file, engine=engine, group="network") as net:
        # link names are the coordinate of "link"; tier codes are integers with CF flags
        name = str(net["link"].values[int(np.argmax(net["link_utilization"].values))])
        assert net["link_utilization"].sel(link=name).item() == net["link_utilization"].max().item()
        assert net["link_tier"].dtype == np.int8
        assert net["link_tier"].attrs["flag_meanings"].split() == ["nvlink", "access", "leaf_spine", "spine_core"]
        assert list(net["link_tier"].attrs["flag_values"]) == [0, 1, 2, 3]
        assert list(net["tier"].values) == ["nvlink", "access", "leaf_spine", "spine_core"]
        assert net["link_bytes"].attrs["units"] == "B"
    with xr.open_dataset(rollout_file, engine=engine, group="network/timeline") as tl:
        assert tl["max_utilization_by_tier"].dims == ("time", "tier")
        assert tl["time"].attrs["units"] == "s" and tl["time"].dtype == np.float64
        assert "spine_core" in tl["tier"].values
    with xr.open_dataset(rollout_file, engine=engine, group="phases") as ph:
        assert list(ph["phase"].values) == ["8K", "16K", "31K"]
        assert np.issubdtype(ph["start"].dtype, np.datetime64)   # "seconds since 1970-01-01"
        assert str(ph["start"].values[0]).startswith("2026-03-01")
        assert ph["step_time"].attrs["units"] == "s"
    with xr.open_dataset(rollout_file, engine=engine, group="checks") as ch:
        assert ch["pass"].dtype == np.int8 and ch["pass"].attrs["flag_meanings"] == "fail pass"
        assert ch["value"].dims == ("item",) and ch["item"].size == ch["pass"].size
    with xr.open_dataset(rollout_file, engine=engine) as root:
        assert root.attrs["format_version"] == "2"
        assert root.attrs["aidcsim_version"] == aidcsim.__version__
        assert len(root.attrs["git_sha"]) in (40, len("unknown"))
        assert root.attrs["date_created"].endswith("Z")
        assert "stargate-uk-rollout" in root.attrs["scenario_text"]


@pytest.mark.parametrize("engine", ENGINES)
def test_fault_transient_and_alert_log(fault_file, engine):
    with xr.open_dataset(fault_file, engine=engine, group="thermal/transient") as tr:
        assert tr["max_gpu_temperature"].dims == ("time",)
        assert tr["max_gpu_temperature"].attrs["units"] == "degC"
        assert tr["time"].attrs["units"] == "s"
    with xr.open_dataset(fault_file, engine=engine, group="thermal/alerts") as al:
        assert al["message"].dims == ("alert",) and al["time"].dims == ("alert",)
    with xr.open_dataset(fault_file, engine=engine, group="thermal") as th:
        assert th["gpu_junction_temperature"].dims == ("gpu",)
        assert list(th["gpu"].values[:3]) == [0, 1, 2]              # an index coordinate


def test_h5py_reads_the_file_back_into_the_same_results(rollout_file):
    back = aidcsim.Results.from_hdf5(rollout_file)
    with h5py.File(rollout_file, "r") as f:
        assert f["network/link_tier"].dtype == np.int8
        assert f["network/link_utilization"].dims[0][0].name == "/network/link"
    assert back.dataset_dims["/network/link_utilization"] == ["link"]
    assert back.dataset_flags["/network/link_tier"] == ["nvlink", "access", "leaf_spine", "spine_core"]
    assert back.labels["/phases/phase"] == ["8K", "16K", "31K"]
    assert back.dataset_units["/phases/start"].startswith("seconds since 1970-01-01")
    assert "/thermal/gpu" not in back.datasets   # the writer's index coordinates are not data
    assert all(isinstance(c["pass"], bool) for c in back.checks)
    again = back.to_hdf5(pathlib.Path(rollout_file).with_name("again.h5"))
    again_back = aidcsim.Results.from_hdf5(again)
    assert set(again_back.datasets) == set(back.datasets)
    assert again_back.labels == back.labels
    for p, a in back.datasets.items():
        np.testing.assert_array_equal(again_back.datasets[p], a)
