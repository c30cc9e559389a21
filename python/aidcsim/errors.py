"""Python exceptions of aidcsim, mirroring the C++ ones (models/common/errors.hpp,
sim/scenario/scenario.hpp). The compiled module raises these classes directly, so they are plain,
picklable Python classes: an error raised in a child process (isolated run, sweep worker) arrives
intact in the parent.

Hierarchy::

    Error(RuntimeError)                 aidcsim::Error          any aidcsim failure
    ├── ParameterError(Error, ValueError)  aidcsim::InvalidParameter  .key .value .expected
    │   └── ScenarioError                aidcsim::ScenarioError  + .file .line .column .hint
    └── SimulationError(Error)           aidcsim::SimulationError valid input, simulation impossible
"""


class Error(RuntimeError):
    """Base class of every exception aidcsim raises (C++ ``aidcsim::Error``)."""

    def __reduce__(self):
        return (type(self), self.args, self.__dict__)


class ParameterError(Error, ValueError):
    """A model parameter outside its domain (C++ ``aidcsim::InvalidParameter``).

    Attributes: ``key`` (dotted scenario key, list items as ``name[i]``), ``value`` (the value as
    written), ``expected`` (what would have been accepted).
    """

    def __init__(self, message, key="", value="", expected=""):
        super().__init__(message)
        self.key = key
        self.value = value
        self.expected = expected


class ScenarioError(ParameterError):
    """A bad scenario (C++ ``aidcsim::ScenarioError``): YAML syntax, unknown key, wrong unit, out of
    range, inconsistent values. A ``ValueError``.

    Attributes: ``file`` (path as given, or the name the text was loaded under), ``line`` and
    ``column`` (1-based; 0 when unknown), ``key``, ``value``, ``expected``, ``hint`` (e.g. "did you
    mean 'switch_radix'?"). ``str(e)`` reads ``file:line:column: key: got 'value', expected ...``.
    """

    def __init__(self, message, file="", line=0, column=0, key="", value="", expected="", hint=""):
        super().__init__(message, key, value, expected)
        self.file = file
        self.line = line
        self.column = column
        self.hint = hint


class SimulationError(Error):
    """Valid input, but the simulation cannot proceed (C++ ``aidcsim::SimulationError``): GPUs
    disconnected by failures, a flow with no route, a solver that did not converge."""
