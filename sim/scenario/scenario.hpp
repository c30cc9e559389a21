#pragma once
// Scenario: one validated scenario file, converted to SI model specs.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/common/errors.hpp"
#include "models/common/params.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/reliability/training_spec.hpp"
#include "models/thermal/cooling_spec.hpp"
#include "models/topology/bom_spec.hpp"
#include "models/topology/fabric_spec.hpp"
#include "models/workload/job_spec.hpp"

namespace aidcsim {

/// Where a key was written: 1-based line and column in `file`.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

/// A bad scenario: "file:line:column: key: got 'value', expected ...". Thrown by the loader and by
/// Scenario::locate() for model errors found later (e.g. an impossible topology).
/// what() reads `file:line:column: key: got 'value', expected <expected>[; <hint>]`; without a
/// line (key not written anywhere) `file: key: ...`; with an empty key (YAML syntax, a document that
/// is not a mapping) `file:line:column: <expected>`.
class ScenarioError : public InvalidParameter {
 public:
  /// `shown`, when given, stands for 'value' in the message (e.g. "a list [1, 2]" for a YAML
  /// list where a scalar or mapping was expected: its kind and its text).
  ScenarioError(SourceLocation where, std::string key, std::string value, std::string expected, std::string hint = {},
                const std::string& shown = {});
  const SourceLocation& where() const noexcept { return where_; }
  // hint(), e.g. "did you mean 'switch_radix'?", is InvalidParameter's.
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  SourceLocation where_;
  std::string message_;
};

struct Scenario {
  std::string name;
  std::string description;
  std::string file;  ///< path as given, or the built-in name
  std::string text;  ///< the YAML text as read
  std::uint64_t seed = 0;

  Params params;  ///< every validated value (SI), for models that read keys directly
  topology::FabricSpec fabric;
  topology::BomSpec bom;  ///< layout, parts, indicative prices (bom_parts.yaml overridden by `bom:`)
  compute::GpuSpec gpu;
  workload::JobSpec job;  ///< `workload:`; left default with `jobs:` (sim/engine/jobs_run.hpp reads them)
  thermal::CoolingSpec cooling;
  reliability::TrainingSpec training;

  /// Location of each key written in the file (dotted key, list items as name[i]); "" is the
  /// document's first key, where errors about keys missing from the whole file point.
  std::map<std::string, SourceLocation> locations;

  /// Turns a model's InvalidParameter into a ScenarioError at the key's location (the nearest
  /// enclosing key that was written, or the file itself).
  ScenarioError locate(const InvalidParameter& e) const;
  /// Location of `key` (dotted, list items as name[i]) or of its nearest written enclosing key,
  /// else of the document's first key; {file, 0, 0} only for an empty document.
  SourceLocation location_of(const std::string& key) const;
};

/// One `--set KEY=VALUE` of the command line: a dotted key (list items as name[i]; an index one past
/// the end appends an item) and its value as YAML text ("576", "400 Gbps", "[1, 2]"), applied to the
/// document before it is validated, as the Python API's `s[key] = value` (python/aidcsim/scenario.py).
struct Override {
  std::string key;
  std::string value;
};

/// What the loader checks beyond the schema; the default is everything.
struct LoadOptions {
  /// Reject a workload whose peak HBM per GPU (workload::peak_memory) exceeds the GPU's. false only for
  /// a caller that runs, on purpose and saying so, a published job the memory model over-counts
  /// (tests/validation/test_large_runs.cpp); aidcsim run and validate always check.
  bool check_hbm_fit = true;
  /// Applied in order (a later one of the same key wins). An error about a key they set (or a
  /// mapping they created) is reported as "<file> (<overrides_origin>): key: got ..." instead of
  /// at a line of the file.
  std::vector<Override> overrides;
  std::string overrides_origin = "set on the command line with --set";
};

/// Loads and validates a scenario file. Throws ScenarioError (file:line:column) on any bad input:
/// YAML syntax, unknown key (with a "did you mean" hint), value without or with the wrong unit,
/// out of range, not one of the choices, or inconsistent across keys; aidcsim::Error if the file
/// cannot be read.
Scenario load_scenario_file(const std::string& path, const LoadOptions& options = {});
/// Same from text; `name` is used as the file name in messages.
Scenario load_scenario_text(const std::string& text, const std::string& name, const LoadOptions& options = {});
/// The built-in default scenario (scenarios/stargate-uk-8k.yaml).
Scenario load_default_scenario();

}  // namespace aidcsim
