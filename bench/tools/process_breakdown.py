#!/usr/bin/python3
"""Benchmark tool (prints figures, not a test): where a whole `aidcsim run` goes, by owner.

Reads `perf report --no-children --sort dso,sym --stdio -g none -F overhead,period,dso,sym` of a
`perf record` run (bench/tools/loop_profile.sh makes one with --whole) and sums each sample's own
(self) period by the owner of its leaf frame: SimGrid (libsimgrid: its lmm solver), aidcsim's
network engine (aidcsim::network::FlowNetwork and network::detail: FlowNetwork::run's route
phase, event loop, link timeline, repetitions, MaxMinSharing's calls into SimGrid), aidcsim's
network reports (the rest of aidcsim::network: congestion, link utilisation, step traffic, read
from a run's result), aidcsim's routing
(aidcsim::topology), the kernel (page faults and zeroing, mostly), the allocator (jemalloc,
malloc/free) and the rest (the other models, the CLI, libstdc++ and std:: templates such as
the schedule's destructor, HDF5 output).
Usage: process_breakdown.py PERF_REPORT_TXT [CPU_S] (CPU s per owner = share x CPU_S, e.g. the
run's user + system s)."""
import re, sys, collections
tot = collections.Counter(); n = 0
row = re.compile(r'^\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(.*)$')
for line in open(sys.argv[1], errors='replace'):
    m = row.match(line)
    if not m: continue
    period = int(m.group(2)); dso = m.group(3); kind = m.group(4); sym = m.group(5)
    n += period
    if kind == 'k' or dso.startswith('[kernel'):
        owner = 'kernel'
    elif 'libsimgrid' in dso:
        owner = 'SimGrid (lmm)'
    elif 'jemalloc' in dso or re.search(r'\bmalloc\b|\bfree\b|operator new|operator delete', sym):
        owner = 'allocator'
    elif re.search(r'aidcsim::network::(detail::|FlowNetwork::)', sym) and not re.match(r'std::', sym):
        owner = 'aidcsim network engine'
    elif re.match(r'aidcsim::network::', sym):
        owner = 'aidcsim network reports'
    elif 'aidcsim::topology' in sym:
        owner = 'aidcsim routing (topology)'
    else:
        owner = 'other'
    tot[owner] += period
if not n: sys.exit("no sample rows (perf report -F overhead,period,dso,sym?)")
cpu = float(sys.argv[2]) if len(sys.argv) > 2 else None
print("| owner | share of the process | " + ("CPU s |" if cpu else ""))
print("|---|---:|" + ("---:|" if cpu else ""))
for o, v in tot.most_common():
    print(f"| {o} | {v/n*100:.1f} % |" + (f" {cpu*v/n:.3f} |" if cpu else ""))
