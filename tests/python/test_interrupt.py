"""Ctrl-C (SIGINT) stops a run that is not on the main thread: a run submitted to a thread pool
(concurrent.futures, asyncio.to_thread, a notebook's background thread) and a run in an isolated
child process. Before, the threaded run ignored the signal (only the main thread's run installed
the handler) and kept the engine's lock until it finished; the isolated run's child, not being
signalled itself, ran to the end while the parent waited for it."""
import os
import signal
import subprocess
import sys
import textwrap

import aidcsim

_THREAD = textwrap.dedent("""
    import signal, sys, threading, aidcsim
    from concurrent.futures import ThreadPoolExecutor
    # Ctrl-C enabled as in an interactive interpreter (a background test job inherits it ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    started = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(aidcsim.run, sys.argv[1], progress=lambda stage, fraction: started.set())
        started.wait()
        print("running", flush=True)
        try:
            future.result()
        except KeyboardInterrupt:
            print("main: KeyboardInterrupt", flush=True)
        error = future.exception()          # waits for the threaded run to end
        print("worker:", type(error).__name__ if error else "finished", flush=True)
    r = aidcsim.run(sys.argv[2])             # the engine's lock is free, the next run works
    print("alive", r.summary["gpus"], flush=True)
""")

_ISOLATED = textwrap.dedent("""
    import signal, sys, aidcsim
    if __name__ == "__main__":
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("running", flush=True)
        try:
            aidcsim.run(sys.argv[1], isolate=True)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
""")


def _interrupt(root, code, *args):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(aidcsim.__file__)))
    p = subprocess.Popen([sys.executable, "-c", code, str(root / "scenarios" / "stargate-uk-rollout.yaml"),
                          *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert p.stdout.readline().strip() == "running"
    p.send_signal(signal.SIGINT)  # to this process only (kill -INT PID), not its process group
    out, err = p.communicate(timeout=600)
    return p.returncode, out.split("\n"), err


def test_ctrl_c_stops_a_run_on_a_worker_thread(root, small_scenario, tmp_path):
    small = tmp_path / "small.yaml"
    small.write_text(small_scenario.to_yaml())
    rc, lines, err = _interrupt(root, _THREAD, small)
    assert rc == 0, err
    assert lines[:3] == ["main: KeyboardInterrupt", "worker: KeyboardInterrupt", "alive 576.0"], (lines, err)
