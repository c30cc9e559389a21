// The run profile (aidcsim run --profile): counters of CPU/wall time per stage and part.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/common/profile.hpp"

using namespace aidcsim;

TEST_CASE("profile counters: off by default costs nothing, on accumulates per name", "[common][profile]") {
  profile::enable(false);
  profile::reset();
  { profile::Scope s("part a"); }
  CHECK(profile::entries().empty());

  profile::enable(true);
  double x = 0;
  for (int k = 0; k < 3; ++k) {
    profile::Scope s("part a");
    for (int i = 0; i < 200000; ++i) x += std::sqrt(static_cast<double>(i));
  }
  profile::add("stage 1", 0.5, 1.0, 1, true);
  profile::add("stage 1", 0.25, 0.5, 1, true);
  const auto e = profile::entries();
  REQUIRE(e.size() == 2);
  CHECK(e[0].name == "part a");
  CHECK(e[0].calls == 3);
  CHECK_FALSE(e[0].stage);
  CHECK(e[0].cpu > 0);
  CHECK(e[1].stage);
  CHECK(e[1].cpu == Approx(0.75));
  CHECK(e[1].wall == Approx(1.5));
  const std::string t = profile::format_table();
  CHECK(t.find("stage 1") != std::string::npos);
  CHECK(t.find("part a") != std::string::npos);
  CHECK(t.find("100.0%") != std::string::npos);  // the only stage is all of the stages' time
  profile::reset();
  profile::enable(false);
  CHECK(x > 0);
}
