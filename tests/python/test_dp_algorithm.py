"""workload.parallelism.dp_algorithm that the scenario or its DP groups rule out is a typed
aidcsim.ScenarioError on that key (0.1.0: an untyped aidcsim.Error from the step, no key)."""
import pytest

import aidcsim


def _none(small_scenario, alg):
    s = small_scenario.copy()
    s["workload.parallelism.zero"] = "none"
    s["workload.parallelism.dp_algorithm"] = alg
    return s


def test_sharp_without_in_network_reduction_is_refused_by_load(small_scenario):
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.validate(_none(small_scenario, "sharp"))
    assert e.value.key == "workload.parallelism.dp_algorithm"
    assert "fabric.sharp: true" in str(e.value)


def test_halving_doubling_on_six_replicas_is_refused_by_load(small_scenario):
    s = _none(small_scenario, "halving_doubling")
    s["cluster.gpus"] = 432
    s["workload.parallelism.dp"] = 6
    s["workload.global_batch"] = 108
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.validate(s)
    assert e.value.key == "workload.parallelism.dp_algorithm"
    assert "power-of-two" in str(e.value)


@pytest.mark.parametrize("alg, group", [
    ("sharp", "stage 0, TP rank 0 (8 GPUs, 0 to 56 in rank order tp,cp,dp,pp; 1 NVLink domain"),
    ("nvls", "stage 1, TP rank 0 (8 GPUs, 64 to 120 in rank order tp,cp,dp,pp; 2 NVLink domains"),
])
def test_a_dp_group_that_cannot_run_it_is_a_scenario_error(small_scenario, alg, group):
    """The groups' NVLink domains need the fabric: run() refuses before simulating, typed."""
    s = _none(small_scenario, alg)
    s["fabric.sharp"] = True
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.run(s)
    assert e.value.key == "workload.parallelism.dp_algorithm"
    assert e.value.value == alg
    assert group in str(e.value)
