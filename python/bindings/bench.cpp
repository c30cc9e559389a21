// aidcsim.bench_collective's compiled part: the arguments of `aidcsim bench-collective`, checked
// by the same bench_options (sim/engine/collective_bench_args.hpp) and run by the same
// bench_collective / format_bench (sim/engine/collective_bench.hpp); the rows as plain data.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>

#include "python/bindings/bindings.hpp"
#include "python/bindings/interrupt.hpp"
#include "sim/engine/collective_bench.hpp"
#include "sim/engine/collective_bench_args.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim::bind {
namespace {

/// The arguments as aidcsim.bench_collective (python/aidcsim/bench.py) names them; it has no
/// nthreads (nccl-tests -t multiplies -g only).
BenchArgNames python_names() {
  BenchArgNames n;
  n.ranks = "gpus", n.gpu = "gpu", n.nodes = "nodes", n.ngpus = "gpus_per_node", n.nthreads = "";
  n.nvlink_domain = "nvlink_domain", n.nics_per_node = "nics_per_node", n.nic_rate = "nic_rate";
  n.link_rate = "link_rate", n.topology = "topology", n.wiring = "wiring", n.oversub = "oversubscription";
  n.spine_oversub = "spine_oversubscription", n.radix = "radix", n.planes = "planes";
  n.collective = "collective", n.algo = "algorithm", n.proto = "protocol", n.max_channels = "max_channels";
  n.min_channels = "min_channels", n.max_ctas = "max_ctas", n.min_ctas = "min_ctas";
  n.nvls_channels = "nvls_channels";
  n.min_bytes = "min_bytes", n.max_bytes = "max_bytes", n.step_bytes = "step_bytes", n.factor = "step_factor";
  n.datatype = "datatype", n.redop = "op", n.root = "root";
  n.assign = true;
  return n;
}

/// BenchArgs from {python name: value}, values already checked for type by bench.py.
BenchArgs args_from(const py::dict& given) {
  using Set = std::function<void(BenchArgs&, const py::handle&)>;
  auto text = [](std::string BenchArgs::*f) -> Set {
    return [f](BenchArgs& a, const py::handle& v) { a.*f = v.cast<std::string>(); };
  };
  auto integer = [](int BenchArgs::*f) -> Set {
    return [f](BenchArgs& a, const py::handle& v) { a.*f = v.cast<int>(); };
  };
  auto flag = [](bool BenchArgs::*f) -> Set {
    return [f](BenchArgs& a, const py::handle& v) { a.*f = v.cast<bool>(); };
  };
  static const std::map<std::string, Set> fields = {
      {"gpus", integer(&BenchArgs::ranks)},
      {"gpu", text(&BenchArgs::gpu)},
      {"gpu_file", text(&BenchArgs::gpu_file)},
      {"nodes", integer(&BenchArgs::nodes)},
      {"gpus_per_node", integer(&BenchArgs::ngpus)},
      {"nvlink_domain", integer(&BenchArgs::nvlink_domain)},
      {"nics_per_node", integer(&BenchArgs::nics_per_node)},
      {"nic_rate", text(&BenchArgs::nic_rate)},
      {"link_rate", text(&BenchArgs::link_rate)},
      {"topology", text(&BenchArgs::topology)},
      {"wiring", text(&BenchArgs::wiring)},
      {"oversubscription", text(&BenchArgs::oversub)},
      {"spine_oversubscription", text(&BenchArgs::spine_oversub)},
      {"radix", integer(&BenchArgs::radix)},
      {"planes", integer(&BenchArgs::planes)},
      {"sharp", flag(&BenchArgs::sharp)},
      {"collective", text(&BenchArgs::collective)},
      {"algorithm", text(&BenchArgs::algo)},
      {"protocol", text(&BenchArgs::proto)},
      {"max_channels", integer(&BenchArgs::max_channels)},
      {"min_channels", integer(&BenchArgs::min_channels)},
      {"max_ctas", integer(&BenchArgs::max_ctas)},
      {"min_ctas", integer(&BenchArgs::min_ctas)},
      {"nvls_channels", integer(&BenchArgs::nvls_channels)},
      {"steps", flag(&BenchArgs::steps)},
      {"min_bytes", text(&BenchArgs::min_bytes)},
      {"max_bytes", text(&BenchArgs::max_bytes)},
      {"step_bytes", text(&BenchArgs::step_bytes)},
      {"step_factor", text(&BenchArgs::factor)},
      {"iters", integer(&BenchArgs::iters)},
      {"warmup_iters", integer(&BenchArgs::warmup)},
      {"datatype", text(&BenchArgs::datatype)},
      {"op", text(&BenchArgs::redop)},
      {"root", integer(&BenchArgs::root)},
  };
  BenchArgs a;
  for (const auto& [key, value] : given) {
    const auto name = key.cast<std::string>();
    const auto f = fields.find(name);
    if (f == fields.end()) throw std::logic_error("bench_collective: no argument " + name);
    f->second(a, value);
  }
  return a;
}

struct BenchRun {
  BenchOptions options;
  std::vector<BenchRow> rows;
  std::string text;
};

}  // namespace

