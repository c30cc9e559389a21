// libFuzzer target: the unit parser (sim/scenario/unit_parser.hpp) on arbitrary text, as every numeric
// quantity kind, and the YAML boolean reader.
// Properties: no crash or undefined behaviour; a value is either refused with InvalidParameter or
// parsed to a finite SI number (a Fraction within [0, 1]), and formatting it back in the unit it
// was written in does not throw. Any other exception is a finding.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "models/common/errors.hpp"
#include "sim/scenario/unit_parser.hpp"

namespace {
[[noreturn]] void finding(const char* what, const std::string& text, int kind) {
  std::fprintf(stderr, "%s (quantity kind %d, text '%s')\n", what, kind, text.c_str());
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using aidcsim::Quantity;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (int k = static_cast<int>(Quantity::Number); k <= static_cast<int>(Quantity::Date); ++k) {
    const auto q = static_cast<Quantity>(k);
    try {
      aidcsim::DisplayUnit used;
      const double v = aidcsim::parse_quantity(q, text, "fuzz.key", &used);
      if (!std::isfinite(v)) finding("a non-finite value accepted", text, k);
      if (q == Quantity::Fraction && !(v >= 0 && v <= 1)) finding("a fraction outside [0, 1] accepted", text, k);
      (void)aidcsim::format_quantity(q, v, used, true);
    } catch (const aidcsim::InvalidParameter&) {
    } catch (const std::exception& e) {
      finding(e.what(), text, k);
    }
  }
  try {
    (void)aidcsim::parse_bool(text, "fuzz.key");
  } catch (const aidcsim::InvalidParameter&) {
  } catch (const std::exception& e) {
    finding(e.what(), text, -1);
  }
  return 0;
}
