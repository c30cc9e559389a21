#include "sim/results/results.hpp"

#include "models/common/errors.hpp"

namespace aidcsim {

double Results::scalar(const std::string& key) const {
  for (const auto& s : summary)
    if (s.key == key) return s.value;
  throw Error("results: no summary value named '" + key + "'");
}

void Results::add(std::string key, double value, std::string unit, std::string description) {
  summary.push_back({std::move(key), value, std::move(unit), std::move(description)});
}

}  // namespace aidcsim
