#include "models/compute/catalogue.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/common/errors.hpp"
#include "models/compute/gpu_fields.hpp"

namespace aidcsim::compute {
namespace {

// Fallbacks for figures a definition does not give (documented in gpu_fields() and catalogue.hpp).
constexpr double kMamfOfPeak = 0.8;        // estimate: MAMF/peak is 0.73-0.87 on NVIDIA parts (docs/gpus.md)
constexpr double kAttentionOfPeak = 0.45;  // estimate: FlashAttention-3 on H200 in a training step, 447/989
constexpr int kPcieGeneration = 5;         // estimate: PCIe Gen5 x16 hosts (H100 .. MI300X; gpus.yaml sources)

/// A derived figure for a GPU built on `base`: the base's value scaled by the change of the peak it
/// depends on, or the fraction-of-peak estimate when there is no base.
void derive(GpuSpec& g, const GpuSpec* base, double GpuSpec::*figure, const char* key, double GpuSpec::*peak,
            const char* peak_key, double of_peak) {
  if (g.*peak <= 0) {
    g.*figure = 0;
    g.sources[key] = std::string("none: no ") + peak_key;
    return;
  }
  if (base && base->*figure > 0 && base->*peak > 0) {
    if (base->*peak == g.*peak) return;  // inherited as measured
    g.*figure = base->*figure * (g.*peak / base->*peak);
    g.sources[key] =
        fmt::format("estimate: {}'s {} x {} ratio {:.4g}", base->name, key, peak_key, g.*peak / base->*peak);
    return;
  }
  g.*figure = of_peak * (g.*peak);
  g.sources[key] = fmt::format("estimate: {} x {}", of_peak, peak_key);
}

}  // namespace

void Catalogue::add(const Params::List& items, const std::string& origin) {
  for (const Params& item : items) {
    const std::string name = item.text("name");
    const GpuSpec* base = nullptr;
    GpuSpec g;
    if (item.has("base")) {
      const std::string b = item.text("base");
      if (!contains(b)) item.invalid("base", "a GPU defined before this one (" + names_text() + ")");
      base = &find(b);
      g = *base;
      g.description.clear();
    } else if (contains(name)) {
      base = &find(name);
      g = *base;
    }
    const GpuSpec before = g;
    g.name = name;
    std::vector<std::string> missing;
    for (const GpuField& f : gpu_fields()) {
      if (f.key == "name") continue;
      if (item.has(f.key)) {
        set_field(g, f, item);
        if (f.key != "description")
          g.sources[f.key] = item.has("sources." + f.key) ? item.text("sources." + f.key) : origin;
      } else if (!base && f.required) {
        missing.push_back(f.key);
      } else if (item.has("sources." + f.key)) {
        g.sources[f.key] = item.text("sources." + f.key);
      }
    }
    if (!missing.empty()) {
      std::string keys;
      for (const auto& k : missing) keys += (keys.empty() ? "" : ", ") + k;
      throw InvalidParameter(
          item.path(), name,
          "a complete definition of a new GPU (missing " + keys + "), or base: one of " + names_text());
    }
    const GpuSpec* scale_from = base ? &before : nullptr;
    if (!base && !item.has("pcie_generation")) {
      g.pcie_generation = kPcieGeneration;
      g.sources["pcie_generation"] =
          "estimate: Gen5, the host interface of H100, H200, B200 (Gen6 capable) and MI300X; A100 is Gen4";
    }
    if (!base && !item.has("max_nvlink_domain"))
      g.sources["max_nvlink_domain"] = "not given: cluster.nvlink_domain is not checked against this GPU's platforms";
    if (!item.has("bf16_mamf"))
      derive(g, scale_from, &GpuSpec::bf16_mamf, "bf16_mamf", &GpuSpec::bf16_flops, "bf16_flops", kMamfOfPeak);
    if (!item.has("fp8_mamf"))
      derive(g, scale_from, &GpuSpec::fp8_mamf, "fp8_mamf", &GpuSpec::fp8_flops, "fp8_flops", kMamfOfPeak);
    if (!item.has("attention_flops"))
      derive(g, scale_from, &GpuSpec::attention_flops, "attention_flops", &GpuSpec::bf16_flops, "bf16_flops",
             kAttentionOfPeak);

    auto check = [&](bool ok, const std::string& key, const std::string& expected) {
      if (ok) return;
      if (item.has(key)) item.invalid(key, expected);
      throw InvalidParameter(item.path(), name, key + " " + expected);
    };
    check(g.bf16_mamf <= g.bf16_flops, "bf16_mamf", "at most bf16_flops (a measured rate cannot exceed the peak)");
    check(g.fp8_mamf <= g.fp8_flops, "fp8_mamf", "at most fp8_flops (0 without FP8)");
    check(g.attention_flops <= g.bf16_flops, "attention_flops", "at most bf16_flops");
    check(g.shutdown_temperature > g.throttle_temperature, "shutdown_temperature", "above throttle_temperature");
    check(g.idle_power < g.tdp, "idle_power", "below tdp");
    check(!g.nvls || g.nvlink_generation >= 4, "nvls",
          "false below NVLink generation 4 (NVLink SHARP came with NVSwitch gen 3 / NVLink4)");
    check(g.nvlink_generation == 0 || g.nvlink_bandwidth > 0, "nvlink_bandwidth", "above 0 with NVLink");

    auto it = std::find_if(gpus_.begin(), gpus_.end(), [&](const GpuSpec& x) { return x.name == name; });
    if (it != gpus_.end())
      *it = g;
    else
      gpus_.push_back(g);
  }
}

bool Catalogue::contains(const std::string& name) const {
  return std::any_of(gpus_.begin(), gpus_.end(), [&](const GpuSpec& g) { return g.name == name; });
}

const GpuSpec& Catalogue::find(const std::string& name) const {
  for (const auto& g : gpus_)
    if (g.name == name) return g;
  throw Error("unknown GPU model '" + name + "' (known: " + names_text() + ")");
}

std::vector<std::string> Catalogue::names() const {
  std::vector<std::string> n;
  for (const auto& g : gpus_) n.push_back(g.name);
  return n;
}

std::string Catalogue::names_text() const {
  std::string s;
  for (const auto& g : gpus_) s += (s.empty() ? "" : ", ") + g.name;
  return s.empty() ? "none" : s;
}

}  // namespace aidcsim::compute