void register_bench(py::module_& m) {
  m.def(
      "bench_collective",
      [](const py::dict& given, const std::optional<std::string>& scenario_text, const std::string& scenario_name) {
        BenchArgs a = args_from(given);
        const BenchRun run = interruptible([&] {
          std::optional<Scenario> s;
          if (scenario_text) {
            s = load_scenario_text(*scenario_text, scenario_name);
            a.scenario = &*s;
          }
          BenchRun r;
          r.options = bench_options(a, python_names());
          r.rows = bench_collective(r.options);
          r.text = format_bench(r.options, r.rows);
          return r;
        });
        const auto& o = run.options;
        // nccl-tests' redop and root columns (format_bench): "none" / -1 where the op has none.
        using collectives::Op;
        const bool reduction = o.op == Op::AllReduce || o.op == Op::ReduceScatter || o.op == Op::Reduce;
        const bool rooted = o.op == Op::Broadcast || o.op == Op::Reduce;
        py::list rows;
        for (const BenchRow& r : run.rows) {
          py::dict d;
          d["size"] = r.size;
          d["count"] = r.count;
          d["type"] = collectives::type_name(o.type);
          d["redop"] = reduction ? collectives::redop_name(o.redop) : "none";
          d["root"] = rooted ? o.root : -1;
          d["time"] = r.time;
          d["algbw"] = r.algbw;
          d["busbw"] = r.busbw;
          d["algorithm"] = r.algorithm;
          d["protocol"] = r.proto;
          d["channels"] = r.channels;
          d["nccl_time"] = r.nccl_time;
          d["model_time"] = r.model_time;
          d["note"] = r.note;
          rows.append(d);
        }
        py::dict out;
        out["rows"] = rows;
        out["text"] = run.text;
        out["collective"] = collectives::op_name(o.op);
        out["nccl_tests_name"] = nccl_tests_name(o.op);
        out["ranks"] = o.op == Op::SendRecv ? 2 : (o.ranks > 0 ? std::min(o.ranks, o.fabric.gpus) : o.fabric.gpus);
        out["gpu"] = o.gpu.name;
        return out;
      },
      py::arg("args"), py::arg("scenario_text") = py::none(), py::arg("scenario_name") = "<string>",
      "Runs `aidcsim bench-collective` (aidcsim::bench_options, bench_collective, format_bench) with "
      "`args` {argument name of aidcsim.bench_collective: value} on the cluster of the scenario YAML "
      "`scenario_text` (None: the cluster options). Returns {rows: [{size [B], count, type, redop, "
      "root, time [s], algbw [B/s], busbw [B/s], algorithm, protocol, channels, nccl_time [s], "
      "model_time [s], note}], text: the CLI's output, collective, nccl_tests_name, ranks, gpu}. "
      "Raises aidcsim.ParameterError (a bad argument, key = its name), ScenarioError, FileError, "
      "SimulationError, Error; KeyboardInterrupt on Ctrl-C. Not thread-safe.");
}

}  // namespace aidcsim::bind
