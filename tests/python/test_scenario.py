"""Scenario: load, dotted-key overrides, dict/YAML round trips, validation errors with file:line."""
import pickle

import pytest

import aidcsim
from aidcsim import Scenario, ScenarioError


def test_load_and_get(default_path):
    s = Scenario.load(default_path)
    assert s.name == str(default_path)
    assert s["cluster.gpus"] == 8064
    assert s["fabric.link_rate"] == "400 Gbps"
    assert s["fabric.oversubscription.leaf"] == "1:1"
    assert not s.modified
    assert s.to_yaml() == default_path.read_text()  # unmodified: the original text, lines intact
    with pytest.raises(KeyError):
        s["fabric.no_such_key"]
    assert "cluster.gpus" in s and "cluster.nope" not in s
    assert "fabric.ecmp.mode" in s.keys()


def test_override_creates_maps_and_copies_are_independent(default_path):
    s = Scenario.load(default_path)
    t = s.copy()
    t["fabric.oversubscription.spine"] = 2
    t["a.b.c"] = "5 K"
    t["rollout.phases[0].gpus"] = 31000  # a new list: [0] appends its first item
    assert t["fabric.oversubscription.spine"] == 2 and t.modified
    assert t["a"] == {"b": {"c": "5 K"}}
    assert t["rollout.phases"] == [{"gpus": 31000}]
    assert s["fabric.oversubscription.spine"] == "1:1" and not s.modified
    del t["a"]
    assert "a" not in t


def test_list_index_past_the_end_is_an_index_error(root):
    # Was: the list was padded with {} items, and validation then named phases[3], an item the
    # user never wrote. [len] appends; past it, ArgumentIndexError names the key and the length.
    s = Scenario.load(root / "scenarios" / "stargate-uk-rollout.yaml")
    before = s.to_dict()
    with pytest.raises(IndexError) as ei:
        s["rollout.phases[5].gpus"] = 1
    e = ei.value
    assert isinstance(e, aidcsim.ArgumentIndexError) and isinstance(e, aidcsim.ParameterError)
    assert str(e) == ("rollout.phases[5].gpus: index 5 is past the end of rollout.phases, a list of 3 "
                      "items; expected an index from 0 to 2, or 3 to append an item")
    assert e.key == "rollout.phases[5].gpus" and e.value == 5
    with pytest.raises(aidcsim.ArgumentIndexError, match=r"^rollout\.phases\[4\]: .* a list of 3 items"):
        s["rollout.phases[4]"] = {"gpus": 1}
    assert s.to_dict() == before and not s.modified  # nothing padded or created
    s["rollout.phases[3]"] = {"name": "40K"}  # one past the end appends
    s["rollout.phases[3].gpus"] = 40320
    assert s["rollout.phases[3]"] == {"name": "40K", "gpus": 40320}
    # a list that does not exist yet has 0 items; nothing is created on the way to the error
    with pytest.raises(aidcsim.ArgumentIndexError, match=r"past the end of x\.y, an empty list; expected index 0"):
        s["x.y[1].z"] = 1
    assert "x" not in s
    with pytest.raises(aidcsim.ArgumentIndexError, match=r"past the end of rollout\.phases\[0\]\.m"):
        s["rollout.phases[0].m[0][2]"] = 1
    assert "rollout.phases[0].m" not in s


def test_numpy_values_become_plain(default_path):
    np = pytest.importorskip("numpy")
    s = Scenario.load(default_path)
    s["cluster.gpus"] = np.int64(576)
    assert type(s["cluster.gpus"]) is int
    assert "576" in s.to_yaml()


def test_dict_and_yaml_round_trip(default_path):
    s = Scenario.load(default_path)
    d = s.to_dict()
    assert Scenario.from_dict(d).to_dict() == d
    t = Scenario.from_yaml(Scenario.from_dict(d).to_yaml())
    assert t.to_dict() == d
    # YAML 1.1 traps stay strings: ratios and dates are not base-60 numbers or timestamps
    u = Scenario.from_yaml("x: 1:1\ny: 2026-03-01\n")
    assert u["x"] == "1:1" and u["y"] == "2026-03-01"
    # dotted keys at the top level of a dict are expanded
    assert Scenario.from_dict({"cluster.gpus": 8})["cluster"] == {"gpus": 8}
    assert pickle.loads(pickle.dumps(s)).to_dict() == d


def test_validate_returns_si_values(default_path):
    p = Scenario.load(default_path).validate()
    assert p["cluster.gpus"] == 8064
    assert p["fabric.link_rate"] == pytest.approx(50e9)       # 400 Gbps in B/s
    assert p["cooling.facility_supply"] == pytest.approx(291.15)  # 18 degC in K
    assert p["cooling.flow_per_gpu"] == pytest.approx(1 / 60000)   # 1 L/min in m^3/s


def test_misspelt_key_names_file_line_and_hint(bad_file):
    path, line = bad_file("  switch_radix: 64", "  switch_radx: 64")
    with pytest.raises(ScenarioError) as ei:
        aidcsim.validate(path)
    e = ei.value
    assert isinstance(e, ValueError) and isinstance(e, aidcsim.Error)
    assert e.file == str(path) and e.line == line and e.column >= 1
    assert "switch_radx" in e.key
    assert "switch_radix" in (e.hint + str(e))
    assert str(e).startswith(f"{path}:{line}:")


