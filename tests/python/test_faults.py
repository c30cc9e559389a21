"""Cooling faults through the engine (cooling.faults, cooling.pumps): a pump failure on the
576-GPU variant with and without a standby pump, as the thermal-headroom notebook shows it.
Expectations come from the physics, not from recorded numbers: with the standby the loop loses
flow only for the failover time (a temperature spike, then the steady state again, no
throttling); without it the GPUs reach their throttle limit, so the step slows down."""
import numpy as np
import pytest

from conftest import small

T = "/thermal/transient/"


def pump_failure(scenario, spare):
    s = small(scenario)
    s["cooling.pumps"] = {"running": 1, "spare": spare, "failover_time": "10 s"}
    s["cooling.faults"] = [{"type": "pump_failure", "at": "60 s", "duration": "1 h"}]
    return s


@pytest.fixture(scope="module")
def runs(default_path):
    import aidcsim
    base = aidcsim.Scenario.load(default_path)
    return {spare: aidcsim.run(pump_failure(base, spare)) for spare in (1, 0)}


def test_transient_datasets_are_written(runs):
    r = runs[1]
    t = r.datasets[T + "time"]
    assert r.dataset_units[T + "time"] == "s" and t.ndim == 1 and t.size > 10
    assert np.all(np.diff(t) > 0)
    for name, unit in (("max_gpu_temperature", "degC"), ("max_cold_plate_temperature", "degC"),
                       ("coolant_inlet", "degC"), ("coolant_outlet", "degC"), ("min_flow_per_gpu", "L/min"),
                       ("min_gpu_clock", "1"), ("it_power", "MW"), ("facility_power", "MW"), ("pue", "1")):
        assert r.datasets[T + name].shape == t.shape, name
        assert r.dataset_units[T + name] == unit, name
    assert len(r.labels["/thermal/alerts/message"]) == r.datasets["/thermal/alerts/time"].size > 0
    # the transient starts from the steady state the summary reports
    assert r.datasets[T + "max_gpu_temperature"][0] == pytest.approx(r.summary["max_gpu_temperature"], abs=0.01)


def test_with_standby_spike_then_recovery_without_throttling(runs):
    r = runs[1]
    tj = r.datasets[T + "max_gpu_temperature"]
    t = r.datasets[T + "time"]
    assert r.summary["fault_min_gpu_clock"] == 100.0
    assert r.summary["fault_throttled_time"] == 0.0 and r.summary["fault_halted_time"] == 0.0
    assert r.summary["step_time_during_fault"] == pytest.approx(r.summary["step_time"], rel=1e-9)
    peak = int(np.argmax(tj))
    assert 60.0 <= t[peak] <= 60.0 + 120.0            # during / just after the 10 s failover
    assert tj[peak] > tj[0] + 2.0                     # a spike ...
    assert abs(tj[-1] - tj[0]) < 0.5                  # ... then back to the steady state
    assert r.summary["fault_max_gpu_temperature"] == pytest.approx(tj.max(), abs=0.5)
    assert any("standby pump took over" in m for m in r.labels["/thermal/alerts/message"])


def test_without_spare_gpus_throttle_and_the_step_slows(runs):
    r = runs[0]
    assert r.summary["fault_min_gpu_clock"] < 100.0
    assert r.summary["step_time_during_fault"] > r.summary["step_time"]
    assert r.summary["fault_max_gpu_temperature"] > runs[1].summary["fault_max_gpu_temperature"]
    assert r.datasets[T + "min_gpu_clock"].min() < 1.0
    assert any(m.startswith("critical") for m in r.labels["/thermal/alerts/message"])


@pytest.mark.parametrize("spare", [1, 0])
def test_transient_conserves_energy(runs, spare):
    assert runs[spare].summary["fault_energy_error"] < 1e-6


def test_to_xarray_has_a_time_coordinate(runs):
    pytest.importorskip("xarray")
    r = runs[1]
    ds = r.to_xarray()
    assert "time" in ds.coords and ds.coords["time"].attrs["units"] == "s"
    np.testing.assert_array_equal(ds["time"].values, r.datasets[T + "time"])
    v = ds["thermal.transient.max_gpu_temperature"]
    assert v.dims == ("time",) and v.attrs["units"] == "degC"
    assert "thermal.transient.time" not in ds.data_vars
    # selection by time works: the steady state before the fault at 60 s
    assert float(v.sel(time=0.0)) == pytest.approx(r.summary["max_gpu_temperature"], abs=0.01)
    only = r.to_xarray(group="/thermal/transient")
    assert set(only.data_vars) == {n for n in ds.data_vars if n.startswith("thermal.transient.")}


def test_no_faults_no_transient(small_results):
    assert not any(p.startswith(T) for p in small_results.datasets)
    assert "fault_min_gpu_clock" not in small_results.summary


F = "/thermal/faults/"


