#pragma once
// Results: the self-describing output of one run. Every number carries its unit and a one-line
// description, so the HDF5, JSON, console and Python writers need no knowledge of the models.
// Plain data in models/common so that each area reports its own figures into it (the
// models/<area>/*_report.hpp functions); sim/engine orders the areas' reports, and
// sim/results/*_writer.cpp write it.
#include <cstdint>
#include <string>
#include <vector>

namespace aidcsim {

/// One headline number of the summary ("step_time", 12.3, "s", "Simulated time of one step").
struct Scalar {
  std::string key;  ///< snake_case, unique within the summary
  double value = 0;
  std::string unit;  ///< "s", "%", "degC", "MW", "1" for dimensionless
  std::string description;
};

/// A numeric array: time series, per-link or per-GPU values. Row-major, `shape` gives the extents.
struct Dataset {
  std::string path;  ///< HDF5 path, e.g. "/network/link_utilization"
  std::vector<std::size_t> shape;
  std::vector<double> data;
  std::string unit;
  std::string description;
  std::vector<std::string> dims;  ///< name of each axis, e.g. {"link"} or {"time", "gpu"}
  /// Non-empty for integer codes: value i means flag_meanings[i] (one word each, e.g. the tiers
  /// "nvlink access leaf_spine spine_core"). Written as integers with CF flag_values/flag_meanings.
  std::vector<std::string> flag_meanings = {};
};

/// Names along a dataset axis (link names, phase names). Written as a string dataset. A Labels
/// whose leaf name is the axis name ("/network/link" for the axis "link" of /network/*) is that
/// axis's coordinate (netCDF coordinate variable); others name their axis in `dim`.
struct Labels {
  std::string path;  ///< e.g. "/network/link"
  std::vector<std::string> values;
  std::string description;
  std::string dim = {};  ///< axis the values run along; empty: the leaf name of `path`
};

/// One checklist item of the product brief: value against limit, pass or fail.
struct Check {
  std::string item;  ///< "coolant outlet < 40 degC"
  double value = 0;
  double limit = 0;
  std::string unit;
  double headroom = 0;  ///< limit - value in the direction of safety (negative = violated)
  bool pass = true;
  std::string note;
};

struct Results {
  std::string scenario_name;
  std::string scenario_file;
  std::string scenario_text;  ///< the YAML as read, stored so a result file reproduces its run
  std::uint64_t seed = 0;
  std::vector<Scalar> summary;
  std::vector<Dataset> datasets;
  std::vector<Labels> labels;
  std::vector<Check> checks;
  std::vector<std::string> notes;  ///< fidelity tiers and caveats, one per line
  /// Inputs used otherwise than written (a value capped by the physics, an interval shorter than a
  /// step), one sentence each: printed by the CLI on stderr and stored in every results file.
  std::vector<std::string> warnings;

  /// Value of a summary scalar; throws aidcsim::Error if absent.
  double scalar(const std::string& key) const;
  void add(std::string key, double value, std::string unit, std::string description);
};

/// A 1-D dataset of data.size() values along the axis `dim`.
Dataset vector_dataset(std::string path, std::vector<double> data, std::string unit, std::string description,
                       std::string dim);

/// A 2-D dataset, row-major, rows x cols values (throws aidcsim::Error when data.size() != rows x cols).
Dataset matrix_dataset(std::string path, std::vector<double> data, std::size_t rows, std::size_t cols, std::string unit,
                       std::string description, std::vector<std::string> dims);

}  // namespace aidcsim
