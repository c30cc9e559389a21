// YAML scenario -> validated Params (SI) -> model specs. Walks the document against full_schema():
// unknown keys, units, ranges, choices, required keys; records where every key was written so that
// any later model error can be reported at file:line:column.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "models/common/suggest.hpp"
#include "models/common/units.hpp"
#include "models/compute/compute_schema.hpp"
#include "models/reliability/reliability_schema.hpp"
#include "models/thermal/thermal_schema.hpp"
#include "models/topology/bom_schema.hpp"
#include "models/topology/topology_schema.hpp"
#include "models/workload/workload_schema.hpp"
#include "sim/scenario/bom_parts.hpp"
#include "sim/scenario/default_scenario.hpp"
#include "sim/scenario/gpu_catalogue.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/keys_in_use.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/schema_registry.hpp"
#include "sim/scenario/unit_parser.hpp"
#include "sim/scenario/validate.hpp"

namespace aidcsim {
namespace {

/// `text` with control bytes (and, with `high`, every byte from 0x7F up) written as \xNN.
std::string escape_bytes(const std::string& text, bool high) {
  std::string out;
  for (const char ch : text) {
    const auto b = static_cast<unsigned char>(ch);
    if (b < 0x20 || b == 0x7F || (high && b > 0x7F)) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", b);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

/// `text` with its ASCII control characters written as YAML escapes ("a\\x00b"), for an error
/// message that must not carry them to the terminal.
std::string printable_text(const std::string& text) { return escape_bytes(text, false); }

/// `text` with every byte outside printable ASCII written as \xNN: an error message quoting text
/// that is not valid UTF-8 stays valid UTF-8 (and carries no control character).
std::string escaped_bytes(const std::string& text) { return escape_bytes(text, true); }

std::string join(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

std::string parent_of(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? std::string() : key.substr(0, dot);
}

std::string last_of(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string with_article(const std::string& noun) {
  const bool vowel = !noun.empty() && std::string("aeiou").find(noun[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + noun;
}

std::string node_kind(const YAML::Node& n) {
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  if (n.IsNull()) return "nothing";
  return "a scalar";
}

// A value's text for an error: a scalar as written, a list or mapping in YAML flow style
// ("[1, 2]"), cut at 60 characters; empty for nothing.
std::string node_text(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  if (!n.IsSequence() && !n.IsMap()) return "";
  YAML::Emitter out;
  out << YAML::Flow << n;
  std::string text = out.good() ? out.c_str() : "";
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

// How an error shows a list or mapping given where another kind was expected: its kind and its
// text ("a list [1, 2]"); empty for a scalar or nothing (shown as the value itself).
std::string node_shown(const YAML::Node& n) {
  if (!n.IsSequence() && !n.IsMap()) return "";
  const std::string text = node_text(n);
  return node_kind(n) + (text.empty() ? "" : " " + text);
}

/// An error for a value of the wrong YAML kind: "key: got a list [1, 2], expected ...".
ScenarioError wrong_kind(const SourceLocation& where, const std::string& key, const YAML::Node& v,
                         const std::string& expected) {
  return ScenarioError(where, key, node_text(v), expected + (v.IsScalar() ? " (got a scalar)" : ""), "", node_shown(v));
}

class Walker {
 public:
  /// `set_keys`: keys written by --set overrides (and mappings or items they created), reported
  /// at `set_where` rather than at a line of the file.
  Walker(const Schema& schema, std::string file, std::map<std::string, SourceLocation>& locations,
         std::vector<std::string> set_keys = {}, SourceLocation set_where = {})
      : schema_(schema),
        file_(std::move(file)),
        locations_(locations),
        set_keys_(std::move(set_keys)),
        set_where_(std::move(set_where)) {}

  SourceLocation at(const YAML::Mark& m) const {
    if (m.line < 0) return SourceLocation{file_, 0, 0};
    return SourceLocation{file_, m.line + 1, m.column + 1};
  }

  // Where the key `actual` was written: its line in the file, or the --set that gave it (its
  // node's marks are then those of the value's own text, not of the file).
  SourceLocation at_key(const std::string& actual, const YAML::Mark& m) const {
    for (const std::string& k : set_keys_)
      if (actual == k || (actual.size() > k.size() && actual.compare(0, k.size(), k) == 0 &&
                          (actual[k.size()] == '.' || actual[k.size()] == '[')))
        return set_where_;
    return at(m);
  }

  /// Walks one YAML mapping. `schema_prefix` is the schema key of the mapping ("fabric",
  /// "rollout.phases[]"), `actual_prefix` its key as written ("rollout.phases[1]"), and values go
  /// to `target` under `rel_prefix` (relative to target.path()).
  void walk_map(const YAML::Node& node, const std::string& schema_prefix, const std::string& actual_prefix,
                Params& target, const std::string& rel_prefix) {
    std::map<std::string, int> seen;  // key -> line first written
    std::vector<Pending> pending;     // keys whose kind follows a sibling (Field::quantity_from)
    for (auto it = node.begin(); it != node.end(); ++it) {
      // By value: the iterator's pair is a temporary proxy (references to it dangle: ASan
      // stack-use-after-scope); a Node is a cheap handle.
      const YAML::Node k = it->first;
      const YAML::Node v = it->second;
      std::string name = k.IsScalar() ? k.Scalar() : std::string();
      // `workloads:` (the spelling of ASTRA-sim #225 / SimAI #282's requests) is read as `jobs:`.
      if (schema_prefix.empty() && name == "workloads") name = "jobs";
      const std::string actual = join(actual_prefix, name);
      const SourceLocation where = at_key(actual, k.Mark());
      if (!k.IsScalar() || name.empty())
        throw ScenarioError(where, join(actual_prefix, "?"), "",
                            "a plain key name (got " + node_kind(k) + " as a key)");
      if (auto s = seen.find(name); s != seen.end())
        throw ScenarioError(where, actual, name,
                            "each key once (already given at line " + std::to_string(s->second) + ")");
      seen[name] = where.line;
      locations_[actual] = where;

      const std::string schema_key = join(schema_prefix, name);
      const Field* f = find_field(schema_, schema_key);
      if (!f) unknown_key(name, schema_prefix, actual, where);
      const std::string rel = join(rel_prefix, name);

      switch (f->quantity) {
        case Quantity::Map:
          if (v.IsNull()) break;  // "fabric:" with nothing under it: all defaults
          if (!v.IsMap()) throw wrong_kind(where, actual, v, "a mapping of keys under '" + name + "'");
          walk_map(v, schema_key, actual, target, rel);
          break;
        case Quantity::List: {
          if (!v.IsNull() && !v.IsSequence())
            throw wrong_kind(where, actual, v, "a list of mappings, one '- key: value' item each");
          if (v.IsSequence() && v.size() > kMaxListItems)
            throw ScenarioError(where, actual, std::to_string(v.size()) + " items",
                                "at most " + std::to_string(kMaxListItems) + " items");
          Params::List items;
          for (std::size_t i = 0; v.IsSequence() && i < v.size(); ++i) {
            const YAML::Node item = v[i];
            const std::string item_key = actual + "[" + std::to_string(i) + "]";
            const SourceLocation item_at =
                at_key(item_key, item.Mark());  // first key of a block item, '{' of a flow one
            locations_[item_key] = item_at;
            if (!item.IsMap()) throw wrong_kind(item_at, item_key, item, "a mapping of item keys");
            Params p(item_key);
            walk_map(item, schema_key + "[]", item_key, p, "");
            fill_defaults(schema_key + "[]", item_key, p);
            items.push_back(std::move(p));
          }
          target.set(rel, std::move(items));
          break;
        }
        default:
          if (v.IsNull()) throw ScenarioError(where, actual, "", expectation(*f));
          if (!v.IsScalar()) throw wrong_kind(where, actual, v, expectation(*f));
          if (!f->quantity_from.empty())
            pending.push_back({f, v.Scalar(), actual, where, rel});  // once its sibling is read
          else
            set_scalar(*f, v.Scalar(), actual, where, target, rel);
      }
    }
    for (const Pending& p : pending) set_dependent(p, schema_prefix, target, rel_prefix);
  }

  /// Applies schema defaults for keys not written in the mapping at `schema_scope` ("" for the root,
  /// "rollout.phases[]" for a list item) and rejects missing required keys.
  void fill_defaults(const std::string& schema_scope, const std::string& actual_scope, Params& target) {
    const std::string prefix = schema_scope.empty() ? "" : schema_scope + ".";
    for (const Field& f : schema_) {
      if (f.quantity == Quantity::Map) continue;
      if (f.key.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string rel = f.key.substr(prefix.size());
      if (rel.find("[]") != std::string::npos) continue;  // belongs to a nested list's items
      if (target.has(rel)) continue;
      const std::string actual = join(actual_scope, rel);
      if (!f.default_value.empty() && f.quantity != Quantity::List) {
        try {
          target.set(rel, parse(f, f.default_value, actual));
        } catch (const InvalidParameter& e) {
          throw Error("schema bug: default of " + f.key + " is invalid: " + e.what());
        }
      } else if (f.required) {
        // Name the outermost section that is not in the document at all ("no 'workload' section
        // in x.yaml"), else the parent the key is missing under. The document is named by its
        // file name: text built from a Python dict ("<dict>") never was a file.
        std::string missing;
        for (std::string p = parent_of(actual); !p.empty() && !locations_.count(p); p = parent_of(p)) missing = p;
        const std::string parent = parent_of(actual);
        std::string why = !missing.empty() ? ": no '" + missing + "' section in " + file_
                          : parent.empty() ? std::string(" at the top level")
                                           : " under '" + parent + "'";
        throw ScenarioError(nearest(actual), actual, "", expectation(f) + " (required key missing" + why + ")");
      }
    }
  }

 private:
  struct Pending {
    const Field* field;
    std::string text, actual;
    SourceLocation where;
    std::string rel;
  };

  // A key whose kind follows its sibling `quantity_from` (as written in the same mapping, else the
  // sibling's default): a plain number is read in the kind's plain_unit, anything else must be a
  // value of that kind ("85 degC" for a temperature sensor); "30 kW" there is an error naming the
  // kind expected and the sibling's value.
  void set_dependent(const Pending& p, const std::string& schema_prefix, Params& target,
                     const std::string& rel_prefix) const {
    const Field& f = *p.field;
    const std::string sibling = join(rel_prefix, f.quantity_from);
    std::string selector;
    if (target.has(sibling))
      selector = target.text(sibling);
    else if (const Field* s = find_field(schema_, join(schema_prefix, f.quantity_from)))
      selector = s->default_value;
    const auto kind = std::find_if(f.quantity_by.begin(), f.quantity_by.end(),
                                   [&](const QuantityChoice& c) { return c.value == selector; });
    if (kind == f.quantity_by.end())
      throw Error("schema bug: " + f.key + " has no kind for " + f.quantity_from + " '" + selector + "'");
    const bool plain = is_plain_number(p.text) && !kind->plain_unit.empty();
    const std::string for_whom = " for " + f.quantity_from + " '" + selector + "'" +
                                 (kind->plain_unit.empty() ? "" : "; a plain number is " + kind->plain_unit);
    Field as_kind = f;  // parsed and bounded as the kind
    as_kind.quantity = kind->quantity;
    as_kind.min = kind->min;
    as_kind.max = kind->max;
    as_kind.min_exclusive = false;
    try {
      target.set(p.rel, parse(as_kind, plain ? p.text + " " + kind->plain_unit : p.text, p.actual), p.text);
    } catch (const InvalidParameter& e) {
      std::string expected = e.expected();
      // "a temperature such as '25 degC' or '298.15 K' (got a power)" -> "... (got a power for type 'temperature')"
      if (!expected.empty() && expected.back() == ')')
        expected.insert(expected.size() - 1, for_whom);
      else
        expected += " (" + for_whom.substr(1) + ")";
      throw ScenarioError(p.where, p.actual, p.text, expected);
    }
  }

  static std::string expectation(const Field& f) {
    if (f.quantity == Quantity::String && !f.choices.empty()) return "one of " + choices_text(f);
    return quantity_expectation(f.quantity);
  }

  static std::string choices_text(const Field& f) {
    std::string s;
    for (std::size_t i = 0; i < f.choices.size(); ++i) s += (i ? ", " : "") + f.choices[i];
    return s;
  }

  // Location of `key` or of its nearest written enclosing key; the document's start ("") last.
  SourceLocation nearest(const std::string& key) const {
    for (std::string k = key; !k.empty();) {
      if (auto it = locations_.find(k); it != locations_.end()) return it->second;
      if (k.back() == ']')
        k = k.substr(0, k.rfind('['));
      else
        k = parent_of(k);
    }
    if (auto it = locations_.find(""); it != locations_.end()) return it->second;
    return SourceLocation{file_, 0, 0};
  }

  // "25 K" for a limit meant as 25 degC: a kelvin value out of range that the same number in degC
  // would be in range gets "did you mean '25 degC'?" (the range itself stays in the unit written).
  static std::string kelvin_slip_hint(const Field& f, const std::string& text) {
    DisplayUnit used;
    double v = 0;
    try {
      v = parse_quantity(f.quantity, text, {}, &used);
    } catch (const InvalidParameter&) {
      return {};
    }
    if (used.symbol != "K") return {};
    const double as_celsius = v + units::kZeroCelsius;
    if ((f.min && (f.min_exclusive ? as_celsius <= *f.min : as_celsius < *f.min)) || (f.max && as_celsius > *f.max))
      return {};
    return "did you mean '" +
           format_quantity(f.quantity, as_celsius, DisplayUnit{"degC", 1, units::kZeroCelsius}, false) + "'?";
  }

  // Parses a scalar per its field, checking choices and range. Throws InvalidParameter.
  Params::Value parse(const Field& f, const std::string& text, const std::string& actual) const {
    if (f.quantity == Quantity::String) {
      if (!f.choices.empty() && std::find(f.choices.begin(), f.choices.end(), text) == f.choices.end())
        throw InvalidParameter(actual, text, "one of " + choices_text(f));
      return text;
    }
    if (f.quantity == Quantity::Bool) return parse_bool(text, actual);
    DisplayUnit used;
    const double v = parse_quantity(f.quantity, text, actual, &used);
    const bool below = f.min && (f.min_exclusive ? v <= *f.min : v < *f.min);
    const bool above = f.max && v > *f.max;
    if (below || above) {
      // The bounds in the unit the value was written in (a time written in min: "from 0 min to
      // 60 min", not "to 1 h"); a value written without one gets the quantity's display unit.
      const bool written = !used.symbol.empty();
      if (!written) used = display_unit(f.quantity);
      if (f.quantity == Quantity::Count || f.quantity == Quantity::Ratio || f.quantity == Quantity::Integer ||
          f.quantity == Quantity::Number)
        used = DisplayUnit{};
      throw InvalidParameter(actual, text,
                             with_article(quantity_name(f.quantity)) + " " + range_phrase(f, used, !written) +
                                 (f.range_source.empty() ? "" : " (" + f.range_source + ")"));
    }
    return v;
  }

  void set_scalar(const Field& f, const std::string& text, const std::string& actual, const SourceLocation& where,
                  Params& target, const std::string& rel) {
    try {
      target.set(rel, parse(f, text, actual), text);
    } catch (const ScenarioError&) {
      throw;
    } catch (const InvalidParameter& e) {
      std::string hint;
      if (f.quantity == Quantity::String && !f.choices.empty()) hint = choice_hint(text, f.choices);
      if (f.quantity == Quantity::Temperature) hint = kelvin_slip_hint(f, text);
      throw ScenarioError(where, e.key(), e.value(), e.expected(), hint);
    }
  }

  [[noreturn]] void unknown_key(const std::string& name, const std::string& schema_prefix, const std::string& actual,
                                const SourceLocation& where) const {
    std::vector<std::string> siblings;
    for (const Field& f : schema_)
      if (parent_of(f.key) == schema_prefix && (schema_prefix.empty() || f.key.size() > schema_prefix.size()))
        siblings.push_back(last_of(f.key));
    std::string hint;
    if (auto m = closest_match(name, siblings)) {
      hint = "did you mean '" + *m + "'?";
    } else {
      // Written at the wrong level? The same name anywhere in the schema, its own top-level section
      // first; a close name only within that section: a one-letter slip matched in another section
      // ("fabric.nope" -> "cluster.gpu_speed[].node") misleads more than it helps.
      const std::string section = schema_prefix.substr(0, schema_prefix.find_first_of(".["));
      auto in_section = [&](const std::string& key) {
        return !section.empty() && key.compare(0, section.size(), section) == 0 &&
               (key.size() == section.size() || key[section.size()] == '.' || key[section.size()] == '[');
      };
      std::vector<std::string> lasts, fulls;
      for (const Field& f : schema_)
        if (in_section(f.key)) lasts.push_back(last_of(f.key)), fulls.push_back(f.key);
      const std::size_t own = lasts.size();
      for (const Field& f : schema_)
        if (!in_section(f.key)) lasts.push_back(last_of(f.key)), fulls.push_back(f.key);
      for (std::size_t i = 0; i < lasts.size() && hint.empty(); ++i)
        if (lasts[i] == name) hint = "did you mean '" + fulls[i] + "'?";
      const std::vector<std::string> near(lasts.begin(), lasts.begin() + static_cast<std::ptrdiff_t>(own));
      if (hint.empty())
        if (auto m = closest_match(name, near))
          for (std::size_t i = 0; i < own && hint.empty(); ++i)
            if (lasts[i] == *m) hint = "did you mean '" + fulls[i] + "'?";
    }
    std::string where_text;
    if (schema_prefix.empty())
      where_text = "one of the top-level keys";
    else if (ends_with(schema_prefix, "[]"))
      where_text = "one of the keys of a '" + schema_prefix.substr(0, schema_prefix.size() - 2) + "' item";
    else
      where_text = "one of the keys of '" + schema_prefix + "'";
    std::string list;
    for (std::size_t i = 0; i < siblings.size(); ++i) list += (i ? ", " : "") + siblings[i];
    throw ScenarioError(where, actual, name, where_text + (list.empty() ? "" : " (" + list + ")"), hint);
  }

  const Schema& schema_;
  std::string file_;
  std::map<std::string, SourceLocation>& locations_;
  std::vector<std::string> set_keys_;
  SourceLocation set_where_;
};

// The expectation of a merge key ("<<: *anchor"); python/aidcsim/scenario.py says the same.
constexpr const char* kMergeKeyExpected =
    "each key written out (a YAML merge key '<<' is not read in scenario files; repeat the keys, or use "
    "--set / Python to vary them)";

/// Bounds and dialect of the whole document before it is walked against the schema: nesting depth,
/// node count with aliases expanded (an alias "bomb" stops at kMaxNodes visits), list lengths, and
/// no explicit YAML tags (a tag such as !python/object would otherwise be dropped silently).
class DocumentCheck {
 public:
  /// `lines` false: report no line (a --set value's marks are in its own text, not the file's).
  explicit DocumentCheck(std::string file, bool lines = true) : file_(std::move(file)), lines_(lines) {}

  void check(const YAML::Node& n, const std::string& path, int depth) {
    const SourceLocation where = at(n.Mark());
    if (++nodes_ > kMaxNodes)
      throw ScenarioError(where, path, "",
                          "at most " + std::to_string(kMaxNodes) +
                              " values in a scenario, counting each alias as the values it repeats");
    if (depth > kMaxNestingDepth)
      throw ScenarioError(where, path, "", "at most " + std::to_string(kMaxNestingDepth) + " levels of nesting");
    const std::string& tag = n.Tag();
    if (!tag.empty() && tag != "?" && tag != "!")
      throw ScenarioError(where, path, n.IsScalar() ? n.Scalar() : "",
                          "a value without a YAML tag (got the tag '" + tag + "'; scenario files use no tags)");
    if (n.IsScalar())
      if (const std::string c = unprintable_in(n.Scalar()); !c.empty())
        throw ScenarioError(where, printable_text(path), printable_text(n.Scalar()),
                            "text without control characters (an escape writes " + c +
                                "; results files and the terminal cannot show it)");
    if (n.IsMap()) {
      for (auto it = n.begin(); it != n.end(); ++it) {
        const YAML::Node k = it->first;
        const YAML::Node v = it->second;
        const std::string name = k.IsScalar() ? k.Scalar() : "?";
        // A YAML 1.1 merge key: PyYAML (the Python API's re-dump after an edit) merges it, yaml-cpp
        // reads a key named "<<": the same file was valid in one and not the other (case input/14's
        // kind). Neither reads it.
        if (name == "<<" && k.Tag() == "?")
          throw ScenarioError(at(k.Mark()), join(path, name), name, kMergeKeyExpected);
        check(k, join(path, name), depth + 1);
        check(v, join(path, name), depth + 1);
      }
    } else if (n.IsSequence()) {
      if (n.size() > kMaxListItems)
        throw ScenarioError(where, path, std::to_string(n.size()) + " items",
                            "at most " + std::to_string(kMaxListItems) + " items in a list");
      for (std::size_t i = 0; i < n.size(); ++i) check(n[i], path + "[" + std::to_string(i) + "]", depth + 1);
    }
  }

 private:
  SourceLocation at(const YAML::Mark& m) const {
    return m.line < 0 || !lines_ ? SourceLocation{file_, 0, 0} : SourceLocation{file_, m.line + 1, m.column + 1};
  }
  std::string file_;
  bool lines_ = true;
  std::size_t nodes_ = 0;
};

/// Document starts seen by yaml-cpp's event parser (no nodes are built).
class DocumentStarts final : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& m) override { starts.push_back(m); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

/// Throws ScenarioError when `text` holds more than one YAML document. Not YAML::LoadAll: on a
/// document starting with ',' yaml-cpp 0.7 makes empty documents forever without consuming it
/// (an endless loop filling memory, found by tests/fuzz/fuzz_scenario); the event parser is asked
/// for two documents at most, and a second one starting where the first did is that case.
void check_single_document(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts docs;
  if (!parser.HandleNextDocument(docs) || !parser.HandleNextDocument(docs) || docs.starts.size() < 2) return;
  const YAML::Mark& m = docs.starts[1];
  const SourceLocation where = m.line < 0 ? SourceLocation{name, 0, 0} : SourceLocation{name, m.line + 1, m.column + 1};
  if (m.pos == docs.starts[0].pos) {
    const std::string c = m.pos >= 0 && static_cast<std::size_t>(m.pos) < text.size() ? text.substr(m.pos, 1) : "?";
    throw ScenarioError(where, "", "",
                        "invalid YAML: '" + c + "' cannot start a value outside a flow collection ([...] or {...})");
  }
  throw ScenarioError(
      where, "", "",
      "invalid scenario: a second YAML document starts here; a scenario file holds one (a line '---' starts another)");
}

/// yaml-cpp's syntax error, with the cause when it is a tab in the indentation of the line it
/// stops at or the line before (YAML indents with spaces only; yaml-cpp says "illegal map value"
/// or "end of map not found"): then the error is at that tab.
ScenarioError yaml_syntax_error(const YAML::Exception& e, const std::string& text, const std::string& name) {
  if (e.mark.line < 0) return ScenarioError(SourceLocation{name, 0, 0}, "", "", "invalid YAML: " + e.msg);
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.emplace_back(text.data() + start, end - start);
    start = end + 1;
  }
  const int at = e.mark.line;
  for (int l = std::min<int>(at, static_cast<int>(lines.size()) - 1); l >= 0 && l >= at - 1; --l) {
    const std::string_view line = lines[static_cast<std::size_t>(l)];
    const std::size_t indent = line.find_first_not_of(" \t");
    const std::size_t tab = line.substr(0, indent).find('\t');
    if (tab == std::string_view::npos || indent == std::string_view::npos || line[indent] == '#') continue;
    return ScenarioError(
        SourceLocation{name, l + 1, static_cast<int>(tab) + 1}, "", "",
        "invalid YAML: a tab in the indentation; YAML indents with spaces only (yaml-cpp: " + e.msg + ")");
  }
  return ScenarioError(SourceLocation{name, at + 1, e.mark.column + 1}, "", "", "invalid YAML: " + e.msg);
}

/// Where a YAML node starts (for errors about a whole section).
SourceLocation walker_location(const YAML::Node& n, const std::string& file) {
  const YAML::Mark m = n.Mark();
  return m.line < 0 ? SourceLocation{file, 0, 0} : SourceLocation{file, m.line + 1, m.column + 1};
}

std::string stem_of(const std::string& path) {
  std::string base = path.substr(path.find_last_of("/\\") == std::string::npos ? 0 : path.find_last_of("/\\") + 1);
  const auto space = base.find(' ');
  if (space != std::string::npos) base = base.substr(0, space);
  const auto dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

// Runs one area's spec_from, reporting its InvalidParameter at the key's location.
template <typename Fn>
auto located(const Scenario& s, Fn&& fn) {
  try {
    return fn(s.params);
  } catch (const ScenarioError&) {
    throw;
  } catch (const InvalidParameter& e) {
    throw s.locate(e);
  }
}

/// One step of a dotted key: a mapping key, or (index >= 0) a list index.
struct KeyPart {
  std::string name;
  long long index = -1;
};

// "rollout.phases[1].gpus" -> rollout, phases, [1], gpus (python/aidcsim/scenario.py's _split);
// empty for a malformed key.
std::vector<KeyPart> split_key(const std::string& key) {
  std::vector<KeyPart> parts;
  std::size_t start = 0;
  while (start <= key.size()) {
    const std::size_t end = std::min(key.find('.', start), key.size());
    const std::string piece = key.substr(start, end - start);
    const std::size_t open = piece.find('[');
    const std::string name = piece.substr(0, open);
    if (name.empty() || name.find(']') != std::string::npos) return {};
    parts.push_back({name});
    for (std::size_t i = open; i != std::string::npos && i < piece.size();) {
      const std::size_t close = piece.find(']', i);
      if (piece[i] != '[' || close == std::string::npos || close == i + 1 || close - i > 10) return {};
      const std::string digits = piece.substr(i + 1, close - i - 1);
      if (digits.find_first_not_of("0123456789") != std::string::npos) return {};
      parts.push_back({"", std::stoll(digits)});
      i = close + 1;
    }
    start = end + 1;
  }
  return parts;
}

std::string key_path(const std::vector<KeyPart>& parts, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    if (parts[i].index >= 0) {
      out += '[';
      out += std::to_string(parts[i].index);
      out += ']';
    } else {
      if (!out.empty()) out += '.';
      out += parts[i].name;
    }
  return out;
}

/// Applies one override to `root` as python/aidcsim/scenario.py's Scenario.__setitem__ does:
/// missing (or null or scalar) parents become mappings or lists, an index equal to a list's length
/// appends an item, a larger one is an error. Adds the key and every node it created to `set_keys`.
void apply_override(YAML::Node& root, const Override& o, const SourceLocation& where,
                    std::vector<std::string>& set_keys) {
  // The file's bytes are checked before parsing (check_scenario_text); an override's come from the
  // command line (or Python) unchecked: `--set name=caf\xE9` (Latin-1) ran and wrote U+FFFD into the
  // results (case input/03's kind: bytes that are not UTF-8 in a value).
  for (const std::string* text : {&o.key, &o.value}) {
    try {
      check_scenario_text(*text, where.file);
    } catch (const ScenarioError& e) {
      std::string why = e.expected();
      why = why.substr(0, why.find(';'));
      throw ScenarioError(
          where, escaped_bytes(o.key), escaped_bytes(o.value),
          "UTF-8 text without control characters (" + why + " in the " + (text == &o.key ? "key" : "value") + ")");
    }
  }
  const std::vector<KeyPart> parts = split_key(o.key);
  if (parts.empty() || parts.front().index >= 0)
    throw ScenarioError(where, printable_text(o.key), printable_text(o.value),
                        "a dotted scenario key such as fabric.link_rate or rollout.phases[1].gpus (got the key '" +
                            printable_text(o.key) + "')");
  YAML::Node value;
  if (o.value.find_first_not_of(" \t") == std::string::npos) {
    value = YAML::Node(o.value);  // blank: the text itself, as compare's --set keeps it
  } else {
    try {
      value = YAML::Load(o.value);
    } catch (const YAML::Exception& e) {
      throw ScenarioError(where, key_path(parts, parts.size()), printable_text(o.value),
                          "a YAML value such as 576, '400 Gbps' or [1, 2] (yaml-cpp: " + e.msg + ")");
    }
  }
  DocumentCheck(where.file, /*lines=*/false)
      .check(value, key_path(parts, parts.size()), static_cast<int>(parts.size()));
  YAML::Node node;
  node.reset(root);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const KeyPart& p = parts[i];
    const std::string here = key_path(parts, i + 1);
    const bool last = i + 1 == parts.size();
    YAML::Node child;
    if (p.index >= 0) {
      if (!node.IsSequence())
        throw ScenarioError(where, key_path(parts, i), "", "a list, as " + here + " indexes it", "", node_kind(node));
      const auto size = static_cast<long long>(node.size());
      if (p.index > size)
        throw ScenarioError(where, here, printable_text(o.value),
                            size ? "an index from 0 to " + std::to_string(size - 1) + ", or " + std::to_string(size) +
                                       " to append an item (" + key_path(parts, i) + " has " + std::to_string(size) +
                                       " items)"
                                 : "index 0 to append an item (" + key_path(parts, i) + " is empty)");
      if (p.index == size) {
        node.push_back(last ? value : YAML::Node(YAML::NodeType::Null));
        set_keys.push_back(here);
        if (last) return;
      }
      child.reset(node[static_cast<std::size_t>(p.index)]);
    } else {
      if (!node.IsMap())
        throw ScenarioError(where, key_path(parts, i), "", "a mapping, as " + here + " is a key under it", "",
                            node_kind(node));
      child.reset(node[p.name]);
    }
    if (last) {
      child = value;  // replaces the value in the document
      set_keys.push_back(here);
      return;
    }
    // A parent the document does not have (or has as a scalar or null) is created.
    const bool want_list = parts[i + 1].index >= 0;
    if (!child.IsDefined() || child.IsNull() || child.IsScalar()) {
      child = YAML::Node(want_list ? YAML::NodeType::Sequence : YAML::NodeType::Map);
      set_keys.push_back(here);
    }
    node.reset(child);
  }
}

}  // namespace

Params validate_scenario_text(const std::string& text, const std::string& name, const Schema& schema,
                              std::map<std::string, SourceLocation>& locations, const std::vector<Override>& overrides,
                              const std::string& origin) {
  check_scenario_text(text, name);
  YAML::Node root;
  try {
    root = YAML::Load(text);
    check_single_document(text, name);  // YAML::Load would silently drop a second document
  } catch (const YAML::Exception& e) {
    throw yaml_syntax_error(e, text, name);
  }
  if (!root.IsMap()) {
    std::string keys;
    for (const Field& f : schema)
      if (f.key.find_first_of(".[") == std::string::npos) keys += (keys.empty() ? "" : ", ") + f.key;
    throw ScenarioError(
        SourceLocation{name, 1, 1}, "", "",
        "invalid scenario: expected a mapping of top-level keys (" + keys + "), got " + node_kind(root));
  }
  locations.clear();
  Params params;
  const SourceLocation set_where{name + " (" + (origin.empty() ? "set on the command line with --set" : origin) + ")",
                                 0, 0};
  std::vector<std::string> set_keys;
  if (!overrides.empty()) {
    try {
      DocumentCheck(name).check(root, "", 0);  // the file's own bounds, at its lines
    } catch (const YAML::Exception& e) {
      throw ScenarioError(SourceLocation{name, e.mark.line + 1, e.mark.column + 1}, "", "", "invalid YAML: " + e.msg);
    }
    for (const Override& o : overrides) apply_override(root, o, set_where, set_keys);
  }
  // With `jobs:` (or `workloads:`) and no `workload:`, the workload keys are the jobs' own.
  const YAML::Node& croot = root;
  const bool has_jobs = croot["jobs"].IsDefined() || croot["workloads"].IsDefined();
  Schema jobs_schema;
  if (has_jobs && croot["jobs"].IsDefined() && croot["workloads"].IsDefined())
    throw ScenarioError(walker_location(croot["workloads"], name), "workloads", "",
                        "either jobs: or workloads: (the same list; workloads: is read as jobs:)");
  if (has_jobs && croot["workload"].IsDefined())
    throw ScenarioError(walker_location(croot["workload"], name), "workload", "",
                        "either workload: (one job) or jobs: (several), not both");
  if (has_jobs) {
    jobs_schema = schema;
    for (Field& f : jobs_schema)
      if (f.key.compare(0, 9, "workload.") == 0) f.required = false;
  }
  Walker walker(has_jobs ? jobs_schema : schema, name, locations, set_keys, set_where);
  try {
    if (overrides.empty()) DocumentCheck(name).check(root, "", 0);
    locations[""] = walker.at(root.Mark());  // where keys missing from the whole file are reported
    walker.walk_map(root, "", "", params, "");
    walker.fill_defaults("", "", params);
    check_keys_in_use(params, locations);  // a key its selector's choice leaves unread
  } catch (const YAML::Exception& e) {     // e.g. a bad alias: still the user's file
    throw ScenarioError(SourceLocation{name, e.mark.line + 1, e.mark.column + 1}, "", "", "invalid YAML: " + e.msg);
  }
  return params;
}

Scenario load_scenario_text(const std::string& text, const std::string& name, const LoadOptions& options) {
  Scenario s;
  s.file = name;
  s.text = text;
  s.params =
      validate_scenario_text(text, name, full_schema(), s.locations, options.overrides, options.overrides_origin);
  s.name = s.params.has("name") && !s.params.text("name").empty() ? s.params.text("name") : stem_of(name);
  s.description = s.params.has("description") ? s.params.text("description") : std::string();
  s.seed = static_cast<std::uint64_t>(s.params.integer("seed"));
  s.fabric = located(s, topology::spec_from);
  s.bom = located(s, [](const Params& root) { return topology::bom_spec_from(root, builtin_bom_parts()); });
  s.gpu = located(s, [](const Params& root) { return compute::spec_from(root, builtin_gpus()); });
  // The NVLink domain's bandwidth and NVLS capability are properties of the GPU model.
  fit_fabric_to_gpu(s.fabric, s.gpu);
  // A domain larger than any platform of the GPU builds (e.g. 144 GB200) would be simulated as one
  // NVLink domain that does not exist.
  const std::string domain_excess = nvlink_domain_excess(s.gpu, s.fabric.nvlink_domain);
  if (!domain_excess.empty())
    located(s, [&](const Params& root) -> int { root.invalid("cluster.nvlink_domain", domain_excess); });
  if (!s.params.has("jobs")) {  // jobs: read by sim/engine (their placement needs the fabric)
    s.job = located(s, workload::spec_from);
    located(s, [&s, &options](const Params& root) {
      workload::check_against_gpu(root, s.job, s.gpu, options.check_hbm_fit);
      return 0;
    });
  }
  s.cooling = located(s, thermal::spec_from);
  // GPU temperature limits are the GPU model's (catalogue) unless the scenario sets them.
  if (!s.params.given("cooling.limits.gpu_temp_limit") && s.gpu.throttle_temperature > 0)
    s.cooling.limits.gpu_temp_limit = s.gpu.throttle_temperature;
  if (!s.params.given("cooling.throttle.shutdown_temp") && s.gpu.shutdown_temperature > 0)
    s.cooling.throttle.shutdown_temp = s.gpu.shutdown_temperature;
  // A GPU throttles before it shuts down (the catalogue checks its own pair): a scenario limit the
  // other way round would let the steady state run GPUs above their shutdown temperature.
  const double throttle = s.cooling.limits.gpu_temp_limit, shutdown = s.cooling.throttle.shutdown_temp;
  if (throttle > 0 && shutdown > 0 && !(throttle < shutdown)) {
    const bool sd = s.params.given("cooling.throttle.shutdown_temp");
    char expected[200];
    std::snprintf(expected, sizeof expected,
                  sd ? "a shutdown temperature above the GPU throttle limit (%.4g degC%s)"
                     : "a throttle limit below the GPU shutdown temperature (%.4g degC%s)",
                  units::to_celsius(sd ? throttle : shutdown),
                  s.params.given(sd ? "cooling.limits.gpu_temp_limit" : "cooling.throttle.shutdown_temp")
                      ? ""
                      : ", the GPU's in the compute catalogue");
    located(s, [&](const Params& root) -> int {
      root.invalid(sd ? "cooling.throttle.shutdown_temp" : "cooling.limits.gpu_temp_limit", expected);
    });
  }
  s.training = located(s, reliability::spec_from);
  return s;
}

Scenario load_scenario_file(const std::string& path, const LoadOptions& options) {
  return load_scenario_text(read_scenario_file(path), path, options);
}

Scenario load_default_scenario() { return load_scenario_text(default_scenario_text(), default_scenario_name()); }

}  // namespace aidcsim
