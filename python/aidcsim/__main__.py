"""python3 -m aidcsim COMMAND [ARGS...]: the command-line tools of the Python package.

    report RESULTS.h5 [--out DIR]     PNG plots of a results file (aidcsim.report)
    compare A.yaml [--set K=V].. B.yaml .. [--seeds N] [--json F] [--hdf5 F] [--png F]
                                      designs side by side over seeds (aidcsim.compare)
    sweep SWEEP.yaml [-o out.csv] [-j N] [--scheduler ADDR] [--progress]
                                      a parameter sweep (aidcsim.sweep)
    version                           versions of the package and its compiled core

The C++ CLI's `aidcsim report`, `aidcsim sweep` and `aidcsim compare` run these. `python3 -m aidcsim COMMAND --help`
describes each command's arguments.
"""

import importlib
import sys

from ._cli import EXIT_USAGE, on_sigterm, stopped

COMMANDS = {"report": "aidcsim.report", "sweep": "aidcsim.sweep", "compare": "aidcsim.compare"}


def _version():
    import aidcsim
    print(f"aidcsim {aidcsim.__version__} (git {aidcsim.__git_sha__})")
    try:
        print(f"compiled core {aidcsim.core_version}")
    except ImportError as e:
        print(f"compiled core: not importable ({e})")
    return 0


def main(argv=None):
    """Runs COMMAND with ARGS; returns its exit code (64, EX_USAGE, for an unknown or missing
    command, as the C++ CLI)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else EXIT_USAGE
    command, args = argv[0], argv[1:]
    if command == "version":
        return _version()
    if command not in COMMANDS:
        print(f"aidcsim: unknown command '{command}' (expected one of: {', '.join([*COMMANDS, 'version'])})",
              file=sys.stderr)
        return EXIT_USAGE
    on_sigterm(f"aidcsim {command}")
    try:
        return importlib.import_module(COMMANDS[command]).main(args)
    except KeyboardInterrupt:  # Ctrl-C: one line and 130, as the C++ subcommands
        return stopped(f"aidcsim {command}")


if __name__ == "__main__":
    sys.exit(main())
