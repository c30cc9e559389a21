"""Command-line plumbing shared by ``aidcsim report|sweep|compare`` (``python3 -m aidcsim ...``): the
exit codes of the C++ CLI (sim/cli/commands.hpp, docs/cli.md) and an argparse parser that exits
with EX_USAGE (64) on a usage error, as the C++ subcommands do, instead of argparse's 2 (which the
C++ CLI uses for an invalid scenario)."""

import argparse
import os
import signal
import sys

EXIT_OK = 0
EXIT_ERROR = 1             # the run could not proceed, an output could not be written
EXIT_INVALID_SCENARIO = 2  # an invalid scenario (or sweep file): file:line:column: key: ...
EXIT_USAGE = 64            # command-line usage error (EX_USAGE, sysexits.h)
EXIT_SIGINT = 130          # stopped by SIGINT (128 + 2)
EXIT_SIGTERM = 143         # stopped by SIGTERM (128 + 15)


def on_sigterm(prog):
    """On SIGTERM, prints ``PROG: terminated (SIGTERM); no output written`` on stderr and exits 143
    at once, unless SIGTERM is ignored (nohup). Python's default died silently with 143, where the
    C++ subcommands print one line (sim/cli/signals.hpp). Not an exception: one raised inside a
    process pool's bookkeeping left `compare` waiting forever for its workers. Nothing is left
    behind: outputs are published whole or not at all (aidcsim._files), and the pool's workers get
    SIGKILL when this process dies (aidcsim._workers)."""
    line = f"{prog}: terminated (SIGTERM); no output written\n".encode()

    def handler(signum, frame):
        try:
            os.write(2, line)
        finally:
            os._exit(EXIT_SIGTERM)

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, handler)


def stopped(prog):
    """Prints ``PROG: interrupted (SIGINT); no output written`` on stderr (after Ctrl-C's
    KeyboardInterrupt); returns EXIT_SIGINT."""
    try:
        print(f"{prog}: interrupted (SIGINT); no output written", file=sys.stderr)
    except (BrokenPipeError, OSError):
        pass
    return EXIT_SIGINT


class ArgumentParser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose usage errors (unknown option, missing or malformed argument)
    print the usage and ``PROG: error: MESSAGE`` on stderr and exit with EXIT_USAGE (64); --help
    still exits 0."""

    def error(self, message):
        usage_error(self, message)


def processes_arg(text):
    """argparse ``type=`` of ``-j/--processes``: an integer from 0 to aidcsim.limits.MAX_PROCESSES,
    as sweep() takes it; else a usage error (exit 64). ``compare -j 2**64`` ended in an OverflowError
    traceback and ``-j -1`` ran; ``sweep -j -1`` was exit 2, an invalid sweep file (case input/11's
    kind: a number out of range on the command line)."""
    from . import limits
    try:
        v = int(text, 10)
    except ValueError:
        v = None
    if v is None or not 0 <= v <= limits.MAX_PROCESSES:
        raise argparse.ArgumentTypeError(f"got '{text}', expected an integer from 0 to {limits.MAX_PROCESSES} "
                                         "(0 or 1: in this process)")
    return v


def path_arg(text):
    """argparse ``type=`` of a file or directory argument: an empty string is a usage error (exit
    64, "the value is empty"), not "not given" (``sweep -o ''`` printed the CSV on stdout,
    ``compare --json ''`` and ``report --html ''`` wrote nothing, ``report --out ''`` used the
    default directory), as the C++ subcommands refuse ``run ''`` (sim/cli/main.cpp)."""
    if text == "":
        raise argparse.ArgumentTypeError("the value is empty (give a path, or leave the option out)")
    return text


def output_over_input(option, path, inputs):
    """The usage error text when the output `path` of `option` would replace an input of the
    command (the same file as one of `inputs`, e.g. ``report x.h5 --html x.h5``, ``compare d.scn
    --json d.scn``) or is a .yaml/.yml name (a scenario's: aidcsim writes no YAML); None when it may
    be written. ``run --json scenario.yaml`` and ``topology s.yaml --graphml s.yaml`` are refused so
    (sim/cli/common.cpp refuse_output_over_input); case input/21's kind: an output path that must
    not be written."""
    if path is None or path == "-":
        return None
    for inp in inputs:
        try:
            if inp and os.path.exists(path) and os.path.samefile(path, inp):
                return f"{option}: '{path}': the input file '{inp}' itself, not an output"
        except OSError:
            continue
    if path.lower().endswith((".yaml", ".yml")):
        return f"{option}: '{path}': a scenario file (.yaml), not an output (aidcsim writes no YAML)"
    return None


def usage_error(parser, message):
    """Prints `parser`'s usage and ``PROG: error: MESSAGE`` on stderr and exits EXIT_USAGE (raises
    SystemExit(64))."""
    parser.print_usage(sys.stderr)
    parser.exit(EXIT_USAGE, f"{parser.prog}: error: {message}\n")
