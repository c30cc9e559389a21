"""aidcsim.validate() makes the checks `aidcsim validate` makes (sim/engine/validation.hpp), not
only the loader's: 0abac4e's validate() accepted a scenario that `aidcsim validate` and run()
refuse (a DP algorithm its DP groups cannot run), and said nothing of the Monte Carlo's size."""
import subprocess

import pytest

import aidcsim


def _sharp_groups(small_scenario):
    s = small_scenario.copy()
    s["workload.parallelism.zero"] = "none"
    s["workload.parallelism.dp_algorithm"] = "sharp"
    s["fabric.sharp"] = True
    return s


def test_a_dp_group_check_is_made_by_validate(small_scenario, tmp_path, cli):
    s = _sharp_groups(small_scenario)
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.validate(s)
    assert e.value.key == "workload.parallelism.dp_algorithm"
    assert e.value.value == "sharp"
    # The same finding as the command line's, at the same line.
    p = tmp_path / "sharp.yaml"
    p.write_text(s.to_yaml())
    with pytest.raises(aidcsim.ScenarioError) as f:
        aidcsim.validate(str(p))
    out = subprocess.run([str(cli), "validate", str(p)], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().endswith(str(f.value)), (out.stderr, str(f.value))
    assert f.value.line > 0


def test_a_monte_carlo_too_large_is_refused_by_validate(small_scenario):
    s = small_scenario.copy()
    s["reliability.draws"] = 1000000
    s["training.tokens"] = "1000T"
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.validate(s)
    assert e.value.key == "training.tokens"
    assert "lower bound of the step time" in str(e.value)


def test_validate_returns_the_notes_of_the_command_line(default_path, cli):
    v = aidcsim.validate(default_path)
    assert v["cluster.gpus"] == 8064  # still the SI values
    assert v.warnings == []
    out = subprocess.run([str(cli), "validate", str(default_path)], capture_output=True, text=True)
    assert out.returncode == 0
    assert [f"note: {n}" for n in v.notes] == [l for l in out.stdout.splitlines() if l.startswith("note: ")]
    assert any("Monte Carlo" in n for n in v.notes)
