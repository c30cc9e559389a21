#include "models/common/params.hpp"

#include <cmath>

namespace aidcsim {

void Params::set(std::string key, Value v, std::string raw) {
  if (!raw.empty()) raw_[key] = std::move(raw);
  values_[std::move(key)] = std::move(v);
}

bool Params::has(std::string_view key) const { return values_.find(key) != values_.end(); }

bool Params::given(std::string_view key) const { return raw_.find(key) != raw_.end(); }

std::string Params::full_key(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string Params::raw(std::string_view key) const {
  auto it = raw_.find(key);
  return it == raw_.end() ? std::string() : it->second;
}

const Params::Value& Params::at(std::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw InvalidParameter(full_key(key), "", "a value (the key is required)");
  return it->second;
}

double Params::number(std::string_view key) const {
  const Value& v = at(key);
  if (const double* d = std::get_if<double>(&v)) return *d;
  invalid(key, "a number");
}

long long Params::integer(std::string_view key) const {
  double d = number(key);
  if (std::floor(d) != d) invalid(key, "an integer");
  return static_cast<long long>(d);
}

const std::string& Params::text(std::string_view key) const {
  const Value& v = at(key);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  invalid(key, "a string");
}

bool Params::flag(std::string_view key) const {
  const Value& v = at(key);
  if (const bool* b = std::get_if<bool>(&v)) return *b;
  invalid(key, "true or false");
}

const Params::List& Params::list(std::string_view key) const {
  static const List empty;
  auto it = values_.find(key);
  if (it == values_.end()) return empty;
  if (const auto* l = std::get_if<List>(&it->second)) return *l;
  invalid(key, "a list");
}

void Params::invalid(std::string_view key, std::string_view expected, std::string hint) const {
  std::string shown = raw(key);
  if (shown.empty()) {
    auto it = values_.find(key);
    if (it != values_.end()) {
      if (const double* d = std::get_if<double>(&it->second))
        shown = std::to_string(*d);
      else if (const auto* s = std::get_if<std::string>(&it->second))
        shown = *s;
    }
  }
  throw InvalidParameter(full_key(key), shown, std::string(expected), std::move(hint));
}

}  // namespace aidcsim
