"""Progress and interruption of a Python run: progress=callable sees every stage in order,
progress=True draws a bar on stderr, and a run stopped by its callback or by Ctrl-C (SIGINT)
raises KeyboardInterrupt, leaves the interpreter running, and the next run gives the same results."""
import subprocess
import sys
import textwrap

import pytest

import aidcsim


def test_progress_callable_sees_the_stages_in_order(small_scenario, small_results):
    seen = []
    r = aidcsim.run(small_scenario, progress=lambda stage, f: seen.append((stage, f)))
    assert len(seen) >= 5
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions) and fractions[0] >= 0 and fractions[-1] == pytest.approx(1.0)
    assert any("thermal" in s for s, _ in seen) and any("time-to-train" in s for s, _ in seen)
    assert r.summary == small_results.summary          # reporting changes nothing


def test_progress_true_draws_a_bar_on_stderr(small_scenario, capsys):
    aidcsim.run(small_scenario, progress=True)
    err = capsys.readouterr().err
    assert "100%" in err and small_scenario["name"] in err


def test_progress_rejects_other_values(small_scenario):
    with pytest.raises(TypeError):
        aidcsim.run(small_scenario, progress="yes")


def test_a_callback_that_raises_stops_the_run(small_scenario, small_results):
    calls = []

    def stop(stage, fraction):
        calls.append(stage)
        if len(calls) == 2:
            raise KeyboardInterrupt("stop button")

    with pytest.raises(KeyboardInterrupt):
        aidcsim.run(small_scenario, progress=stop)
    assert len(calls) == 2                               # no stage after the stop
    again = aidcsim.run(small_scenario)                  # the interpreter and the engine go on
    assert again.summary == small_results.summary


def test_ctrl_c_interrupts_a_run_and_the_interpreter_goes_on(tmp_path):
    # SIGINT arrives while the engine runs (GIL released): KeyboardInterrupt at the next progress
    # point; then the same process runs the scenario again and gets the same numbers as a fresh one.
    code = textwrap.dedent("""
        import os, signal, threading, aidcsim
        s = aidcsim.Scenario.default()
        started = threading.Event()
        threading.Thread(target=lambda: (started.wait(), os.kill(os.getpid(), signal.SIGINT)), daemon=True).start()
        try:
            aidcsim.run(s, progress=lambda stage, f: started.set())
            print("not interrupted")
        except KeyboardInterrupt:
            print("interrupted")
        r = aidcsim.run(s)
        print("step_time", repr(r.summary["step_time"]))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")
    assert lines[0] == "interrupted", proc.stdout
    fresh = subprocess.run([sys.executable, "-c", "import aidcsim; print(repr(aidcsim.run().summary['step_time']))"],
                           capture_output=True, text=True, timeout=600)
    assert lines[1] == "step_time " + fresh.stdout.strip()
