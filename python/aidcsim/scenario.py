"""Scenario: a scenario file as an editable nested dict, with dotted-key access.

The C++ loader (sim/scenario) stays the only validator: a Scenario is serialized back to YAML text
and handed to it, so units, ranges, "did you mean" hints and error messages are exactly those of
the CLI. Unmodified scenarios are passed as their original text, so line numbers match the file;
for modified ones, error locations are mapped back to the original file when the key was written
there, and ``ScenarioError.line`` is 0 for keys that were set from Python.
"""

import copy as _copy
import math
import numbers
import os
import re

import yaml

from . import limits
from .errors import ArgumentIndexError, FileError, ScenarioError, argument_error

# --- YAML dialect -------------------------------------------------------------------------------
# PyYAML implements YAML 1.1, yaml-cpp reads every scalar as text and converts on demand. Two 1.1
# rules would change values on a round trip: base-60 numbers (`leaf: 1:1` -> 61) and timestamps
# (`start: 2026-03-01` -> datetime.date). Both are dropped so such scalars stay strings.


class _Resolver(yaml.resolver.Resolver):
    pass


_Resolver.yaml_implicit_resolvers = {}
for _first, _resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items():
    _Resolver.yaml_implicit_resolvers[_first] = [
        (tag, rx) for tag, rx in _resolvers if tag not in ("tag:yaml.org,2002:timestamp",
                                                           "tag:yaml.org,2002:int",
                                                           "tag:yaml.org,2002:float")]
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"),
    list("-+0123456789"))
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
               r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))


class _Loader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
              yaml.constructor.SafeConstructor, _Resolver):
    def __init__(self, stream):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        _Resolver.__init__(self)

    def compose_node(self, parent, index):
        # An explicit tag (`!!str 8064`, `!!map`, `!custom`) is remembered on its node for
        # _check_node, which refuses it with its key as the C++ loader does: construction would
        # turn it into a value, and an edit's re-dump would drop it silently.
        tag = getattr(self.peek_event(), "tag", None)
        node = super().compose_node(parent, index)
        if tag not in (None, "!"):
            node.explicit_tag = tag
        return node


class _Dumper(yaml.emitter.Emitter, yaml.serializer.Serializer, yaml.representer.SafeRepresenter,
              _Resolver):
    def __init__(self, stream, default_style=None, default_flow_style=False, canonical=None,
                 indent=None, width=None, allow_unicode=None, line_break=None, encoding=None,
                 explicit_start=None, explicit_end=None, version=None, tags=None, sort_keys=True):
        yaml.emitter.Emitter.__init__(self, stream, canonical=canonical, indent=indent, width=width,
                                      allow_unicode=allow_unicode, line_break=line_break)
        yaml.serializer.Serializer.__init__(self, encoding=encoding, explicit_start=explicit_start,
                                            explicit_end=explicit_end, version=version, tags=tags)
        yaml.representer.SafeRepresenter.__init__(self, default_style=default_style,
                                                  default_flow_style=default_flow_style,
                                                  sort_keys=sort_keys)
        _Resolver.__init__(self)


def _repr_float(dumper, value):
    # repr() round-trips exactly; yaml-cpp parses "1e-07" as well as "1.0e-07".
    if value != value:
        text = ".nan"
    elif value in (float("inf"), float("-inf")):
        text = ".inf" if value > 0 else "-.inf"
    else:
        text = repr(value)
        if "." not in text and "e" not in text:
            text += ".0"
        elif "e" in text and "." not in text.split("e")[0]:
            mant, exp = text.split("e")
            text = f"{mant}.0e{'+' if not exp.startswith('-') else ''}{exp.lstrip('+')}"
    return dumper.represent_scalar("tag:yaml.org,2002:float", text)


_Dumper.add_representer(float, _repr_float)


#: sim/scenario/loader.cpp kMergeKeyExpected: the same words for a YAML merge key ("<<: *anchor").
MERGE_KEY_EXPECTED = ("each key written out (a YAML merge key '<<' is not read in scenario files; repeat the keys, "
                      "or use --set / Python to vary them)")


