#include "models/common/errors.hpp"

namespace aidcsim {

InvalidParameter::InvalidParameter(std::string key, std::string value, std::string expected, std::string hint)
    : Error(key + ": got " + (value.empty() ? std::string("(nothing)") : "'" + value + "'") + ", expected " + expected +
            (hint.empty() ? std::string() : "; " + hint)),
      key_(std::move(key)),
      value_(std::move(value)),
      expected_(std::move(expected)),
      hint_(std::move(hint)) {}

}  // namespace aidcsim
