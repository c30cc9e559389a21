"""Ctrl-C (SIGINT) stops a run that is not on the main thread: a run submitted to a thread pool
(concurrent.futures, asyncio.to_thread, a notebook's background thread) and a run in an isolated
child process. Before, the threaded run ignored the signal (only the main thread's run installed
the handler) and kept the engine's lock until it finished; the isolated run's child, not being
signalled itself, ran to the end while the parent waited for it."""
import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import aidcsim

# A run on a pool's worker thread, started (its first progress report) before the main thread
# goes on inside the with-block with `inside`, then `after` (Ctrl-C enabled as in an interactive
# interpreter: a background test job inherits SIGINT ignored).
_ON_A_WORKER = textwrap.dedent("""
    import os, signal, sys, threading, time, aidcsim
    from concurrent.futures import ThreadPoolExecutor
    signal.signal(signal.SIGINT, signal.default_int_handler)
    started = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(aidcsim.run, sys.argv[1], progress=lambda stage, fraction: started.set())
        started.wait()
""")


def _on_a_worker(inside, after=""):
    return _ON_A_WORKER + textwrap.indent(textwrap.dedent(inside), "    ") + textwrap.dedent(after)


# The main thread waiting for the worker's result; the interrupted worker lets go of the engine.
_THREAD = _on_a_worker("""
    try:  # "running" inside: the test's SIGINT may come as soon as it is read
        print("running", flush=True)
        future.result()
    except KeyboardInterrupt:
        print("main: KeyboardInterrupt", flush=True)
    error = future.exception()          # waits for the threaded run to end
    print("worker:", type(error).__name__ if error else "finished", flush=True)
""", """
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


def _spawned_worker(ppid, timeout=120.0):
    """The pid of `ppid`'s multiprocessing worker (not its resource tracker), once it exists."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmdline = f.read()
            except (OSError, ValueError):
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == ppid and b"spawn_main" in cmdline:
                return int(entry)
        time.sleep(0.05)
    raise AssertionError("no worker process")


def test_ctrl_c_to_the_parent_stops_an_isolated_run(root):
    # The child is stopped (SIGSTOP), so it cannot finish on its own: the parent's KeyboardInterrupt
    # can only come if the parent stops waiting for it. A terminal's Ctrl-C signals the whole process
    # group; `kill -INT PID`, a job scheduler or a supervisor signal the parent alone.
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(aidcsim.__file__)))
    p = subprocess.Popen([sys.executable, "-c", _ISOLATED, str(root / "scenarios" / "stargate-uk-rollout.yaml")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    child = None
    try:
        assert p.stdout.readline().strip() == "running"
        child = _spawned_worker(p.pid)
        os.kill(child, signal.SIGSTOP)
        p.send_signal(signal.SIGINT)
        ready, _, _ = select.select([p.stdout], [], [], 60)
        assert ready, "the parent waits for the isolated run after Ctrl-C"
        assert p.stdout.readline().strip() == "KeyboardInterrupt"
        os.kill(child, signal.SIGCONT)
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    finally:
        if p.poll() is None:
            if child is not None:
                for sig in (signal.SIGKILL, signal.SIGCONT):
                    try:
                        os.kill(child, sig)
                    except ProcessLookupError:
                        pass
            p.kill()
            p.communicate()


_SET_DURING = _on_a_worker("""
    signal.signal(signal.SIGINT, signal.SIG_DFL)   # the main thread's choice, made during the run
    future.result()
""", """
    os.kill(os.getpid(), signal.SIGINT)                # SIG_DFL: this ends the process
    time.sleep(1)
    print("survived", flush=True)
""")


def test_a_handler_set_during_a_threaded_run_is_kept(small_scenario, tmp_path):
    # The run's SIGINT handler is restored to what it replaced only if it is still installed:
    # otherwise the end of a worker-thread run would undo the main thread's signal.signal().
    small = tmp_path / "small.yaml"
    small.write_text(small_scenario.to_yaml())
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(aidcsim.__file__)))
    r = subprocess.run([sys.executable, "-c", _SET_DURING, str(small)], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == -signal.SIGINT, (r.returncode, r.stdout, r.stderr)


_READING = _on_a_worker("""
    try:  # "running" inside: the test's SIGINT may come as soon as it is read
        print("running", flush=True)
        sys.stdin.readline()                 # the REPL's main thread waits for input meanwhile
    except KeyboardInterrupt:
        print("main: KeyboardInterrupt", flush=True)
    error = future.exception()
    print("worker:", type(error).__name__ if error else "finished", flush=True)
""")


def test_ctrl_c_interrupts_the_main_thread_reading_input_during_a_threaded_run(root):
    # The handler a worker-thread run installs keeps Python's flags (no SA_RESTART): the main
    # thread's read() returns EINTR and Python raises KeyboardInterrupt there, as it would without
    # aidcsim; with SA_RESTART the read resumed and Ctrl-C went unnoticed until a line was typed.
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(aidcsim.__file__)))
    p = subprocess.Popen([sys.executable, "-c", _READING, str(root / "scenarios" / "stargate-uk-rollout.yaml")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert p.stdout.readline().strip() == "running"
        p.send_signal(signal.SIGINT)
        ready, _, _ = select.select([p.stdout], [], [], 60)
        assert ready, "the main thread's read() was not interrupted"
        assert p.stdout.readline().strip() == "main: KeyboardInterrupt"
        assert p.stdout.readline().strip() == "worker: KeyboardInterrupt"
        p.communicate(timeout=300)
        assert p.returncode == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
