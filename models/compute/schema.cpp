#include "models/compute/schema.hpp"

#include "models/compute/catalogue.hpp"

namespace aidcsim::compute {

Schema schema() {
  using Q = Quantity;
  return {
      {"cluster.gpu", Q::String, "GB200", false, {}, {}, false, catalogue_names(),
       "GPU model; its datasheet figures come from the catalogue (docs/scenario-reference.md lists sources)."},
  };
}

GpuSpec spec_from(const Params& root) { return find_gpu(root.text("cluster.gpu")); }

}  // namespace aidcsim::compute
