"""The thermal and power model on its own (models/thermal/site.hpp): steady state of a scenario's
cold plates, rack loops, CDUs, rear doors and facility water for a given GPU load, without
simulating the network. Useful for flow and supply-temperature sweeps in seconds.

    r = aidcsim.thermal.steady_state("scenarios/stargate-uk-8k.yaml", compute_busy=0.8)
    aidcsim.units.to_celsius(r["max_gpu_temp"]), r["pue"]
"""

import numbers

from . import _args, _native
from .errors import ScenarioError, argument_error
from .scenario import as_scenario


def _partition(compute_busy, comm_busy):
    """comm_busy, or a ParameterError unless compute_busy + comm_busy <= 1 (a partition of the step)."""
    if compute_busy + comm_busy > 1 + 1e-9:
        raise argument_error("comm_busy", comm_busy, f"at most 1 - compute_busy = {1 - compute_busy:.6g} "
                             "(compute, exposed communication and idle partition the step)")
    return comm_busy


def steady_state(scenario, compute_busy=1.0, comm_busy=0.0, clock=None, per_gpu=False, switches=0):
    """Steady state of the site for a uniform GPU load.

    Parameters
    ----------
    scenario : path | Scenario | dict
        Uses its cluster (GPUs, NVLink domain = rack), GPU model (TDP, idle power) and cooling keys.
    compute_busy, comm_busy : float
        A partition of the step (each 0..1, together at most 1): the share each GPU computes
        (communication hidden under compute included) and the share of exposed communication; the
        rest is idle. A run's are ``Results.summary["gpu_compute_busy"]`` / ``["gpu_comm_busy"]``.
        Power follows P = idle + (TDP - idle) u f^3, u = compute_busy + power.comm_factor comm_busy
        (models/thermal/power.hpp).
    clock : float | sequence of float, optional
        Clock factor (0, 1], one value or one per GPU (default 1).
    per_gpu : bool
        Solve every GPU/rack/CDU as its own node ("per_gpu" tier) instead of grouping identical
        ones ("grouped" tier, exact for identical members and much faster).
    switches : int
        Scale-out switches counted in IT power (air-cooled network racks).

    Returns
    -------
    dict
        max_gpu_temp, gpu_temp_limit, coolant_inlet, coolant_outlet, max_cold_plate_temp [K];
        loop_delta_t [K]; max_coolant_temp [K] (hottest coolant in the loop, held against the
        coolant's boiling point by the checklist item "coolant stays single-phase"); it_power, cooling_power, facility_power [W]; pue [1]; min_clock;
        gpus_over_limit; power (breakdown dict, W); state (numpy arrays per GPU: gpu_junction,
        gpu_cold_plate, gpu_outlet [K], gpu_power [W], gpu_clock; per rack: rack_inlet,
        rack_outlet [K], rack_power, rack_*_heat [W]; per CDU: cdu_supply, cdu_return [K],
        cdu_heat [W], cdu_flow [m^3/s]); checklist (list of dicts like Results.checks).

    Raises
    ------
    ScenarioError for an invalid scenario or cooling spec; SimulationError for a singular network.
    """
    compute_busy = _args.number(compute_busy, "compute_busy", 0, 1)
    comm_busy = _partition(compute_busy, _args.number(comm_busy, "comm_busy", 0, 1))
    per_gpu = _args.flag(per_gpu, "per_gpu")
    switches = _args.integer(switches, "switches", 0, 10**7)
    if clock is None:
        clock = []
    elif isinstance(clock, numbers.Real):
        clock = [_args.number(clock, "clock", 0, 1)]
    else:
        clock = [_args.number(c, f"clock[{i}]", 0, 1) for i, c in enumerate(clock)]
    s = as_scenario(scenario)
    text, name = s._source()
    try:
        return _native.core().thermal_report(text, name, compute_busy, comm_busy, clock, not per_gpu, switches)
    except ScenarioError as e:
        raise s.relocate(e) from None


def throttled_clocks(scenario, compute_busy=1.0, comm_busy=0.0, switches=0):
    """Clock factor per GPU (numpy array, size = GPUs) at which no junction exceeds the GPU
    temperature limit (the DVFS governor holding the limit), clamped to the throttle floor."""
    compute_busy = _args.number(compute_busy, "compute_busy", 0, 1)
    comm_busy = _partition(compute_busy, _args.number(comm_busy, "comm_busy", 0, 1))
    switches = _args.integer(switches, "switches", 0, 10**7)
    s = as_scenario(scenario)
    text, name = s._source()
    try:
        return _native.core().thermal_throttled_clocks(text, name, compute_busy, comm_busy, switches)
    except ScenarioError as e:
        raise s.relocate(e) from None
