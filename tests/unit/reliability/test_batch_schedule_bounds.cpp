// training.batch_schedule[].after_tokens must lie before the end of training when training.tokens
// is written (a stage that starts after the last token never runs: a slip in the count).
#include <catch2/catch.hpp>

#include <string>

#include "models/common/errors.hpp"
#include "models/reliability/reliability_schema.hpp"

using aidcsim::InvalidParameter;
using aidcsim::Params;
using namespace aidcsim::reliability;

namespace {
Params stage(int i, double after, double batch) {
  Params p("training.batch_schedule[" + std::to_string(i) + "]");
  p.set("after_tokens", after, std::to_string(static_cast<long long>(after)));
  p.set("global_batch", batch, std::to_string(static_cast<long long>(batch)));
  return p;
}
Params root(Params::List schedule) {
  Params r;
  r.set("training.tokens", 15e12, "15T");
  r.set("cluster.gpus", 8064.0, "8064");
  r.set("training.batch_schedule", std::move(schedule));
  return r;
}
}  // namespace

TEST_CASE("batch_schedule: after_tokens beyond training.tokens is an error", "[reliability][schedule]") {
  // Inside: 0, then 1T of 15T.
  CHECK(spec_from(root({stage(0, 0, 4e6), stage(1, 1e12, 16e6)})).batch_schedule.size() == 2);
  for (double after : {20e12, 15e12}) {
    try {
      spec_from(root({stage(0, 0, 4e6), stage(1, after, 16e6)}));
      FAIL("after_tokens " << after << " >= training.tokens accepted");
    } catch (const InvalidParameter& e) {
      CHECK(e.key() == "training.batch_schedule[1].after_tokens");
      CHECK_THAT(e.expected(), Catch::Contains("< training.tokens") && Catch::Contains("15T"));
    }
  }
}

TEST_CASE("batch_schedule: no token bound when training ends at a target loss", "[reliability][schedule]") {
  Params r;
  r.set("training.target_loss", 1.9, "1.9");
  r.set("cluster.gpus", 8064.0, "8064");
  r.set("training.batch_schedule", Params::List{stage(0, 0, 4e6), stage(1, 20e12, 16e6)});
  CHECK(spec_from(r).batch_schedule.size() == 2);
}
