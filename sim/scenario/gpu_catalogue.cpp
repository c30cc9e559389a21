#include "sim/scenario/gpu_catalogue.hpp"

#include "models/collectives/collective.hpp"
#include "models/compute/compute_schema.hpp"
#include "models/compute/gpu_fields.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/unit_parser.hpp"
#include "sim/scenario/validate.hpp"

namespace aidcsim {

compute::Catalogue load_gpu_catalogue(const std::string& text, const std::string& name,
                                      const compute::Catalogue& base) {
  Scenario where;  // file and key locations, for errors found after validation
  where.file = name;
  const Params doc = validate_scenario_text(text, name, compute::catalogue_schema(), where.locations);
  compute::Catalogue c = base;
  try {
    c.add(doc.list("gpus"), name + " (no source given)");
  } catch (const InvalidParameter& e) {
    throw where.locate(e);
  }
  return c;
}

compute::Catalogue load_gpu_catalogue_file(const std::string& path, const compute::Catalogue& base) {
  return load_gpu_catalogue(read_scenario_file(path), path, base);
}

const compute::Catalogue& builtin_gpus() {
  static const compute::Catalogue c = load_gpu_catalogue(builtin_gpus_text(), "models/compute/gpus.yaml (built in)");
  return c;
}

namespace {
// Unit each figure is shown in on docs/gpus.md.
std::string shown(const compute::GpuSpec& g, const compute::GpuField& f) {
  switch (f.quantity) {
    case Quantity::String:
      return "";
    case Quantity::Bool:
      return compute::field_number(g, f) != 0 ? "yes" : "no";
    case Quantity::Integer:
      return format_number(compute::field_number(g, f));
    default:
      break;
  }
  const char* example = f.quantity == Quantity::FlopRate      ? "1 TFLOP/s"
                        : f.quantity == Quantity::DataSize    ? "1 GB"
                        : f.quantity == Quantity::DataRate    ? (f.key == "hbm_bandwidth" ? "1 TB/s" : "1 GB/s")
                        : f.quantity == Quantity::Temperature ? "1 degC"
                                                              : "";
  return format_quantity(f.quantity, compute::field_number(g, f), display_unit(f.quantity, example));
}

std::string cell(std::string s) {
  std::string r;
  for (char c : s) r += c == '|' ? std::string("\\|") : std::string(1, c);
  return r;
}
}  // namespace

std::string gpu_catalogue_markdown(const compute::Catalogue& c) {
  const auto& fields = compute::gpu_fields();
  std::string md =
      "# GPU catalogue\n\n"
      "Generated from `models/compute/gpus.yaml` (compiled into aidcsim) by `test_scenario \"[gpus]\"`; do not edit: "
      "edit the YAML and regenerate with `AIDCSIM_UPDATE_DOCS=1 build/bin/test_scenario \"[gpus]\"`.\n\n"
      "A scenario picks one with `cluster.gpu` and may define or override GPUs in its own `gpus:` list, in the "
      "same format as the catalogue file (keys in [scenario-reference.md](scenario-reference.md#gpus)); "
      "`aidcsim bench-collective --gpu-file FILE` reads such a list too. An item with `base:` starts from that "
      "GPU's figures; an item with a built-in name and no `base:` overrides that GPU; a new name without `base:` "
      "needs every required figure. Figures left out are estimated and labelled so: MAMF 0.8 x peak, attention "
      "0.45 x BF16 peak, or, with a base whose peak changed, the base's measured figure scaled by the peak ratio. "
      "Every run's notes list the estimated figures of its GPU.\n\n"
      "Sources are tagged [read] (read in the cited document or a transcription), [secondary] (a third party "
      "quoting the vendor), [inferred] (arithmetic on read figures) or estimate.\n\n## Summary\n\n| GPU |";
  std::vector<const compute::GpuField*> numeric;
  for (const auto& f : fields)
    if (f.quantity != Quantity::String) numeric.push_back(&f);
  for (const auto* f : numeric) md += " " + f->key + " |";
  md += "\n|---|";
  for (std::size_t i = 0; i < numeric.size(); ++i) md += "---|";
  md += "\n";
  for (const auto& g : c.gpus()) {
    md += "| " + g.name + " |";
    for (const auto* f : numeric) md += " " + shown(g, *f) + (g.estimated(f->key) ? " (e)" : "") + " |";
    md += "\n";
  }
  md += "\n(e): estimate, see the GPU's section.\n";
  for (const auto& g : c.gpus()) {
    md += "\n## " + g.name + "\n\n" + (g.description.empty() ? "" : g.description + ".\n\n");
    md += "| Figure | Value | Source |\n|---|---|---|\n";
    for (const auto* f : numeric) {
      auto it = g.sources.find(f->key);
      md += "| `" + f->key + "` | " + shown(g, *f) + " | " + cell(it == g.sources.end() ? "-" : it->second) + " |\n";
    }
  }
  return md;
}

void fit_fabric_to_gpu(topology::FabricSpec& fabric, const compute::GpuSpec& gpu, int nics_per_node) {
  fabric.nvlink_bandwidth = gpu.nvlink_bandwidth;
  fabric.nvls = gpu.nvls;
  fabric.nic_pcie_rate = collectives::pcie_rate(fabric, gpu, nics_per_node);
}

std::string nvlink_domain_excess(const compute::GpuSpec& gpu, int domain) {
  if (gpu.max_nvlink_domain <= 0 || domain <= gpu.max_nvlink_domain) return "";
  auto src = gpu.sources.find("max_nvlink_domain");
  return "at most " + std::to_string(gpu.max_nvlink_domain) + ", the largest NVLink domain of " + gpu.name +
         " (max_nvlink_domain" + (src == gpu.sources.end() ? "" : ": " + src->second) + ")";
}

}  // namespace aidcsim
