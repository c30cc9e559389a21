"""Kinds of the bad inputs of ../shared/cases/input/ beyond the samples: the Python loader refuses
what the C++ loader refuses (explicit YAML tags, case 19; a key given twice), so a file loaded,
edited and re-dumped cannot lose them silently; the Python subcommands refuse an empty path
(case 21) and check `report --html` before drawing (case 13)."""
import os
import signal
import subprocess
import time

import pytest

import aidcsim


@pytest.mark.parametrize("old, new, tag", [
    ("gpus: 8064 ", "gpus: !!str 8064 ", "tag:yaml.org,2002:str"),
    ("gpus: 8064 ", "gpus: !!float 8064 ", "tag:yaml.org,2002:float"),
    ("cluster:\n", "cluster: !!map\n", "tag:yaml.org,2002:map"),
    ("cluster:\n", "cluster: !site\n", "!site"),
])
def test_a_tag_is_refused_by_load_not_dropped_by_an_edit(bad_file, old, new, tag):
    # 0.1.0: Scenario.load kept `gpus: !!str 8064` as '8064' and `cluster: !!map` as a dict; after
    # one edit the re-dumped YAML had no tag and validate()/run() accepted what the CLI refuses.
    path, line = bad_file(old, new)
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.Scenario.load(path)
    assert e.value.line == line
    assert f"expected a value without a YAML tag (got the tag '{tag}'" in str(e.value)
    assert e.value.key in ("cluster", "cluster.gpus")


def test_a_key_given_twice_is_refused_by_load(tmp_path, default_path):
    # 0.1.0: PyYAML kept the last `seed`; the CLI refuses the file, Python ran it after an edit.
    text = default_path.read_text()
    p = tmp_path / "twice.yaml"
    p.write_text(text + "seed: 7\n")
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.Scenario.load(p)
    first = text[: text.index("\nseed:") + 1].count("\n") + 1
    assert e.value.line == text.count("\n") + 1
    assert e.value.key == "seed"
    assert f"expected each key once (already given at line {first})" in str(e.value)
    # The C++ loader says the same of the file.
    with pytest.raises(aidcsim.ScenarioError, match=r"each key once \(already given at line"):
        aidcsim.validate(str(p))


def test_a_merge_key_is_refused_by_load_and_by_the_cli_alike(tmp_path, default_path):
    # Case input/14's kind (Python after an edit must say what the CLI says): on 1e9e09c a file with
    # `- <<: *g` (a YAML merge key) in reliability.failures was refused by `aidcsim validate` (unknown
    # key '<<') and by Scenario.load + validate, but after one edit PyYAML re-dumped it merged and
    # validate() accepted it.
    p = tmp_path / "merge.yaml"
    p.write_text(default_path.read_text() + 'reliability:\n  failures:\n    - &g {component: gpu, mtbf: "50000 h"}\n'
                 '    - <<: *g\n      component: node\n')
    line = p.read_text().count("\n") - 1
    expected = "reliability.failures[1].<<: got '<<', expected each key written out (a YAML merge key '<<'"
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.Scenario.load(p)
    assert (e.value.line, e.value.column) == (line, 7) and expected in str(e.value)
    with pytest.raises(aidcsim.ScenarioError) as c:  # the C++ loader, the same words and place
        aidcsim.validate(str(p))
    assert str(c.value) == str(e.value)
    # A quoted "<<" is a key like any other (unknown here), not a merge.
    q = tmp_path / "quoted.yaml"
    q.write_text(default_path.read_text().replace("  gpus: 8064 ", '  "<<": 1\n  gpus: 8064 ', 1))
    with pytest.raises(aidcsim.ScenarioError, match=r"cluster\.<<: got '<<', expected one of the keys of 'cluster'"):
        aidcsim.validate(aidcsim.Scenario.load(q))