def test_each_fault_gets_a_verdict_in_every_output(runs, tmp_path):
    """One row per fault under /thermal/faults/ (its own transient under fault_1/), its checks in the
    checklist, the aggregates in the summary, the table in JSON, and a panel in the report."""
    from aidcsim import report
    r = runs[1]
    assert r.labels[F + "name"] == ["fault 1: pump_failure"]
    assert r.labels[F + "description"] == ["pump_failure on every CDU at 60 s for 60 min"]
    for name, unit in (("peak_gpu_temperature", "degC"), ("time_above_throttle", "s"), ("time_at_shutdown", "s"),
                       ("lost_training_time", "h"), ("lost_gpu_hours", "h"), ("pass", "1")):
        assert r.datasets[F + name].shape == (1,), name
        assert r.dataset_units[F + name] == unit, name
    assert r.summary["cooling_faults"] == 1
    items = [c for c in r.checks if c["item"].startswith("fault 1: pump_failure: ")]
    failover = next(c for c in items if "failover" in c["item"])
    assert failover["value"] == pytest.approx(10.0) and failover["limit"] == pytest.approx(10.0)
    assert not failover["pass"]                      # 10 s is not under the brief's 10 s
    assert r.datasets[F + "fault_1/time"][0] == pytest.approx(0.0)  # 60 s lead from a fault at 60 s
    doc = r.to_json()
    assert doc["cooling_faults"]["name"] == ["fault 1: pump_failure"]
    assert doc["cooling_faults"]["lost_gpu_hours"]["unit"] == "h"
    paths = report.write_report(r, str(tmp_path))
    assert any(p.endswith("fault_transients.png") for p in paths)


def test_without_standby_the_verdict_fails_and_counts_the_loss(runs):
    r = runs[0]
    assert r.datasets[F + "pass"][0] == 0
    assert "pump failover" in r.labels[F + "failed"][0]
    lost = r.datasets[F + "lost_training_time"][0]
    assert lost > 0
    # GPU-hours: the job's GPUs wait on the slowest one.
    assert r.datasets[F + "lost_gpu_hours"][0] == pytest.approx(lost * r.summary["gpus"], rel=1e-9)
    assert r.datasets[F + "time_above_throttle"][0] > 0
    # The fault is in the fault transient, so time_to_train's step-time profile has it already:
    # time_to_train_with_faults adds nothing (only faults after the transient), and the verdict's
    # loss is reported on its own, added to nothing (the old figure added it again).
    assert r.units["cooling_faults_lost_training_time"] == "h" and r.units["time_to_train_with_faults"] == "d"
    assert r.summary["cooling_faults_lost_training_time"] == pytest.approx(lost, rel=1e-12)
    assert r.summary["time_to_train_with_faults"] == r.summary["time_to_train"]
    assert r.to_json()["summary"]["time_to_train_with_faults"]["unit"] == "d"


def test_brief_monitoring_policy_as_written(default_path):
    """The brief's cooling_monitoring YAML, pasted as written, loads; on a healthy site no sensor
    fires (the main-loop flow is the loop's total, far above 10 L/min)."""
    import aidcsim
    text = default_path.read_text() + """
cooling_monitoring:
  sensors:
    - {type: temperature, location: GPU inlet,  threshold: 45.0, alert_level: warning}   # °C
    - {type: temperature, location: GPU outlet, threshold: 60.0, alert_level: critical}  # °C
    - {type: flow_rate,   location: main loop,  threshold: 10.0, alert_level: warning}   # L/min
  response_actions:
    - {alert_level: warning,  action: adjust pump speed}
    - {alert_level: critical, action: reduce GPU power limit}
"""
    s = small(aidcsim.Scenario.from_yaml(text))
    s["cooling.faults"] = [{"type": "rdhx_fan_failure", "at": "60 s", "duration": "5 min", "target": 0}]
    r = aidcsim.run(s)
    assert not any("[main loop]" in m for m in r.labels["/thermal/alerts/message"])
    assert "/thermal/actions/name" not in r.labels


def test_monitoring_thresholds_with_units(default_path):
    """A threshold may carry the unit of its sensor's kind ("45 degC", "10 L/min"): the same policy
    as plain numbers in the brief's units; a unit of another kind is a ScenarioError at its line."""
    import aidcsim
    policy = """
cooling_monitoring:
  sensors:
    - {{type: temperature, location: GPU inlet, threshold: {t}}}
    - {{type: flow_rate, location: main loop, threshold: {f}}}
"""
    base = default_path.read_text()
    plain = aidcsim.validate(aidcsim.Scenario.from_yaml(base + policy.format(t="45.0", f="10.0")))
    units = aidcsim.validate(aidcsim.Scenario.from_yaml(base + policy.format(t='"113 degF"', f='"10 L/min"')))
    th = [[x["threshold"] for x in v["cooling_monitoring.sensors"]] for v in (plain, units)]
    assert th[0] == pytest.approx([318.15, 10.0 / 60000], rel=1e-14)   # SI: K, m^3/s
    assert th[1] == th[0]    # "113 degF" = 45 degC, "10 L/min" = 10: bit for bit
    bad = base + policy.format(t='"30 kW"', f="10.0")
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.validate(aidcsim.Scenario.from_yaml(bad, name="bad.yaml"))
    assert e.value.key == "cooling_monitoring.sensors[0].threshold" and e.value.value == "30 kW"
    assert e.value.line == bad.splitlines().index("    - {type: temperature, location: GPU inlet, threshold: \"30 kW\"}") + 1
    assert e.value.expected.startswith("a temperature") and "got a power for type 'temperature'" in e.value.expected