def test_rate_in_bytes_is_rejected_with_location(bad_file):
    path, line = bad_file('link_rate: "400 Gbps"', 'link_rate: "400 GB"')
    with pytest.raises(ScenarioError) as ei:
        aidcsim.run(path)
    e = ei.value
    assert (e.file, e.line, e.key) == (str(path), line, "fabric.link_rate")
    assert "400 GB" in e.value and e.expected


def test_negative_gpu_count(bad_file):
    path, line = bad_file("gpus: 8064", "gpus: -8")
    with pytest.raises(ScenarioError) as ei:
        aidcsim.validate(path)
    assert (ei.value.line, ei.value.key) == (line, "cluster.gpus")


def test_error_after_override_points_into_the_original_file(bad_file):
    # A modified scenario is re-serialized; errors on keys written in the file still point at
    # the file's own line, and errors on keys set from Python say so (line 0).
    path, line = bad_file('link_rate: "400 Gbps"', 'link_rate: "400 GB"')
    s = Scenario.load(path)
    s["cooling.flow_per_gpu"] = "0.8 L/min"
    with pytest.raises(ScenarioError) as ei:
        s.validate()
    assert (ei.value.file, ei.value.line, ei.value.key) == (str(path), line, "fabric.link_rate")
    assert str(ei.value).startswith(f"{path}:{line}:")

    t = Scenario.load(path.parent / "bad.yaml")
    t["fabric.link_rate"] = "400 Gbps"
    t["fabric.nic_rate"] = "12 apples"
    with pytest.raises(ScenarioError) as ei:
        t.validate()
    assert ei.value.key == "fabric.nic_rate" and ei.value.line == 0
    assert "set from Python" in str(ei.value)


def test_misspelt_section_set_from_python_says_so(default_path):
    # s["fabric.oversubscripton.spine"] creates the misspelt mapping fabric.oversubscripton; the
    # loader's error names that mapping, a parent of the key set, which the file does not have: it
    # was set from Python (it used to be reported as the file's, with no line and no word why).
    s = Scenario.load(default_path)
    s["fabric.oversubscripton.spine"] = "2:1"
    with pytest.raises(ScenarioError) as ei:
        s.validate()
    assert ei.value.key == "fabric.oversubscripton" and ei.value.line == 0
    assert str(ei.value).startswith(f"{default_path} (set from Python): fabric.oversubscripton:")
    assert "did you mean 'oversubscription'" in str(ei.value)
    # A section written in the file keeps its line even when a key under it was set from Python.
    t = Scenario.load(default_path)
    t["fabric.oversubscription.spine"] = "1:2"
    with pytest.raises(ScenarioError) as ei:
        t.validate()
    assert ei.value.key == "fabric.oversubscription.spine" and "set from Python" in str(ei.value)


def test_errors_pickle_with_their_fields():
    e = ScenarioError("f.yaml:3:5: k: bad", file="f.yaml", line=3, column=5, key="k", value="v",
                      expected="x", hint="did you mean 'j'?")
    f = pickle.loads(pickle.dumps(e))
    assert (f.file, f.line, f.column, f.key, f.value, f.expected, f.hint) == \
        ("f.yaml", 3, 5, "k", "v", "x", "did you mean 'j'?")
    assert str(f) == str(e)


def test_parameter_error_carries_the_hint():
    """ParameterError (C++ InvalidParameter) has .hint like ScenarioError, and keeps it when pickled."""
    e = aidcsim.errors.ParameterError("cluster.gpu: got 'gb200', expected a GPU", key="cluster.gpu",
                                      value="gb200", expected="a GPU", hint="did you mean 'GB200'?")
    f = pickle.loads(pickle.dumps(e))
    assert (f.key, f.value, f.expected, f.hint) == ("cluster.gpu", "gb200", "a GPU", "did you mean 'GB200'?")
    assert aidcsim.errors.ParameterError("m").hint == ""


def test_missing_section_of_a_dict_names_the_dict_not_a_file():
    """A required section missing from a scenario built from a dict is reported "in <dict>" (its
    name), not "in the file" it never came from."""
    data = Scenario.default().to_dict()
    del data["workload"]
    for s, name in ((Scenario.from_dict(data), "<dict>"), (Scenario(data, name="my sweep point"), "my sweep point")):
        with pytest.raises(ScenarioError) as ei:
            s.validate()
        assert f"no 'workload' section in {name})" in str(ei.value)
        assert "in the file" not in str(ei.value)


def test_gpu_defined_in_python_is_validated(default_path):
    """A GPU not in the catalogue, defined in the scenario's gpus: list (docs/gpus.md)."""
    s = Scenario.load(default_path)
    s["gpus"] = [{"name": "H200-600W", "base": "H200", "tdp": "600 W"}]
    s["cluster.gpu"] = "H200-600W"
    s["cluster.nvlink_domain"] = 8  # HGX H200: 8-GPU NVLink domains (max_nvlink_domain)
    params = s.validate()
    assert params["cluster.gpu"] == "H200-600W"
    s["gpus[0].tdp"] = "600"  # no unit
    with pytest.raises(ScenarioError) as e:
        s.validate()
    assert e.value.key == "gpus[0].tdp"
