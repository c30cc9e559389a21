#include "models/compute/gpu_fields.hpp"

#include "models/common/errors.hpp"
#include "models/common/units.hpp"

namespace aidcsim::compute {

bool GpuSpec::estimated(const std::string& field) const {
  auto it = sources.find(field);
  return it == sources.end() || it->second.rfind("estimate", 0) == 0;
}

const std::vector<GpuField>& gpu_fields() {
  using Q = Quantity;
  static const std::vector<GpuField> f = {
      {"name", Q::String, &GpuSpec::name, true, 0, 0, "Name the GPU is referred to by (cluster.gpu)."},
      {"description", Q::String, &GpuSpec::description, false, 0, 0, "Product name and variant."},
      {"bf16_flops", Q::FlopRate, &GpuSpec::bf16_flops, true, 1e12, 1e17, "Dense BF16/FP16 tensor peak (no sparsity)."},
      {"fp8_flops", Q::FlopRate, &GpuSpec::fp8_flops, false, 0, 1e17,
       "Dense FP8 tensor peak; 0 (the default) = no FP8 tensor cores: FP8 runs at the BF16 rate."},
      {"bf16_mamf", Q::FlopRate, &GpuSpec::bf16_mamf, false, 0, 1e17,
       "Maximum achievable matmul FLOP/s, BF16 (best measured GEMM over shapes). Default: estimate 0.8 x bf16_flops."},
      {"fp8_mamf", Q::FlopRate, &GpuSpec::fp8_mamf, false, 0, 1e17,
       "Maximum achievable matmul FLOP/s, FP8. Default: estimate 0.8 x fp8_flops."},
      {"attention_flops", Q::FlopRate, &GpuSpec::attention_flops, false, 0, 1e17,
       "FlashAttention forward + backward in a training step, causal, BF16, counted causally: 3 x the "
       "causal forward (6 b s^2 h per layer) over the attention kernels' time. "
       "Default: estimate 0.45 x bf16_flops (H100/H200 FlashAttention-3 in a training step)."},
      {"hbm_bytes", Q::DataSize, &GpuSpec::hbm_bytes, true, 1e9, 1e13,
       "HBM capacity as the driver exposes it (nvidia-smi total; the CUDA context and NCCL buffers come out of it: "
       "workload.memory_reserve)."},
      {"hbm_bandwidth", Q::DataRate, &GpuSpec::hbm_bandwidth, true, 1e10, 1e14, "HBM peak bandwidth."},
      {"nvlink_generation", Q::Integer, &GpuSpec::nvlink_generation, true, 0, 10,
       "NVLink generation: 0 none (e.g. AMD Infinity Fabric), 3 A100, 4 Hopper, 5 Blackwell."},
      {"nvlink_bandwidth", Q::DataRate, &GpuSpec::nvlink_bandwidth, true, 0, 1e13,
       "Scale-up bandwidth per GPU per direction inside the NVLink domain (AMD: Infinity Fabric all-to-all)."},
      {"max_nvlink_domain", Q::Integer, &GpuSpec::max_nvlink_domain, false, 0, 576,
       "Largest NVLink (scale-up) domain the GPU's platforms build, in GPUs: 8 for an HGX board, 72 for GB200 "
       "NVL72, 8 for an MI300X Infinity Fabric platform; a larger cluster.nvlink_domain is refused. 0 (the default "
       "of a new GPU without base) = not given: cluster.nvlink_domain is not checked."},
      {"nvls", Q::Bool, &GpuSpec::nvls, false, 0, 0,
       "NVLink SHARP (in-switch reduction, NCCL's NVLS algorithm) capable; needs nvlink_generation >= 4. Default "
       "false."},
      {"pcie_generation", Q::Integer, &GpuSpec::pcie_generation, false, 3, 6,
       "PCIe generation of the x16 path from the GPU to its NICs in its platform (GPUDirect RDMA): NCCL rates it "
       "at 12 / 24 / 48 / 96 GB/s for Gen3 / 4 / 5 / 6. Default: estimate 5."},
      {"sms", Q::Integer, &GpuSpec::sms, false, 0, 10000,
       "Streaming multiprocessors; 0 (the default) = not given: the SMs that TP communication kernels overlapped "
       "with GEMMs take (workload.parallelism.tp_comm_overlap) are then not modelled."},
      {"tdp", Q::Power, &GpuSpec::tdp, true, 1, 1e4, "Maximum board power (TDP / TGP)."},
      {"idle_power", Q::Power, &GpuSpec::idle_power, true, 0, 1e4, "Power of an idle GPU."},
      {"throttle_temperature", Q::Temperature, &GpuSpec::throttle_temperature, true, units::kZeroCelsius, 450,
       "Junction temperature where the clocks start to drop (software throttle / max operating)."},
      {"shutdown_temperature", Q::Temperature, &GpuSpec::shutdown_temperature, true, units::kZeroCelsius, 450,
       "Junction temperature of the thermal shutdown."},
  };
  return f;
}

Schema gpu_list_schema(const std::string& list_key, const std::string& doc) {
  using Q = Quantity;
  const std::string item = list_key + "[].";
  Schema s;
  s.push_back({list_key, Q::List, "", false, {}, {}, false, {}, doc});
  for (const GpuField& f : gpu_fields()) {
    Field k;
    k.key = item + f.key;
    k.quantity = f.quantity;
    k.required = f.key == "name";
    if (f.quantity != Q::String && f.quantity != Q::Bool) {
      k.min = f.min;
      k.max = f.max;
    }
    k.doc = f.doc;
    s.push_back(k);
    if (f.key == "name") {
      s.push_back({item + "base",
                   Q::String,
                   "",
                   false,
                   {},
                   {},
                   false,
                   {},
                   "A GPU (built in, or defined earlier in the list) whose figures this one starts from; without "
                   "it a new name needs every required figure, and a built-in name is overridden in place."});
    }
  }
  s.push_back({item + "sources",
               Q::Map,
               "",
               false,
               {},
               {},
               false,
               {},
               "Where each figure comes from (paper and table, datasheet); one string per figure key."});
  for (const GpuField& f : gpu_fields())
    if (f.key != "name" && f.key != "description")
      s.push_back({item + "sources." + f.key, Q::String, "", false, {}, {}, false, {}, "Source of " + f.key + "."});
  return s;
}

double field_number(const GpuSpec& g, const GpuField& f) {
  if (auto d = std::get_if<double GpuSpec::*>(&f.member)) return g.**d;
  if (auto i = std::get_if<int GpuSpec::*>(&f.member)) return g.**i;
  if (auto b = std::get_if<bool GpuSpec::*>(&f.member)) return g.**b ? 1.0 : 0.0;
  throw Error("GPU field '" + f.key + "' is not a number");
}

void set_field(GpuSpec& g, const GpuField& f, const Params& p) {
  if (auto s = std::get_if<std::string GpuSpec::*>(&f.member))
    g.** s = p.text(f.key);
  else if (auto d = std::get_if<double GpuSpec::*>(&f.member))
    g.** d = p.number(f.key);
  else if (auto i = std::get_if<int GpuSpec::*>(&f.member))
    g.** i = static_cast<int>(p.integer(f.key));
  else if (auto b = std::get_if<bool GpuSpec::*>(&f.member))
    g.** b = p.flag(f.key);
}

}  // namespace aidcsim::compute
