#include "sim/scenario/bom_parts.hpp"

#include <map>

#include "models/topology/bom_schema.hpp"
#include "sim/scenario/validate.hpp"

namespace aidcsim {

const Params& builtin_bom_parts() {
  static const Params p = [] {
    std::map<std::string, SourceLocation> locations;
    return validate_scenario_text(builtin_bom_parts_text(), "models/topology/bom_parts.yaml (built in)",
                                  topology::bom_schema(), locations);
  }();
  return p;
}

topology::BomSpec builtin_bom_spec() { return topology::bom_spec_from(Params(), builtin_bom_parts()); }

}  // namespace aidcsim
