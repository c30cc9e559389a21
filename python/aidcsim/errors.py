"""Python exceptions of aidcsim, mirroring the C++ ones (models/common/errors.hpp,
models/common/cancel.hpp, sim/scenario/scenario.hpp). The compiled module raises these classes
directly, so they are plain, picklable Python classes: an error raised in a child process (isolated
run, sweep worker) arrives intact in the parent. Every exception aidcsim raises is one of them, with
the key (and file line) where known; Ctrl-C raises Python's own KeyboardInterrupt.

Hierarchy::

    Error(RuntimeError)                    aidcsim::Error          any aidcsim failure
    ├── ParameterError(Error, ValueError)  aidcsim::InvalidParameter  .key .value .expected .hint
    │   ├── ScenarioError                  aidcsim::ScenarioError  + .file .line .column
    │   ├── ArgumentTypeError(ParameterError, TypeError)  an argument of the wrong type
    │   └── ArgumentIndexError(ParameterError, IndexError)  a list index past the end
    ├── FileError(Error, OSError)          aidcsim::FileError      a file that cannot be read or written
    ├── SimulationError(Error)             aidcsim::SimulationError valid input, simulation impossible
    └── Cancelled(Error)                   aidcsim::Cancelled      aidcsim.cancel() stopped the run
"""


class Error(RuntimeError):
    """Base class of every exception aidcsim raises (C++ ``aidcsim::Error``)."""

    def __reduce__(self):
        return (type(self), self.args, self.__dict__)


class ParameterError(Error, ValueError):
    """A model parameter or an argument outside its domain (C++ ``aidcsim::InvalidParameter``).

    Attributes: ``key`` (dotted scenario key, list items as ``name[i]``, or the argument's name),
    ``value`` (the value as written), ``expected`` (what would have been accepted), ``hint`` (a
    suggestion such as "did you mean 'GB200'?", or "").
    """

    def __init__(self, message, key="", value="", expected="", hint=""):
        super().__init__(message)
        self.key = key
        self.value = value
        self.expected = expected
        self.hint = hint


class ScenarioError(ParameterError):
    """A bad scenario (C++ ``aidcsim::ScenarioError``): YAML syntax, text that is not UTF-8, unknown
    key, wrong unit, out of range, inconsistent values, beyond the input limits
    (aidcsim.limits). A ``ValueError``.

    Attributes: ``file`` (path as given, or the name the text was loaded under), ``line`` and
    ``column`` (1-based; 0 when unknown), ``key``, ``value``, ``expected``, ``hint`` (e.g. "did you
    mean 'switch_radix'?"). ``str(e)`` reads ``file:line:column: key: got 'value', expected ...``.
    """

    def __init__(self, message, file="", line=0, column=0, key="", value="", expected="", hint=""):
        super().__init__(message, key, value, expected, hint)
        self.file = file
        self.line = line
        self.column = column


class ArgumentTypeError(ParameterError, TypeError):
    """An argument of the wrong type (``seed=1.5``, ``s["name"] = object()``): a ``TypeError`` and a
    ParameterError whose ``key`` names the argument or scenario key."""


class ArgumentIndexError(ParameterError, IndexError):
    """A list index past the end of its list in a scenario key set from Python
    (``s["rollout.phases[5].gpus"] = 1`` on a 3-item list): an ``IndexError`` and a ParameterError
    whose ``key`` is the key as given, ``value`` the index and ``expected`` the indices allowed."""


def argument_error(key, value, expected, type_error=False):
    """A ParameterError (ArgumentTypeError when `type_error`) reading "key: got 'value', expected ..."."""
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    cls = ArgumentTypeError if type_error else ParameterError
    return cls(f"{key}: got {shown}, expected {expected}", key=key, value=shown, expected=expected)


class FileError(Error, OSError):
    """A file that cannot be read or written (C++ ``aidcsim::FileError``): missing, a directory,
    no permission, a full disk. An ``OSError`` with ``errno`` and ``filename`` where known;
    ``str(e)`` is the message ("cannot read scenario file 'x.yaml': No such file or directory")."""

    def __init__(self, message, errno=None, filename=None):
        if errno:
            OSError.__init__(self, errno, message)
        else:
            OSError.__init__(self, message)
        self.filename = filename
        self.message = message

    def __str__(self):
        return self.message

    def __reduce__(self):
        return (type(self), (self.message, self.errno, self.filename), self.__dict__)


class SimulationError(Error):
    """Valid input, but the simulation cannot proceed (C++ ``aidcsim::SimulationError``): GPUs
    disconnected by failures, a flow with no route, a solver that did not converge, a Monte Carlo
    draw that runs away."""


class Cancelled(Error):
    """The run was stopped by ``aidcsim.cancel()`` (C++ ``aidcsim::Cancelled``). Ctrl-C (SIGINT)
    raises ``KeyboardInterrupt`` instead, as Python does."""
