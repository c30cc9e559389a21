"""Bounds on what aidcsim's readers accept, the same in Python as in C++
(sim/scenario/input_limits.hpp; tests/python/test_limits.py checks they agree), plus the sweep's.

A scenario larger, deeper or with more values than these is a ScenarioError when it is read, so no
input (a device, a binary file, an alias "bomb", a self-referencing dict) can make a reader run out
of memory or recurse without end.
"""

#: Largest scenario text, in bytes.
MAX_SCENARIO_BYTES = 1 << 20
#: Deepest nesting of mappings and lists.
MAX_NESTING_DEPTH = 32
#: Most values in a scenario, each alias counted as the values it repeats.
MAX_NODES = 100000
#: Most items in one list.
MAX_LIST_ITEMS = 10000
#: Largest seed (scenario `seed`, ``run --seed``, ``aidcsim.run(seed=...)``): 2**53 - 1.
MAX_SEED = 2**53 - 1
#: Most runs of one sweep (its points: variants x zipped rows x the product of its parameters,
#: times its seeds) or one comparison (designs x seeds), checked before any run.
MAX_SWEEP_POINTS = 100000
#: Most local worker processes of a sweep or comparison (``-j``, ``processes=``); 0 or 1 runs in
#: this process.
MAX_PROCESSES = 4096


def check_runs(n, key, value, what):
    """Raises a ParameterError on `key` when `n` runs (`what`, e.g. "3 designs x 10 seeds") exceed
    MAX_SWEEP_POINTS: a typo in a seed count must not start a sweep that never ends."""
    if n > MAX_SWEEP_POINTS:
        from .errors import argument_error
        raise argument_error(key, value, f"at most {MAX_SWEEP_POINTS} runs in all (aidcsim.limits.MAX_SWEEP_POINTS), "
                                         f"got {what} = {n}")
