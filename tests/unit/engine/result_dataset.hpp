#pragma once
// Looking up a dataset of a run's results by its HDF5 path, for the engine tests.
#include <catch2/catch.hpp>

#include <string>

#include "models/common/results.hpp"

namespace aidcsim::test {

/// The dataset of `r` at HDF5 path `path` (e.g. "/step/stage_compute"); fails the test case
/// (Catch2 FAIL) when there is none.
inline const Dataset& dataset(const Results& r, const std::string& path) {
  for (const auto& d : r.datasets)
    if (d.path == path) return d;
  FAIL("no dataset " << path);
  throw;  // not reached: FAIL throws
}

}  // namespace aidcsim::test