def yaml_load(text, name="<string>"):
    """Parses YAML text the way the C++ loader sees it (no base-60 numbers, no timestamps), within
    aidcsim.limits (size, nesting, values with aliases expanded, list length). Raises ScenarioError
    at the line and column of the problem (YAML syntax included)."""
    if len(text) > limits.MAX_SCENARIO_BYTES or len(text.encode("utf-8", "surrogatepass")) > limits.MAX_SCENARIO_BYTES:
        raise ScenarioError(f"{name}: scenario text larger than {limits.MAX_SCENARIO_BYTES >> 20} MiB",
                            file=name, expected=f"at most {limits.MAX_SCENARIO_BYTES} bytes")
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_node(node, name, "", 0, [0])
        return loader.construct_document(node)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        problem = getattr(e, "problem", None) or str(e)
        raise ScenarioError(f"{name}:{line}:{col}: invalid YAML: {problem}", file=name, line=line, column=col,
                            expected="valid YAML") from None
    except RecursionError:
        raise ScenarioError(f"{name}: more than {limits.MAX_NESTING_DEPTH} levels of nesting", file=name,
                            expected=f"at most {limits.MAX_NESTING_DEPTH} levels of nesting") from None
    finally:
        loader.dispose()


def _check_node(node, name, key, depth, count):
    """The C++ loader's document bounds (sim/scenario/loader.cpp DocumentCheck) on a composed node
    graph, whose aliases are shared nodes: the walk stops at MAX_NODES visits."""
    def fail(expected, at=None, got=None):
        m = (at or node).start_mark
        shown = "(nothing)" if got is None else f"'{got}'"
        raise ScenarioError(f"{name}:{m.line + 1}:{m.column + 1}: {key or '(document)'}: got {shown}, "
                            f"expected {expected}", file=name, line=m.line + 1, column=m.column + 1,
                            key=key, value="" if got is None else got, expected=expected)
    count[0] += 1
    if count[0] > limits.MAX_NODES:
        fail(f"at most {limits.MAX_NODES} values in a scenario, counting each alias as the values it repeats")
    if depth > limits.MAX_NESTING_DEPTH:
        fail(f"at most {limits.MAX_NESTING_DEPTH} levels of nesting")
    tag = getattr(node, "explicit_tag", None)
    if tag is not None:
        fail(f"a value without a YAML tag (got the tag '{tag}'; scenario files use no tags)",
             got=node.value if isinstance(node, yaml.ScalarNode) else None)
    if isinstance(node, yaml.MappingNode):
        seen = {}  # key -> line: PyYAML keeps the last of two equal keys, the C++ loader refuses them
        for k, v in node.value:
            sub = f"{key}.{k.value}" if key and isinstance(k, yaml.ScalarNode) else (k.value if isinstance(k, yaml.ScalarNode) else "?")
            if isinstance(k, yaml.ScalarNode) and k.value == "<<" and k.style is None:
                # A merge key: PyYAML would merge it, the C++ loader does not (an edited Scenario
                # re-dumped merged and validated, the file itself did not: case input/14's kind).
                key = sub
                fail(MERGE_KEY_EXPECTED, at=k, got=k.value)
            _check_node(k, name, sub, depth + 1, count)
            if isinstance(k, yaml.ScalarNode):
                if k.value in seen:
                    key = sub
                    fail(f"each key once (already given at line {seen[k.value]})", at=k, got=k.value)
                seen[k.value] = k.start_mark.line + 1
            _check_node(v, name, sub, depth + 1, count)
    elif isinstance(node, yaml.SequenceNode):
        if len(node.value) > limits.MAX_LIST_ITEMS:
            fail(f"at most {limits.MAX_LIST_ITEMS} items in a list")
        for i, v in enumerate(node.value):
            _check_node(v, name, f"{key}[{i}]", depth + 1, count)


def yaml_dump(data):
    """Serializes plain data (dict/list/str/int/float/bool) to block-style YAML, key order kept."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False,
                     allow_unicode=True, width=100)


# --- dotted keys --------------------------------------------------------------------------------
_PART = re.compile(r"([^.\[\]]+)((?:\[\d+\])*)")


def _split(key):
    """'rollout.phases[1].gpus' -> ['rollout', 'phases', 1, 'gpus']."""
    if not isinstance(key, str) or not key:
        raise KeyError(key)
    parts = []
    for piece in key.split("."):
        m = _PART.fullmatch(piece)
        if not m:
            raise KeyError(f"malformed scenario key {key!r}")
        parts.append(m.group(1))
        parts.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return parts


def _path(parts):
    """['rollout', 'phases', 1] -> 'rollout.phases[1]'."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def _past_end(key, parts, i, length):
    """The error for parts[i], an index past the end of the list at parts[:i] of `length` items:
    a list grows by one item at a time ([length] appends), never with padding items that
    validation would then report under indices the user never wrote."""
    index = parts[i]
    items = f"a list of {length} item{'s' if length != 1 else ''}" if length else "an empty list"
    expected = (f"an index from 0 to {length - 1}, or {length} to append an item" if length
                else "index 0 to append an item")
    return ArgumentIndexError(f"{key}: index {index} is past the end of {_path(parts[:i])}, {items}; "
                              f"expected {expected}", key=key, value=index, expected=expected)


