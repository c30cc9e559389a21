#pragma once
// Per-component failure processes: default rates (Llama 3 Table 5, Alibaba HPN, Meta RSC) scaled
// by the component counts of the simulated cluster. Each process is Poisson (exponential
// inter-failure times); the superposition is one Poisson process with the summed rate, and the
// cause of each event is drawn in proportion to the component rates.
#include <array>
#include <string>
#include <vector>

#include "models/reliability/training_spec.hpp"

namespace aidcsim::reliability {

/// Component counts of one situation (cluster state), supplied by the engine.
struct ComponentCounts {
  double gpus = 0;      ///< GPUs in the job (HBM stacks and software failures scale with them too)
  double nodes = 0;     ///< hosts: 8-GPU servers or 4-GPU compute trays (gpus / cluster.gpus_per_node)
  double nics = 0;      ///< scale-out NICs; 0 = one per GPU
  double switches = 0;  ///< fabric switches
  double links = 0;     ///< fabric cables (NIC-leaf and switch-switch)
  double pumps = 0;     ///< coolant pumps whose failure stops the job
  double cdus = 0;      ///< coolant distribution units
};

/// Default failure rate of one component of class `c`, in failures per component per second.
/// Sources (published-figures.md):
/// - llama3 (§2.3, Llama 3 Table 5; 419 unexpected interruptions in 54 days on 16,384 H100 in
///   2,048 8-GPU servers): gpu = faulty GPU 148 + SRAM 19 + GPU system processor 17 + SDC 6 +
///   thermal interface 6 = 196 per 16,384 GPUs; hbm = 72 per GPU; software = software bug 54 +
///   dependency 2 + NCCL watchdog 7 = 63, scaled per GPU (assumption: bigger jobs hit more
///   bugs); host = host maintenance 32 + SSD 3 + PSU 3 + chassis 2 + IO board 2 + CPU 2 + DRAM 2
///   = 46 per 2,048 servers, applied per host (a GB200 compute tray, 2 Grace + 4 GPUs, is a host:
///   twice the HGX rate per GPU; docs/reliability.md "Host failures"); nic = 7 per 16,384 NICs. Network (35 "switch/cable"): Alibaba HPN
///   (§7.1, SIGCOMM'24 §2.3) 0.057 % of links per month (1.87e-5 per link-day) and 0.051 % of
///   switches per month (1.68e-5 per switch-day) — on the inferred 35,109 links of the Llama 3
///   16K fabric this gives 35.5 in 54 days, consistent with Table 5. Pumps, CDUs: no published
///   rate in the reference file, default 0 (set reliability.failures).
/// - rsc1 / rsc2 (§7.1, Kokolis et al., HPCA 2025): node failure rate r_f = 6.50 / 2.34 per
///   1000 node-days (node = 8 A100), all causes; every other class 0.
/// - none: 0.
double default_rate(FailurePreset preset, Component c);

/// One failure process of a situation: its total rate and what it does.
struct FailureProcess {
  Component component = Component::Gpu;
  double rate = 0;           ///< failures per second for all components of this class together
  bool degrades = false;     ///< true: link failure degrades the fabric instead of stopping the job
  bool needs_spare = false;  ///< true: a hardware failure that consumes a (hot) spare node
};

/// Failure processes of a situation: per-component rate (preset, or 1/mtbf from an override)
/// times the count (engine count, or the override's). Order is the Component enum order, so the
/// cause drawn for a given random number is deterministic.
std::vector<FailureProcess> failure_processes(const ReliabilitySpec& spec, const ComponentCounts& counts);

/// Sum of the rates of the processes that stop the job (1/s); 1 / this is the job MTBF.
double stop_rate(const std::vector<FailureProcess>& processes);

}  // namespace aidcsim::reliability
