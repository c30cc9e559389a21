#include "models/compute/compute_schema.hpp"

#include "models/common/suggest.hpp"
#include "models/compute/gpu_fields.hpp"

namespace aidcsim::compute {
namespace {
const char* kListDoc =
    "GPU models defined or overridden by this file, in the format of the built-in catalogue "
    "(models/compute/gpus.yaml, docs/gpus.md): each item a name, optionally a base GPU, and figures.";
}

Schema schema() {
  using Q = Quantity;
  Schema s = {
      {"cluster.gpu",
       Q::String,
       "GB200",
       false,
       {},
       {},
       false,
       {},
       "GPU model: a name of the built-in catalogue (docs/gpus.md lists every figure and its source) or of an "
       "item of `gpus`."},
  };
  Schema list = gpu_list_schema("gpus", kListDoc);
  s.insert(s.end(), list.begin(), list.end());
  return s;
}

Schema catalogue_schema() { return gpu_list_schema("gpus", kListDoc); }

GpuSpec spec_from(const Params& root, const Catalogue& builtin) {
  Catalogue c = builtin;
  c.add(root.list("gpus"), "scenario file");
  const std::string& name = root.text("cluster.gpu");
  if (!c.contains(name)) {
    // closest_match is case-insensitive: "gb200" is at distance 0 from "GB200", so it wins.
    const auto near = closest_match(name, c.names());
    root.invalid("cluster.gpu", "a GPU of the catalogue or of `gpus` (" + c.names_text() + ")",
                 near ? "did you mean '" + *near + "'?" : std::string());
  }
  return c.find(name);
}

}  // namespace aidcsim::compute