_EXPECTED_VALUE = "a string, number, boolean, list or mapping (scenario syntax such as '400 Gbps')"


def _plain(value, key="", depth=0, count=None, active=None):
    """A value set from Python -> plain data YAML can write (numpy scalars/arrays and tuples become
    numbers and lists), within aidcsim.limits. Raises ArgumentTypeError (a TypeError) for a value
    of another type (an object, bytes, a set, a non-string mapping key) and ParameterError for a
    cycle, too deep or too many values, a string that is not valid text, a non-finite number."""
    count = [0] if count is None else count
    active = set() if active is None else active
    count[0] += 1
    if count[0] > limits.MAX_NODES:
        raise argument_error(key or "scenario", "...", f"at most {limits.MAX_NODES} values in a scenario")
    if depth > limits.MAX_NESTING_DEPTH:
        raise argument_error(key or "scenario", "...", f"at most {limits.MAX_NESTING_DEPTH} levels of nesting")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise argument_error(key, value, "text that can be written as UTF-8 (no lone surrogates)") from None
        return value
    if type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        v = float(value)
        if not math.isfinite(v):
            raise argument_error(key, value, "a finite number")
        return v
    if hasattr(value, "tolist") and hasattr(value, "ndim"):  # numpy arrays and scalars
        return _plain(value.tolist(), key, depth, count, active)
    if isinstance(value, (list, tuple, dict)):
        if id(value) in active:
            raise argument_error(key or "scenario", "...", "no list or mapping that contains itself")
        active.add(id(value))
        try:
            if isinstance(value, dict):
                out = {}
                for k, v in value.items():
                    if not isinstance(k, str):
                        raise argument_error(f"{key}.{k!r}" if key else repr(k), k, "a string key", type_error=True)
                    out[k] = _plain(v, f"{key}.{k}" if key else k, depth + 1, count, active)
                return out
            if len(value) > limits.MAX_LIST_ITEMS:
                raise argument_error(key, f"{len(value)} items", f"at most {limits.MAX_LIST_ITEMS} items in a list")
            return [_plain(v, f"{key}[{i}]", depth + 1, count, active) for i, v in enumerate(value)]
        finally:
            active.discard(id(value))
    raise argument_error(key or "scenario", value, _EXPECTED_VALUE, type_error=True)


