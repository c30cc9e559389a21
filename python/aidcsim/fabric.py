"""Fabric: the cluster network of a scenario as a graph (models/topology, Boost.Graph), without
running a simulation: bill of materials, node and link tables, ECMP routes and path counts, link
utilization joined from a run's results."""

from . import _args, _native
from .errors import ScenarioError
from .scenario import as_scenario


class Fabric:
    """The fabric graph built from a scenario (path, Scenario or dict).

    Raises ScenarioError (file/line/key) when the scenario is invalid or the topology cannot be
    built (e.g. switch radix too small for the GPU count).

    - ``cost()`` -> dict: the priced bill of materials (media by reach, optics by part, power,
      INDICATIVE cost); see Fabric.cost.
    - ``bom()`` -> dict: gpus, nvswitches, leaves, spines, cores, switches, links per tier,
      scaleout_cables (access + leaf-spine + spine-core; by medium and with their optical modules
      in cost()), copper_cables (NVLink), bisection_bandwidth [B/s, one direction],
      diameter [switch hops], tiers, oversub_leaf, oversub_spine (as built; None on a 2-tier
      fabric, whose spines have no uplinks: the CLI's "-").
    - ``warnings`` -> list of str: what was built otherwise than asked (an oversubscription whole
      ports cannot give, a clos3 whose leaves fit in one pod), one sentence each; with
      ``fabric.exact: true`` these are ScenarioErrors instead.
    - ``nodes()`` / ``links()`` -> pandas.DataFrame, row = node / link id. Link columns: name, a, b
      (node names, a = lower tier end), tier ("nvlink", "access", "leaf_spine", "spine_core": the
      C++ tier_name), rate [B/s per direction], latency [s], up.
    - ``route(src, dst, flow_hash=0)`` -> list of hop dicts (link, name, tier, from, to, forward,
      rate [B/s], latency [s]); ``path_count(src, dst)`` -> int (equal-cost scale-out paths);
      GPUs are ranks 0..gpu_count-1 (ParameterError outside, ArgumentTypeError for a non-integer).
    - ``utilization(results)`` -> link table joined with a run's per-link utilization.
    - ``fail_link(name)``, ``fail_switch(name)``: what-if failures (routes recomputed).
    - ``draw(path=None)``: pod-level drawing of the fabric as built (matplotlib Figure, PNG).
    """

    def __init__(self, scenario):
        s = as_scenario(scenario)
        text, name = s._source()
        try:
            self._f = _native.core().build_fabric(text, name)
        except ScenarioError as e:
            raise s.relocate(e) from None
        self.scenario = s

    gpu_count = property(lambda self: self._f.gpu_count, doc="GPUs (ranks 0..gpu_count-1).")
    node_count = property(lambda self: self._f.node_count, doc="Nodes: GPUs and switches.")
    link_count = property(lambda self: self._f.link_count, doc="Full-duplex links.")
    warnings = property(lambda self: list(self._f.warnings),
                        doc="What was built otherwise than asked, one sentence each (empty: as asked).")

    def bom(self):
        """Bill of materials as a dict (see the class docstring for keys and units)."""
        return dict(self._f.bom())

    def bom_text(self):
        """The bill of materials as the C++ formats it (format_bom; media and optical modules as
        priced, the same counts as cost())."""
        return self.cost()["bom_text"]

    def cost(self):
        """Priced bill of materials (topology::price_fabric) as a dict.

        Keys: links_copper / links_multimode / links_singlemode (count), cable_length_<medium> and
        longest_<medium> [m], optics (list of {name, medium, rate [B/s], ports, form_factor, end,
        modules, power [W per module], price [USD per module]}), switch_model, switches,
        switch_power [W], nics, nic_power [W], power_switches / power_optics / power_nics /
        power_total [W], cost_switches / cost_optics / cost_nics / cost_total [USD, INDICATIVE],
        gpus_per_rack, compute_racks, network_racks, rows, links_beyond_reach, links_unpriced,
        notes (list of str), text (the priced table `aidcsim topology` prints), bom_text (its
        structure table, bom_text()). Parts, layout and prices
        are models/topology/bom_parts.yaml overridden by the scenario's ``bom:`` section.
        """
        text, name = self.scenario._source()
        try:
            return dict(_native.core().fabric_cost(text, name))
        except ScenarioError as e:
            raise self.scenario.relocate(e) from None

    def nodes(self):
        """Every node of the fabric graph as a pandas.DataFrame, row = node id: kind ("gpu",
        "nvswitch", "leaf", "spine", "core"), index (within its kind), pod, name ("gpu0",
        "spine0.1")."""
        import pandas as pd
        return pd.DataFrame(self._f.nodes())

    def links(self):
        """Every link as a pandas.DataFrame, row = link id: name, a, b (node names, a = lower-tier
        end), tier ("nvlink", "access", "leaf_spine", "spine_core"), rate [B/s per direction],
        latency [s], up (False after fail_link / fail_switch)."""
        import pandas as pd
        return pd.DataFrame(self._f.links())

    def route(self, src, dst, flow_hash=0):
        """ECMP route of one flow GPU src -> GPU dst (list of hop dicts; [] when src == dst).
        Raises SimulationError when no path is up, ParameterError (a ValueError) for a rank
        outside 0..GPUs-1, ArgumentTypeError for a non-integer."""
        return self._f.route(self._gpu(src, "src"), self._gpu(dst, "dst"), _args.integer(flow_hash, "flow_hash", 0, 2**63 - 1))

    def routes(self, src, dst, limit=1024):
        """All equal-cost scale-out paths (at most `limit`), each a list of hop dicts; a pair joined by
        an up NVLink: its one NVLink path."""
        return self._f.routes(self._gpu(src, "src"), self._gpu(dst, "dst"), _args.integer(limit, "limit", 1, 10**6))

    def path_count(self, src, dst):
        """Number of equal-cost shortest scale-out paths between two GPUs (0: disconnected; 1: joined
        by an up NVLink)."""
        return int(self._f.path_count(self._gpu(src, "src"), self._gpu(dst, "dst")))

    def nvlink_domain_of(self, gpu):
        """Index (int) of the NVLink domain GPU rank `gpu` belongs to (rank // cluster.nvlink_domain
        for a uniform cluster). ParameterError outside 0..GPUs-1, ArgumentTypeError for a
        non-integer."""
        return self._f.nvlink_domain_of(self._gpu(gpu, "gpu"))

    def _gpu(self, rank, name):
        return _args.integer(rank, name, 0, self._f.gpu_count - 1)

    def fail_link(self, name, up=False):
        """Takes every link named `name` ("leaf0-spine0" or "leaf0-spine0/1") down (up=True: back up).
        Returns the number of links. ParameterError (key "name") if the fabric has no such link."""
        if not isinstance(name, str):
            raise _args.argument_error("name", name, "a link name (str)", type_error=True)
        return self._f.set_link_up(name, _args.flag(up, "up"))

    def fail_switch(self, name):
        """Takes a switch ("spine0.2") down with all its links. ParameterError (key "name") if `name`
        is not a switch of this fabric; its message gives each switch kind's count and name range."""
        if not isinstance(name, str):
            raise _args.argument_error("name", name, "a switch name (str)", type_error=True)
        self._f.fail_switch(name)

    def draw(self, path=None, ax=None):
        """Pod-level drawing of the fabric as built (aidcsim.fabric_drawing.draw_fabric): tiers,
        counts per pod, links per tier with rates, rails, oversubscription, warnings. Saves a PNG
        to `path` if given; returns the matplotlib Figure."""
        from .fabric_drawing import draw_fabric
        return draw_fabric(self, path, ax)

    def to_graphml(self):
        """GraphML text (networkx.read_graphml reads it)."""
        return self._f.graphml()

    def utilization(self, results, path=None):
        """Link table with the run's utilization of each link joined by link name.

        `results`: a Results (or HDF5 path). `path`: the per-link dataset (default: the first 1-D
        dataset with a "link" axis under /network). Time series (time x link) are reduced to
        their per-link maximum. Returns a DataFrame: link columns + ``utilization`` (unit in
        ``df.attrs["units"]``). Raises KeyError when the results carry no per-link dataset.
        """
        from .results import Results
        if not isinstance(results, Results):
            results = Results.from_hdf5(results)
        if path is None:
            cands = [p for p, d in results.dataset_dims.items()
                     if p.startswith("/network/") and d and d[-1] == "link"]
            if not cands:
                raise KeyError("results have no per-link dataset under /network")
            path = sorted(cands, key=lambda p: ("util" not in p, len(results.dataset_dims[p]), p))[0]
        arr = results.datasets[path]
        values = arr.max(axis=0) if arr.ndim == 2 else arr
        names = results._coord(path, "link", len(values))
        df = self.links()
        df = df.merge(_frame({"name": list(names), "utilization": values}), on="name", how="left")
        df.attrs["units"] = {"utilization": results.dataset_units.get(path, "")}
        return df

    def __repr__(self):
        b = self.bom()
        return (f"<aidcsim.Fabric {self.gpu_count} GPUs, {b['switches']} switches "
                f"({b['leaves']} leaf, {b['spines']} spine, {b['cores']} core), {self.link_count} links>")


def _frame(cols):
    import pandas as pd
    return pd.DataFrame(cols)
