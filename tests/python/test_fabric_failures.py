"""Fabric failures and the link timeline through the Python API, on the 576-GPU variant: a spine
that fails two days into training is re-simulated and slows time-to-train from then on (without
random failures the cost is exact: the rest of the work at the slower step), a NIC link failure
is a ScenarioError on its key, and the step's link timeline never exceeds line rate."""
import numpy as np
import pytest

from conftest import small

DAY = 86400.0


def no_random_failures(s):
    s["reliability.failure_preset"] = "none"
    s["reliability.draws"] = 10
    return s


@pytest.fixture(scope="module")
def base(default_path):
    import aidcsim
    return no_random_failures(small(aidcsim.Scenario.load(default_path)))


@pytest.fixture(scope="module")
def healthy(base):
    import aidcsim
    return aidcsim.run(base)


def test_timed_spine_failure_slows_time_to_train_from_its_time(base, healthy):
    import aidcsim
    s = base.copy()
    s["fabric.failures"] = [{"type": "switch_down", "element": "spine0.0", "at": "2 d"}]
    r = aidcsim.run(s)
    assert r.datasets["/network/failures/time"].tolist() == [2 * DAY]
    assert r.dataset_units["/network/failures/step_time"] == "s"
    after = r.datasets["/network/failures/step_time"][0]
    assert after >= r.summary["step_time"] == healthy.summary["step_time"]
    assert r.datasets["/network/failures/rerouted_flows"][0] > 0
    ideal = healthy.summary["time_to_train"] * DAY
    expected = 2 * DAY + (ideal - 2 * DAY) * after / r.summary["step_time"]
    assert r.summary["time_to_train"] * DAY == pytest.approx(expected, rel=1e-9)


def test_nic_link_failure_is_a_scenario_error(base):
    import aidcsim
    s = base.copy()
    s["fabric.failures"] = [{"type": "link_down", "element": "gpu5-leaf1", "at": "1 d"}]
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.run(s)
    assert "fabric.failures[0].element" in str(e.value) and "disconnects GPU 5" in str(e.value)


def test_link_timeline_stays_within_line_rate(healthy):
    r = healthy
    t = r.datasets["/network/timeline/time"]
    m = r.datasets["/network/timeline/max_utilization_by_tier"]
    hot = r.datasets["/network/timeline/hot_link_utilization"]
    assert r.dataset_units["/network/timeline/time"] == "s" and np.all(np.diff(t) > 0)
    assert m.shape == (t.size, 4) and hot.shape[0] == t.size
    assert m.max() <= 1.0 + 1e-9 and m[:, 1:].max() > 0.5   # the DP phase fills some fabric link
    assert len(r.labels["/network/timeline/hot_link"]) == hot.shape[1]
