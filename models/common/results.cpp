#include "models/common/results.hpp"

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

Dataset vector_dataset(std::string path, std::vector<double> data, std::string unit, std::string description,
                       std::string dim) {
  Dataset d;
  d.path = std::move(path);
  d.shape = {data.size()};
  d.data = std::move(data);
  d.unit = std::move(unit);
  d.description = std::move(description);
  d.dims = {std::move(dim)};
  return d;
}

Dataset matrix_dataset(std::string path, std::vector<double> data, std::size_t rows, std::size_t cols, std::string unit,
                       std::string description, std::vector<std::string> dims) {
  if (data.size() != rows * cols)
    throw Error("results: " + path + " has " + std::to_string(data.size()) + " values, not " + std::to_string(rows) +
                " x " + std::to_string(cols));
  Dataset d;
  d.path = std::move(path);
  d.shape = {rows, cols};
  d.data = std::move(data);
  d.unit = std::move(unit);
  d.description = std::move(description);
  d.dims = std::move(dims);
  return d;
}

}  // namespace aidcsim
