"""The Python thermal site has the bill of materials' racks (topology::gpus_per_rack), not one rack
per NVLink domain, and reports the fans that move the air-carried heat (docs/thermal.md §2)."""
import aidcsim


def hgx_h100(default_path, gpus=1024):
    s = aidcsim.Scenario.load(default_path).copy()
    s["cluster.gpu"] = "H100"
    s["cluster.gpus"] = gpus
    s["cluster.gpus_per_node"] = 8
    s["cluster.nvlink_domain"] = 8
    for k, v in {"layers": 32, "hidden": 4096, "ffn_hidden": 14336, "heads": 32}.items():
        s["workload.model." + k] = v  # Llama-3-8B-like: fits one 8-GPU domain
    s["workload.parallelism.pp"] = 1
    s["workload.parallelism.virtual_stages"] = 1
    s["workload.parallelism.dp"] = gpus // 8
    s["workload.global_batch"] = gpus // 8 * 16
    return s


def test_hgx_site_has_the_bom_racks(default_path):
    s = hgx_h100(default_path)
    r = aidcsim.thermal.steady_state(s)
    assert len(r["state"]["rack_power"]) == 32  # 4 HGX servers a rack, not 128 racks of 8 GPUs
    s["bom.layout.gpus_per_rack"] = 16
    assert len(aidcsim.thermal.steady_state(s)["state"]["rack_power"]) == 64


def test_server_fans_are_it_power(default_path):
    p = aidcsim.thermal.steady_state(hgx_h100(default_path))["power"]
    assert p["server_fans"] > 0
    assert p["pue_fans_as_cooling"] > p["pue"]


def test_low_flow_boils_and_fails_single_phase(default_path):
    """576 GB200 at 0.05 L/min of water: the single-phase loop model solves the rack return far
    above 100 °C; the checklist says the coolant would boil (docs/thermal.md §3)."""
    s = aidcsim.Scenario.load(default_path).copy()
    s["cluster.gpus"] = 576
    s["workload.parallelism.dp"] = 8
    s["workload.global_batch"] = 144
    s["cooling.flow_per_gpu"] = "0.05 L/min"
    r = aidcsim.thermal.steady_state(s, compute_busy=0.8, comm_busy=0.15)
    item = next(c for c in r["checklist"] if c["item"] == "coolant stays single-phase")
    assert r["max_coolant_temp"] > 373.15
    assert not item["pass"] and item["headroom"] < 0
    s["cooling.flow_per_gpu"] = "1 L/min"
    r = aidcsim.thermal.steady_state(s, compute_busy=0.8, comm_busy=0.15)
    assert next(c for c in r["checklist"] if c["item"] == "coolant stays single-phase")["pass"]


def test_gpu_load_is_a_partition(default_path):
    """compute_busy and comm_busy partition the step with the idle time: a load adding to more than
    1 counts a time twice (communication hidden under compute) and is refused, naming comm_busy."""
    import pytest
    s = aidcsim.Scenario.load(default_path).copy()
    s["cluster.gpus"] = 576
    s["workload.parallelism.dp"] = 8
    s["workload.global_batch"] = 144
    with pytest.raises(aidcsim.ParameterError, match="comm_busy.*at most 1 - compute_busy"):
        aidcsim.thermal.steady_state(s, compute_busy=0.716, comm_busy=0.394)
    with pytest.raises(aidcsim.ParameterError, match="comm_busy"):
        aidcsim.thermal.throttled_clocks(s, compute_busy=0.716, comm_busy=0.394)
    full = aidcsim.thermal.steady_state(s, compute_busy=1.0)["state"]["gpu_power"]
    assert aidcsim.thermal.steady_state(s, compute_busy=0.6, comm_busy=0.4)["state"]["gpu_power"].max() < full.min()
