#pragma once
// Validated scenario values handed to the models: SI numbers, strings, flags and lists, keyed by
// dotted path relative to this Params (a list item's Params is keyed relative to the item).
// sim/scenario fills it from YAML (units parsed, ranges checked, defaults from the Schema applied);
// models read it in their `spec_from(const Params&)`. Models raise errors through `invalid()`, which
// names the full dotted key so the scenario layer can point at file:line:column.
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "models/common/errors.hpp"

namespace aidcsim {

class Params {
 public:
  using List = std::vector<Params>;
  using Value = std::variant<double, std::string, bool, List>;

  Params() = default;
  /// `path` is this object's absolute dotted path ("" for the root, "rollout.phases[1]" for an item).
  explicit Params(std::string path) : path_(std::move(path)) {}

  void set(std::string key, Value v, std::string raw = {});
  bool has(std::string_view key) const;
  /// True when the key was written in the scenario (not filled from a default).
  bool given(std::string_view key) const;

  /// SI value of a numeric field. Throws InvalidParameter if absent or not numeric.
  double number(std::string_view key) const;
  /// Integer field (checked to be integral). Throws InvalidParameter otherwise.
  long long integer(std::string_view key) const;
  const std::string& text(std::string_view key) const;
  bool flag(std::string_view key) const;
  const List& list(std::string_view key) const;

  /// Raw text the user wrote for a key (for error messages); empty if defaulted.
  std::string raw(std::string_view key) const;
  /// Absolute dotted key of a relative one ("fabric.switch_radix").
  std::string full_key(std::string_view key) const;
  const std::string& path() const noexcept { return path_; }

  /// Throws InvalidParameter for `key` with its raw value, what was expected and an optional hint
  /// ("did you mean 'GB200'?").
  [[noreturn]] void invalid(std::string_view key, std::string_view expected, std::string hint = {}) const;

  const std::map<std::string, Value, std::less<>>& values() const noexcept { return values_; }

 private:
  const Value& at(std::string_view key) const;
  std::string path_;
  std::map<std::string, Value, std::less<>> values_;
  std::map<std::string, std::string, std::less<>> raw_;
};

}  // namespace aidcsim
