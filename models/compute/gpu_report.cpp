#include "models/compute/gpu_report.hpp"

#include <string>

namespace aidcsim::compute {

void report_gpu(Results& r, const GpuSpec& g) {
  std::string est;
  for (const auto& [field, source] : g.sources)
    if (g.estimated(field)) est += (est.empty() ? "" : ", ") + field;
  r.notes.push_back("gpu: " + g.name + (g.description.empty() ? "" : " (" + g.description + ")") +
                    "; figures and sources in docs/gpus.md" +
                    (est.empty() ? "" : "; estimated (not published): " + est));
}

}  // namespace aidcsim::compute
