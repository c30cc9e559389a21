// docs/scenario-reference.md must be the page generated from the schemas. When a key is added,
// regenerate it:  AIDCSIM_UPDATE_DOCS=1 build/bin/test_scenario "[reference]"
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sim/scenario/reference.hpp"
#include "sim/scenario/schema_registry.hpp"

namespace {
const char* const kPage = AIDCSIM_SOURCE_DIR "/docs/scenario-reference.md";

std::string read(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("the reference page lists every key with its unit syntax", "[reference]") {
  const std::string page = aidcsim::scenario_reference_markdown();
  for (const aidcsim::Field& f : aidcsim::full_schema()) {
    INFO(f.key);
    const bool section = f.quantity == aidcsim::Quantity::Map && f.key.find('.') == std::string::npos;
    CHECK(page.find(section ? "## `" + f.key + "`" : "| `" + f.key + "` |") != std::string::npos);
  }
  CHECK(page.find("| `fabric.link_rate` | data rate | `400 Gbps` | from 8 Mbps to 8 Tbps |") != std::string::npos);
  CHECK(page.find("| `cluster.gpus` | integer | **required** | from 1 to 10000000 |") != std::string::npos);
  CHECK(page.find("| `cooling.facility_supply` | temperature | `18 degC` | from 0 degC to 60 degC |") !=
        std::string::npos);
  CHECK(page.find("`leaf_spine`, `clos3`") != std::string::npos);
  // A cooling fault's `at` says where t = 0 is: midnight of the daily outdoor cycle (a new user asked).
  for (const aidcsim::Field& f : aidcsim::full_schema())
    if (f.key == "cooling.faults[].at" || f.key == "cooling.heat_rejection.outdoor_peak_time") {
      INFO(f.key);
      CHECK(f.doc.find("midnight") != std::string::npos);
      CHECK(f.doc.find("t = 0") != std::string::npos);
    }
  CHECK(page == aidcsim::scenario_reference_markdown());  // deterministic
}

TEST_CASE("docs/scenario-reference.md is up to date", "[reference]") {
  const std::string generated = aidcsim::scenario_reference_markdown();
  const char* update = std::getenv("AIDCSIM_UPDATE_DOCS");
  if (update && std::string(update) == "1") {
    std::ofstream(kPage, std::ios::binary) << generated;
    WARN("rewrote " << kPage);
  }
  const std::string on_disk = read(kPage);
  const bool same = on_disk == generated;
  if (!same) {
    // Show the first line that differs, so the failure says which key changed.
    std::istringstream a(on_disk), b(generated);
    std::string la, lb;
    int line = 0;
    while (true) {
      ++line;
      const bool ga = static_cast<bool>(std::getline(a, la)), gb = static_cast<bool>(std::getline(b, lb));
      if (!ga && !gb) break;
      if (!ga || !gb || la != lb) break;
    }
    FAIL_CHECK(kPage << " is stale: the scenario schema changed. Regenerate it with\n"
                        "  AIDCSIM_UPDATE_DOCS=1 build/bin/test_scenario \"[reference]\"\n"
                        "(any build directory's test_scenario) and commit the result.\n"
                     << "First difference at line " << line << ":\n  on disk:   " << la << "\n  generated: " << lb);
  }
  CHECK(same);
}