def _flatten(data, prefix=""):
    out = {}
    if isinstance(data, dict):
        for k, v in data.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(data, list) and data and all(isinstance(v, dict) for v in data):
        for i, v in enumerate(data):
            out.update(_flatten(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = data
    return out


def _locate(text, key):
    """(line, column), 1-based, where dotted `key` is written in YAML `text`; None if it is not."""
    try:
        parts = _split(key)
    except KeyError:
        return None
    return _locate_path(text, parts)


def _locate_path(text, parts):
    """(line, column), 1-based, where the entry reached by `parts` (mapping keys as written, dots
    and all, and list indices) is written in YAML `text`: a key's own position, a list item's
    start; None if it is not written (or the text is not YAML)."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return None
    mark = None
    for p in parts:
        if isinstance(p, int):
            if not isinstance(node, yaml.SequenceNode) or p >= len(node.value):
                return None
            node = node.value[p]
            mark = node.start_mark
        else:
            if not isinstance(node, yaml.MappingNode):
                return None
            for k, v in node.value:
                if k.value == p:
                    mark, node = k.start_mark, v
                    break
            else:
                return None
    return (mark.line + 1, mark.column + 1) if mark is not None else None


def read_text(path, what="scenario file"):
    """The text of a scenario (or sweep) file: at most aidcsim.limits.MAX_SCENARIO_BYTES of UTF-8.
    Raises FileError (an OSError) if it cannot be read, ScenarioError if it is larger or not UTF-8
    (at the line and column of the first bad byte, as the C++ reader says it)."""
    from . import _args
    path = _args.path(path, "path")
    try:
        with open(path, "rb") as f:
            data = f.read(limits.MAX_SCENARIO_BYTES + 1)
    except OSError as e:
        raise FileError(f"cannot read {what} '{path}': {e.strerror or e}", e.errno, path) from None
    if len(data) > limits.MAX_SCENARIO_BYTES:
        raise ScenarioError(f"{path}: scenario file larger than {limits.MAX_SCENARIO_BYTES >> 20} MiB "
                            "(the limit of a scenario file; is it the right file?)", file=path,
                            expected=f"at most {limits.MAX_SCENARIO_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        start = data.rfind(b"\n", 0, e.start) + 1
        column = len(data[start:e.start].decode("utf-8", "replace")) + 1
        raise ScenarioError(f"{path}:{line}:{column}: invalid UTF-8 (byte 0x{data[e.start]:02X}); scenario "
                            "files are UTF-8 text", file=path, line=line, column=column,
                            expected="UTF-8 text") from None


#: Where a ScenarioError on a key set with ``s[key] = value`` says the key came from (it has no
#: line); the command line's ``--set`` rewrites it (compare.py).
SET_FROM_PYTHON = "(set from Python)"


class Scenario:
    """A scenario file as a nested dict (the YAML structure, values as written, e.g. "400 Gbps").

    - ``Scenario.load(path)``: read a YAML file (not validated until run/validate).
    - ``Scenario.from_dict(d)`` / ``Scenario.from_yaml(text, name)`` / ``Scenario.default()``.
    - ``s["fabric.oversubscription.spine"] = 2`` sets a dotted key, creating intermediate maps;
      list items are addressed as ``"rollout.phases[1].gpus"``; an index one past the end appends
      an item, a larger one raises ArgumentIndexError (an IndexError naming the key and the
      list's length). ``s[key]`` reads it (KeyError if
      absent), ``key in s`` tests it, ``del s[key]`` removes it.
    - ``to_dict()`` (deep copy), ``to_yaml()``, ``copy()``, ``keys()`` (flat dotted keys written).
    - ``validate()`` makes the checks of ``aidcsim validate`` (the C++ loader and what ``run``
      checks before simulating): raises ScenarioError (file, line, column, key, value, expected,
      hint) exactly like ``aidcsim run``; returns the SI values it read (a ``Validated`` dict with
      ``.warnings`` and ``.notes``).

    ``name`` is the file name used in error messages (the path when loaded from a file).
    """

    def __init__(self, data=None, name="<scenario>", text=None):
        self._data = _plain(data) if data is not None else {}
        if not isinstance(self._data, dict):
            raise argument_error("scenario", data, "a mapping at its top level", type_error=True)
        self.name = name
        self._text = text          # original YAML text while unmodified
        self._original = text      # original YAML text, for mapping error locations back
        self._touched = set()      # dotted keys set from Python

    # construction ------------------------------------------------------------------------------
    @classmethod
    def load(cls, path):
        """Reads a YAML scenario file, at most aidcsim.limits.MAX_SCENARIO_BYTES. Raises FileError
        (an OSError) if it cannot be read, ScenarioError for bad YAML, text that is not UTF-8 (at
        the line and column of the first bad byte) or a document beyond the limits."""
        from . import _args
        path = _args.path(path, "path")
        return cls.from_yaml(read_text(path), name=path)

    @classmethod
    def from_yaml(cls, text, name="<string>"):
        """Parses YAML text; `name` is the file name used in error messages. Raises ScenarioError
        (see yaml_load), ArgumentTypeError when `text` is not a str."""
        if not isinstance(text, str):
            raise argument_error("text", text, "YAML text (a str)", type_error=True)
        data = yaml_load(text, name)
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise ScenarioError(f"{name}:1:1: a scenario is a mapping at its top level",
                                file=name, line=1, column=1, expected="a YAML mapping")
        return cls(data, name=name, text=text)

    @classmethod
    def from_dict(cls, data, name="<dict>"):
        """Builds a scenario from a nested dict (deep-copied). Dotted keys at the top level
        ({"cluster.gpus": 576}) are expanded."""
        if not isinstance(data, dict):
            raise argument_error("data", data, "a dict", type_error=True)
        s = cls({}, name=name)
        for k, v in _plain(data).items():  # a bounded, typed copy
            if "." in k or "[" in k:
                s[k] = v
            else:
                s._data[k] = v
        s._touched.clear()
        return s

    @classmethod
    def default(cls):
        """The bundled default scenario (scenarios/stargate-uk-8k.yaml, as compiled into aidcsim)."""
        from . import _native
        text, name = _native.core().default_scenario()
        return cls.from_yaml(text, name=name)

    # access ------------------------------------------------------------------------------------
    def _check_indices(self, parts, key):
        """Raises ArgumentIndexError, before anything is created, if an index of `parts` is past
        the end of its list (a list that does not exist yet, or a non-list value _walk replaces,
        has 0 items)."""
        node = self._data
        for i, p in enumerate(parts):
            if isinstance(p, int):
                items = node if isinstance(node, list) else []
                if not isinstance(node, (list, type(None))):
                    return  # a list index into a mapping: _walk's KeyError
                if p > len(items):
                    raise _past_end(key, parts, i, len(items))
                node = items[p] if p < len(items) else None
            else:
                node = node.get(p) if isinstance(node, dict) else None
            if i + 1 < len(parts) and isinstance(parts[i + 1], int) and not isinstance(node, list):
                if isinstance(node, dict):
                    return  # a list index into a mapping: _walk's KeyError
                node = None  # created (or replaced) as an empty list

    def _walk(self, parts, create):
        node = self._data
        for i, p in enumerate(parts[:-1]):
            nxt = parts[i + 1]
            if isinstance(p, int):
                if not isinstance(node, list):
                    raise KeyError(p)
                if p >= len(node):
                    if not create:
                        raise KeyError(p)
                    node.append({})  # p == len(node): _check_indices refused a larger index
                if node[p] is None or not isinstance(node[p], (dict, list)):
                    if not create:
                        raise KeyError(p)
                    node[p] = [] if isinstance(nxt, int) else {}
                node = node[p]
                continue
            if not isinstance(node, dict):
                raise KeyError(p)
            if p not in node or node[p] is None:
                if not create:
                    raise KeyError(p)
                node[p] = [] if isinstance(nxt, int) else {}
            node = node[p]
        return node

    def __getitem__(self, key):
        parts = _split(key)
        try:
            node = self._walk(parts, create=False)
            last = parts[-1]
            return node[last]
        except (KeyError, IndexError, TypeError):
            raise KeyError(key) from None

    def __setitem__(self, key, value):
        if not isinstance(key, str):
            raise argument_error("key", key, "a dotted scenario key (a str)", type_error=True)
        value = _plain(value, key)
        parts = _split(key)
        self._check_indices(parts, key)
        node = self._walk(parts, create=True)
        last = parts[-1]
        if isinstance(last, int):
            if not isinstance(node, list):
                raise KeyError(key)
            if last == len(node):  # _check_indices refused a larger index
                node.append(value)
            else:
                node[last] = value
        else:
            if not isinstance(node, dict):
                raise KeyError(f"{key}: parent is not a mapping")
            node[last] = value
        self._text = None
        self._touched.add(key)

    def __delitem__(self, key):
        parts = _split(key)
        try:
            node = self._walk(parts, create=False)
            del node[parts[-1]]
        except (KeyError, IndexError, TypeError):
            raise KeyError(key) from None
        self._text = None

    def __contains__(self, key):
        try:
            self[key]
            return True
        except KeyError:
            return False

    def get(self, key, default=None):
        """The value at dotted `key` as written (``s["cluster.gpus"]``), or `default` when absent."""
        try:
            return self[key]
        except KeyError:
            return default

    def keys(self):
        """Flat dotted keys of every value written (list items as name[i].field)."""
        return list(_flatten(self._data))

    def update(self, overrides):
        """Sets several dotted keys: s.update({"cluster.gpus": 576, "workload.parallelism.dp": 8})."""
        for k, v in dict(overrides).items():
            self[k] = v
        return self

    def copy(self):
        """An independent deep copy (values, name, and the file it was loaded from, for error
        locations)."""
        s = Scenario(_copy.deepcopy(self._data), name=self.name, text=self._text)
        s._original = self._original
        s._touched = set(self._touched)
        return s

    def to_dict(self):
        """Deep copy of the nested data (values as written in scenario syntax)."""
        return _copy.deepcopy(self._data)

    def to_yaml(self):
        """YAML text: the original text while unmodified, else the data serialized."""
        return self._text if self._text is not None else yaml_dump(self._data)

    @property
    def modified(self):
        """True once a key was changed from Python (the YAML is then regenerated)."""
        return self._text is None

    # validation --------------------------------------------------------------------------------
    def _source(self):
        """(text, name) handed to the C++ loader. A file name that is not UTF-8 (os.fsdecode's
        surrogates for a Latin-1 "caf\\xe9.yaml") has them as U+FFFD there, as the CLI writes such
        a name into results files: pybind11 cannot pass the str and raised a TypeError quoting the
        whole scenario text (case input/15's kind)."""
        name = self.name
        if isinstance(name, str):
            name = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        return self.to_yaml(), name

    def relocate(self, err):
        """Maps a ScenarioError raised on regenerated YAML back to the original file (in place)."""
        if self._text is not None or not isinstance(err, ScenarioError):
            return err
        key = err.key
        touched = any(key == t or key.startswith(t + ".") or key.startswith(t + "[")
                      for t in self._touched)
        loc = None if touched or not self._original else _locate(self._original, key)
        # A mapping the file does not have above a key set from Python (s["a.typo.b"] = v creates
        # "a.typo"; the loader names that) was set from Python too.
        touched = touched or (loc is None and any(t.startswith(key + ".") or t.startswith(key + "[")
                                                  for t in self._touched))
        old = f"{err.file}:{err.line}:{err.column}"
        if loc:
            err.line, err.column = loc
            new = f"{err.file}:{err.line}:{err.column}"
        else:
            err.line, err.column = 0, 0
            new = f"{err.file} {SET_FROM_PYTHON}" if touched else f"{err.file}"
        if err.args and isinstance(err.args[0], str) and err.args[0].startswith(old):
            err.args = (new + err.args[0][len(old):],) + err.args[1:]
        return err

    def validate(self):
        """Makes every check ``aidcsim validate`` makes, with the same C++ function
        (sim/engine/validation.hpp): the loader (keys, units, ranges, cross-key rules), then what
        ``run`` checks before simulating (each situation's job and fabric, fabric failures, DP
        algorithm per group, cooling, batch schedule, the Monte Carlo's size with a lower bound of
        the step time), without simulating. Returns a ``Validated``: {dotted key: SI value} of every
        validated key (defaults filled), with ``.warnings`` (the fabric built otherwise than
        written, as ``aidcsim validate`` prints them on stderr) and ``.notes`` (what ``run`` checks
        again, as it prints them on stdout). Raises ScenarioError with
        file/line/column/key/value/expected."""
        return self._validate()[0]

    def _validate(self, bom=False):
        """(validate()'s Validated, the BOM): with bom=True Fabric(self).bom()'s dict, from the
        fabric the checks built when it is the scenario's own (compare() wants both: a 31K-GPU
        fabric built twice cost ~0.03 s a design), else None."""
        from . import _native
        text, name = self._source()
        try:
            raw = _native.core().validate_text(text, name, bom)
        except ScenarioError as e:
            raise self.relocate(e) from None
        return Validated(raw["params"], raw["warnings"], raw["notes"]), raw.get("bom")

    def __repr__(self):
        gpus = self.get("cluster.gpus")
        return f"Scenario({self.get('name', self.name)!r}, gpus={gpus}, file={self.name!r})"

    def __eq__(self, other):
        return isinstance(other, Scenario) and self._data == other._data

    # pickling (sweep workers): data, name and original text only
    def __getstate__(self):
        return {"_data": self._data, "name": self.name, "_text": self._text,
                "_original": self._original, "_touched": self._touched}

    def __setstate__(self, state):
        self.__dict__.update(state)


class Validated(dict):
    """{dotted key: SI value} of a validated scenario (a dict), with the findings of a valid one:
    ``warnings`` (list of str: fabric built otherwise than written) and ``notes`` (list of str:
    what ``run`` checks again after simulating, e.g. the Monte Carlo's size)."""

    def __init__(self, params, warnings=(), notes=()):
        super().__init__(params)
        self.warnings = list(warnings)
        self.notes = list(notes)

    def __reduce__(self):
        return (Validated, (dict(self), self.warnings, self.notes))


def as_scenario(obj):
    """A Scenario from a Scenario (copied), a path (str/PathLike) or a dict. ArgumentTypeError
    (a TypeError) for anything else."""
    if isinstance(obj, Scenario):
        return obj.copy()
    if isinstance(obj, dict):
        return Scenario.from_dict(obj)
    if isinstance(obj, (str, os.PathLike)):
        return Scenario.load(obj)
    raise argument_error("scenario", obj, "a Scenario, a path or a dict", type_error=True)
