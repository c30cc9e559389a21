#pragma once
// GPUs per compute rack: the one rack layout of the whole program. The priced bill of materials
// (cable lengths), the thermal model (racks, rear doors, CDUs, air checks), the feasibility check
// and the Python bindings all take it from here, so a site never has two rack counts.
#include "models/topology/bom_spec.hpp"

namespace aidcsim::topology {

/// GPUs per compute rack: `layout.gpus_per_rack` (scenario key bom.layout.gpus_per_rack) when set
/// (> 0); else one NVLink domain per rack when the domain has >= 32 GPUs (GB200 NVL72: 72, one
/// domain per rack, NVIDIA DGX GB200 user guide), else 32 GPUs = 4 eight-GPU servers (DGX/HGX
/// H100: 10.2 kW max per server, so ~41 kW per rack; the DGX SuperPOD H100 reference
/// architecture's 4-SU bill of materials is 127 nodes in 38 racks, i.e. 4 nodes per compute rack
/// with the rest network and management racks [inferred]; published-figures §4.4). Inputs: the
/// layout and the fabric's NVLink domain size (GPUs, >= 1).
int gpus_per_rack(const PhysicalLayout& layout, int nvlink_domain);

}  // namespace aidcsim::topology