def test_sweep_file_key_twice_or_tagged(cli, default_path, tmp_path):
    for body, what in (("parameters:\n  seed: [1]\n  seed: [2]\n", "parameters.seed: got 'seed', expected each key once"),
                       ("parameters:\n  seed: [1]\noverrides:\n  cluster: !!map {gpus: 8064}\n",
                        "overrides.cluster: got (nothing), expected a value without a YAML tag")):
        f = tmp_path / "sw.yaml"
        f.write_text(f"base: {default_path}\n" + body)
        r = subprocess.run([str(cli), "sweep", str(f)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 2, r.stderr
        assert what in r.stderr
        assert r.stdout == ""


@pytest.mark.parametrize("args", [["sweep", "SW", "-o", ""], ["sweep", ""],
                                  ["compare", "S", "--seeds", "1", "--json", ""],
                                  ["compare", "S", "--seeds", "1", "--hdf5", ""],
                                  ["compare", "S", "--seeds", "1", "--png", ""],
                                  ["compare", ""], ["compare", "S", "--seeds", "1", ""],
                                  ["compare", "S", "--set", "seed=1", "", "--set", "seed=2"],
                                  ["report", "R", "--out", ""], ["report", "R", "--html", ""], ["report", ""]])
def test_an_empty_path_is_a_usage_error(cli, default_path, tmp_path, args):
    # 0.1.0: `sweep -o ''` printed the CSV on stdout, `compare --json ''` and `report --html ''`
    # exited 0 writing nothing, `report --out ''` used the default directory; `compare ''` (an empty
    # design file) exited 1 as a failed run.
    sw = tmp_path / "sw.yaml"
    sw.write_text(f"base: {default_path}\nparameters:\n  seed: [1]\n")
    args = [{"SW": str(sw), "S": str(default_path), "R": str(tmp_path / "r.h5")}.get(a, a) for a in args]
    r = subprocess.run([str(cli)] + args, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 64, r.stderr
    assert "the value is empty" in r.stderr
    assert r.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sw.yaml"]


def test_report_html_checked_before_the_plots(cli, small_results, tmp_path):
    # 0.1.0 drew every PNG into RESULTS-report/ and only then failed on the HTML's missing directory.
    h5 = tmp_path / "r.h5"
    small_results.to_hdf5(h5)
    r = subprocess.run([str(cli), "report", str(h5), "--html", str(tmp_path / "no" / "r.html")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1
    assert "no/r.html" in r.stderr
    assert not (tmp_path / "r-report").exists()


def test_a_scenario_file_name_that_is_not_utf8(cli, default_path, tmp_path):
    # Case 03's kind in a file name (Linux names are bytes; Python has them as surrogates): 0.1.0's
    # aidcsim.run() raised a pybind11 TypeError quoting the whole scenario text, and the CLI's
    # HDF5 held the raw byte, which `aidcsim report` could not pass on. Now U+FFFD stands for it.
    import h5py
    p = tmp_path / os.fsdecode(b"caf\xe9.yaml")
    p.write_text(default_path.read_text() + "reliability:\n  draws: 10\n")
    assert aidcsim.validate(str(p))["seed"] == 42
    r = aidcsim.run(str(p))
    assert r.summary["step_time"] > 0
    h5 = tmp_path / "x.h5"
    c = subprocess.run([str(cli), "run", str(p), "--quiet", "-o", str(h5)], capture_output=True, timeout=300)
    assert c.returncode == 0, c.stderr
    with h5py.File(h5, "r") as f:
        assert f.attrs["scenario_file"].endswith("caf\ufffd.yaml")
    rep = subprocess.run([str(cli), "report", str(h5), "--out", str(tmp_path / "rep")], capture_output=True,
                         text=True, timeout=300)
    assert rep.returncode == 0, rep.stderr


@pytest.mark.parametrize("sig, code, line", [(signal.SIGINT, 130, "interrupted (SIGINT)"),
                                             (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_compare_stopped_by_a_signal_says_so(cli, default_path, tmp_path, sig, code, line):
    # Case step/11's kind in the Python subcommands: 0.1.0's `compare` printed a KeyboardInterrupt
    # traceback on Ctrl-C, and `compare` and `sweep` died silently (143) on SIGTERM.
    p = subprocess.Popen([str(cli), "compare", str(default_path), "--seeds", "400", "--json", "c.json"],
                         cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         # SIGINT as a terminal's Ctrl-C delivers it: not ignored (a background job's is).
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(3)  # inside the runs (400 seeds take minutes); a run that ended first fails the test
        p.send_signal(sig)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == code, err
    assert f"aidcsim compare: {line}; no output written" in err.splitlines()
    assert "Traceback" not in err
    assert sorted(x.name for x in tmp_path.iterdir()) == []
