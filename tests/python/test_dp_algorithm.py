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


def test_sharp_that_no_dp_group_uses_is_a_scenario_error(small_scenario):
    """fabric.sharp with nvls whose every DP group lies inside one NVL72 rack (dp 9: a stage's 72
    GPUs are one rack): NVLS reduces in the NVSwitches, the key changes nothing. d097d0b accepted
    it; now a ScenarioError on fabric.sharp from validate and run, before simulating."""
    s = _none(small_scenario, "nvls")
    s["cluster.gpus"] = 648
    s["workload.parallelism.dp"] = 9
    s["workload.global_batch"] = 162
    s["fabric.sharp"] = True
    for check in (aidcsim.validate, aidcsim.run):
        with pytest.raises(aidcsim.ScenarioError) as e:
            check(s)
        assert e.value.key == "fabric.sharp"
        assert "every DP group of dp_algorithm 'nvls' lies inside one NVLink domain of 72 GPUs" in str(e.value)
        assert "the key would be ignored" in str(e.value)
    s["fabric.sharp"] = False
    aidcsim.validate(s)
