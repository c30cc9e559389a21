"""Progress reporting for runs and sweeps: ``progress=True`` draws a tqdm bar on stderr (python3-tqdm;
a plain line per stage without it), a callable receives ``(stage, fraction)``.

    aidcsim.run(s, progress=True)                       # bar: "stargate-uk-8k: thermal network  54%"
    aidcsim.run(s, progress=lambda stage, f: print(f"{f:4.0%} {stage}"))

An exception raised by the callable stops the run and propagates (a "stop" button: raise from the
callback); Ctrl-C raises KeyboardInterrupt at the next progress point and leaves the interpreter
running.
"""

import sys


class Bar:
    """A progress bar over [0, 1] on stderr: tqdm when installed, else one line per new stage.
    Use as a context manager; calling it with (stage, fraction) updates it."""

    def __init__(self, desc="aidcsim", unit="%"):
        self._desc = desc
        self._last_stage = None
        try:
            from tqdm.auto import tqdm
        except ImportError:  # pragma: no cover - python3-tqdm is installed by install-deps.sh
            tqdm = None
        self._tqdm = tqdm(total=100, desc=desc, unit=unit, file=sys.stderr, leave=True,
                          bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix}") if tqdm else None

    def __call__(self, stage, fraction):
        pct = max(0.0, min(100.0, 100.0 * float(fraction)))
        if self._tqdm is not None:
            self._tqdm.n = round(pct, 1)
            self._tqdm.set_postfix_str(stage, refresh=False)
            self._tqdm.refresh()
        elif stage != self._last_stage:
            print(f"[{pct:3.0f}%] {self._desc}: {stage}", file=sys.stderr, flush=True)
        self._last_stage = stage

    def close(self):
        if self._tqdm is not None:
            self._tqdm.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def callback(progress, desc="aidcsim"):
    """(callable or None, Bar or None) for a ``progress=`` argument: None/False -> no reporting,
    True -> a Bar (close it when done), a callable -> itself. Raises TypeError otherwise."""
    if progress is None or progress is False:
        return None, None
    if progress is True:
        bar = Bar(desc)
        return bar, bar
    if callable(progress):
        return progress, None
    raise TypeError(f"progress must be True, False, None or a callable (stage, fraction), got {progress!r}")
