#pragma once
// Reading a component's scenario keys (models/thermal internal): the value if given, else the
// default already in the CoolingSpec field.
#include <string>

#include "models/common/params.hpp"

namespace aidcsim::thermal::keys {

inline double num(const Params& p, const char* key, double dflt) { return p.has(key) ? p.number(key) : dflt; }
inline int integer(const Params& p, const char* key, int dflt) {
  return p.has(key) ? static_cast<int>(p.integer(key)) : dflt;
}
inline std::string text(const Params& p, const char* key, const std::string& dflt) {
  return p.has(key) ? p.text(key) : dflt;
}

}  // namespace aidcsim::thermal::keys
