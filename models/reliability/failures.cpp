#include "models/reliability/failures.hpp"

#include "models/common/units.hpp"

namespace aidcsim::reliability {

namespace {
using units::kDay;
// Llama 3 §3.3.4 snapshot: 54 days, 16,384 GPUs in 2,048 servers (published-figures.md §2.3).
constexpr double kLlamaGpuDays = 16384.0 * 54.0;
constexpr double kLlamaNodeDays = 2048.0 * 54.0;
// Alibaba HPN §2.3: monthly failure fractions; a month = 30.4375 days.
constexpr double kMonth = 30.4375;
}  // namespace

const char* component_name(Component c) {
  switch (c) {
    case Component::Gpu:
      return "gpu";
    case Component::Hbm:
      return "hbm";
    case Component::Nic:
      return "nic";
    case Component::Host:
      return "host";
    case Component::Switch:
      return "switch";
    case Component::Link:
      return "link";
    case Component::Pump:
      return "pump";
    case Component::Cdu:
      return "cdu";
    case Component::Software:
      return "software";
    case Component::Node:
      return "node";
  }
  return "?";
}

double default_rate(FailurePreset preset, Component c) {
  double per_day = 0;
  switch (preset) {
    case FailurePreset::Llama3:
      switch (c) {
        case Component::Gpu:
          per_day = 196.0 / kLlamaGpuDays;
          break;
        case Component::Hbm:
          per_day = 72.0 / kLlamaGpuDays;
          break;
        case Component::Software:
          per_day = 63.0 / kLlamaGpuDays;
          break;
        case Component::Host:
          per_day = 46.0 / kLlamaNodeDays;
          break;
        case Component::Nic:
          per_day = 7.0 / kLlamaGpuDays;
          break;
        case Component::Link:
          per_day = 0.00057 / kMonth;
          break;
        case Component::Switch:
          per_day = 0.00051 / kMonth;
          break;
        default:
          per_day = 0;
      }
      break;
    case FailurePreset::Rsc1:
      per_day = c == Component::Node ? 6.50e-3 : 0;
      break;
    case FailurePreset::Rsc2:
      per_day = c == Component::Node ? 2.34e-3 : 0;
      break;
    case FailurePreset::None:
      per_day = 0;
      break;
  }
  return per_day / kDay;
}

std::vector<FailureProcess> failure_processes(const ReliabilitySpec& spec, const ComponentCounts& n) {
  std::vector<FailureProcess> out;
  for (int i = 0; i < kComponents; ++i) {
    const auto c = static_cast<Component>(i);
    double per_component = default_rate(spec.preset, c);
    double count = 0;
    switch (c) {
      case Component::Gpu:
      case Component::Hbm:
      case Component::Software:
        count = n.gpus;
        break;
      case Component::Nic:
        count = n.nics > 0 ? n.nics : n.gpus;
        break;
      case Component::Host:
        count = n.nodes;
        break;
      case Component::Switch:
        count = n.switches;
        break;
      case Component::Link:
        count = n.links;
        break;
      case Component::Pump:
        count = n.pumps;
        break;
      case Component::Cdu:
        count = n.cdus;
        break;
      case Component::Node:
        count = n.gpus / 8.0;
        break;  // 8-GPU node equivalents (Kokolis et al.)
    }
    for (const auto& o : spec.failures) {
      if (o.component != c) continue;
      if (o.mtbf > 0) per_component = 1.0 / o.mtbf;
      if (o.count >= 0) count = o.count;
    }
    FailureProcess p;
    p.component = c;
    p.rate = per_component * count;
    p.degrades = c == Component::Link && spec.link_mode == LinkFailureMode::Degrade;
    p.needs_spare = c != Component::Software && c != Component::Link && c != Component::Switch &&
                    c != Component::Pump && c != Component::Cdu;
    out.push_back(p);
  }
  return out;
}

double stop_rate(const std::vector<FailureProcess>& processes) {
  double r = 0;
  for (const auto& p : processes)
    if (!p.degrades) r += p.rate;
  return r;
}

}  // namespace aidcsim::reliability
