// A scenario file that cannot be read (missing, a directory) raises aidcsim::Error, not an
// InvalidParameter/ScenarioError: the CLI maps the first to exit 1 (error), the second to exit 2.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "models/common/errors.hpp"
#include "sim/scenario/scenario.hpp"

namespace {
// "" when loading `path` raises a plain aidcsim::Error; otherwise what happened.
std::string plain_error_of(const std::string& path) {
  try {
    aidcsim::load_scenario_file(path);
  } catch (const aidcsim::InvalidParameter& e) {
    return std::string("invalid scenario: ") + e.what();
  } catch (const aidcsim::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("cannot read scenario file '" + path + "'"));
    return "";
  }
  return "loaded";
}
}  // namespace

TEST_CASE("unreadable scenario files are errors, not invalid scenarios", "[scenario][loader]") {
  const auto dir = std::filesystem::temp_directory_path() / ("aidcsim-unreadable-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  CHECK(plain_error_of((dir / "missing.yaml").string()).empty());
  CHECK(plain_error_of(dir.string()).empty());  // a directory opens as an empty stream
  std::filesystem::remove_all(dir);
}
