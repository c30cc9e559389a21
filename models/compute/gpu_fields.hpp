#pragma once
// The keys of one GPU definition, shared by the built-in catalogue file (models/compute/gpus.yaml,
// `gpus[].<key>`) and a scenario's own `gpus:` list, so both are validated and documented by the
// same table: the GpuSpec field, its quantity (units as in scenario files), range and meaning.
#include <string>
#include <variant>
#include <vector>

#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/compute/gpu_spec.hpp"

namespace aidcsim::compute {

/// One figure of a GpuSpec as a scenario/catalogue key.
struct GpuField {
  using Member = std::variant<std::string GpuSpec::*, double GpuSpec::*, int GpuSpec::*, bool GpuSpec::*>;
  std::string key;  ///< same as the GpuSpec member name
  Quantity quantity;
  Member member;
  /// Needed for a GPU defined without `base` (the others have a stated default or estimate).
  bool required;
  double min, max;  ///< SI range (ignored for String/Bool)
  std::string doc;
};

/// Every figure of a GPU definition, in GpuSpec order ("name" and "description" first).
const std::vector<GpuField>& gpu_fields();

/// Schema of a list of GPU definitions under `list_key` ("gpus"): the List field, each figure as
/// "<list_key>[].<field>", "base" (a GPU to copy), and "sources.<field>" (citation strings).
Schema gpu_list_schema(const std::string& list_key, const std::string& doc);

/// Value of a figure as a number (FLOP/s, B, B/s, W, K; generation as a number; nvls 0/1); throws
/// aidcsim::Error for a text field.
double field_number(const GpuSpec& g, const GpuField& f);
/// Sets the figure `f` of `g` from the validated item `p` (key f.key, relative to p).
void set_field(GpuSpec& g, const GpuField& f, const Params& p);

}  // namespace aidcsim::compute
