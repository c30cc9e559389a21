#pragma once
// The built-in GPU catalogue (models/compute/gpus.yaml, compiled in) and GPU catalogue files in the
// same format, read with the scenario validator (units, ranges, unknown keys at file:line:column).
#include <string>

#include "models/compute/catalogue.hpp"
#include "models/topology/fabric_spec.hpp"

namespace aidcsim {

/// The built-in catalogue, parsed and validated on first use (thread-safe). A broken built-in file
/// is a build defect: tests load it; a ScenarioError naming gpus.yaml:line is thrown if it is.
const compute::Catalogue& builtin_gpus();
/// Text of the built-in catalogue file (for docs and tools).
const char* builtin_gpus_text();

/// Reads a GPU catalogue file's text (`gpus:` list, docs/gpus.md) and adds its definitions to a copy
/// of `base`; `name` is the file name in messages. Throws ScenarioError (file:line:column).
compute::Catalogue load_gpu_catalogue(const std::string& text, const std::string& name,
                                      const compute::Catalogue& base = {});

/// Same from a file (aidcsim::Error if it cannot be read).
compute::Catalogue load_gpu_catalogue_file(const std::string& path, const compute::Catalogue& base = {});

/// docs/gpus.md: every GPU of `c` with each figure in display units and its source.
std::string gpu_catalogue_markdown(const compute::Catalogue& c);

/// Copies the GPU's scale-up figures (NVLink bandwidth per direction, NVLS capability) into a
/// fabric spec: the one place they pass from the GPU model to the NVLink domain; and the GPU's
/// share of its NIC's PCIe attachment (FabricSpec::nic_pcie_rate = collectives::pcie_rate, with
/// `nics_per_node` NICs per node, 0 = one per GPU). Call it after the fabric's own keys are set
/// (the share depends on the NVLink domain).
void fit_fabric_to_gpu(topology::FabricSpec& fabric, const compute::GpuSpec& gpu, int nics_per_node = 0);

/// Empty when an NVLink domain of `domain` GPUs can be built from `gpu` (at most its
/// GpuSpec::max_nvlink_domain, when given); otherwise what was expected, naming the GPU's maximum
/// and its source, for an error on cluster.nvlink_domain (or --nvlink-domain).
std::string nvlink_domain_excess(const compute::GpuSpec& gpu, int domain);

}  // namespace aidcsim
