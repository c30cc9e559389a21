"""Fabric: bill of materials, routes and ECMP path counts without a simulation."""
import pytest

import aidcsim


@pytest.fixture(scope="module")
def fabric(small_scenario):
    return aidcsim.Fabric(small_scenario)


def test_bom_counts(fabric):
    b = fabric.bom()
    assert b["gpus"] == fabric.gpu_count == 576
    assert b["switches"] == b["leaves"] + b["spines"] + b["cores"]
    assert b["scaleout_cables"] == b["access_links"] + b["leaf_spine_links"] + b["spine_core_links"]
    assert b["access_links"] == 576  # one NIC per GPU
    assert b["bisection_bandwidth"] > 0


def test_oversub_spine_is_none_on_two_tiers(small_scenario, default_path):
    """A 2-tier fabric has no spine uplinks: None (the CLI's and compare's "-"), not 0.0."""
    s = small_scenario.copy()
    s["fabric.topology"] = "leaf_spine"
    b = aidcsim.Fabric(s).bom()
    assert b["tiers"] == 2
    assert b["oversub_spine"] is None
    assert b["oversub_leaf"] > 0
    three = aidcsim.Fabric(default_path).bom()  # 8,064 GPUs on a 3-tier Clos, 1:1
    assert three["tiers"] == 3
    assert three["oversub_spine"] == 1.0


def test_tables(fabric):
    links = fabric.links()
    assert len(links) == fabric.link_count
    assert {"name", "a", "b", "tier", "rate", "latency", "up"} <= set(links.columns)
    assert (links["rate"] > 0).all()
    assert len(fabric.nodes()) == fabric.node_count


def test_routes(fabric):
    assert fabric.route(0, 0) == []
    inside = fabric.route(0, 1)  # same NVL72 domain: NVLink
    assert inside and all("nv" in h["tier"].lower() for h in inside)
    far = fabric.route(0, 575, flow_hash=7)
    assert far[0]["from"] == "gpu0" and far[-1]["to"] == "gpu575"
    assert all(a["to"] == b["from"] for a, b in zip(far, far[1:]))  # a connected path
    n = fabric.path_count(0, 575)
    assert n >= 1
    assert len(fabric.routes(0, 575)) == min(n, 1024)
    with pytest.raises(aidcsim.ParameterError):
        fabric.route(0, 576)


def test_unbuildable_topology_is_a_scenario_error(small_scenario):
    s = small_scenario.copy()
    s["fabric.switch_radix"] = 4
    s["cluster.gpus"] = 1_000_008
    with pytest.raises(aidcsim.ScenarioError):
        aidcsim.Fabric(s)


def test_as_built_warnings(small_scenario):
    """A clos3 whose 20 rail leaves fit in one pod is built as 2 tiers and says so; with
    fabric.exact it is a ScenarioError at fabric.topology."""
    s = small_scenario.copy()
    s["fabric.oversubscription.spine"] = "4:1"
    f = aidcsim.Fabric(s)
    assert f.bom()["tiers"] == 2
    assert len(f.warnings) == 1 and "clos3 asked, built a 2-tier leaf-spine" in f.warnings[0]
    s["fabric.exact"] = True
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.Fabric(s)
    assert e.value.key == "fabric.topology"


def test_bad_switch_or_link_name_is_a_parameter_error(small_scenario):
    """fail_switch / fail_link with a name the fabric lacks: aidcsim's ParameterError naming the
    bad name and what is valid (each switch kind's count and name range), never a bare KeyError."""
    f = aidcsim.Fabric(small_scenario)
    spines = [n for n in f.nodes()["name"] if n.startswith("spine")]
    with pytest.raises(aidcsim.ParameterError) as e:
        f.fail_switch("spine9.99")
    assert e.value.key == "name" and e.value.value == "spine9.99"
    msg = str(e.value)
    assert msg.startswith("name: got 'spine9.99', expected a switch of this fabric (")
    assert f"{len(spines)} spine: {spines[0]} .. {spines[-1]}" in msg
    with pytest.raises(aidcsim.ParameterError, match="got 'gpu0', expected a switch"):
        f.fail_switch("gpu0")  # a node, not a switch
    with pytest.raises(aidcsim.ParameterError, match=r"got 'leaf0-nowhere', expected a link of this fabric \("):
        f.fail_link("leaf0-nowhere")
    f.fail_switch(spines[0])  # a valid name still works
    links = f.links()
    mine = links[(links["a"] == spines[0]) | (links["b"] == spines[0])]
    assert len(mine) > 0 and not mine["up"].any()


def test_bom_text_counts_as_priced(fabric):
    # The structure table said "optical cables 1216 / transceivers 2432" where the priced BOM has
    # 96 DAC + 1,120 multimode links and 1,408 optical modules: one count now.
    cost = fabric.cost()
    text = fabric.bom_text()
    rows = {line[:37].strip(): line[37:].strip() for line in text.splitlines()[1:]}
    optical = sum(o["modules"] for o in cost["optics"] if o["medium"] != "copper")
    assert int(rows["optical modules"]) == optical
    assert int(rows["copper (DAC)"]) == cost["links_copper"]
    assert int(rows["optical (multimode + single-mode)"]) == cost["links_multimode"] + cost["links_singlemode"]
    assert int(rows["scale-out cables"]) == fabric.bom()["scaleout_cables"]
    assert "transceivers" not in text
