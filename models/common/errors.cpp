#include "models/common/errors.hpp"

namespace aidcsim {

InvalidParameter::InvalidParameter(std::string key, std::string value, std::string expected)
    : Error(key + ": got " + (value.empty() ? std::string("(nothing)") : "'" + value + "'") + ", expected " + expected),
      key_(std::move(key)),
      value_(std::move(value)),
      expected_(std::move(expected)) {}

}  // namespace aidcsim
