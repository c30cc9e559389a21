#!/usr/bin/python3
"""Benchmark tool (prints figures, not a test): where the network event loop's CPU time goes.

Reads `perf script -F comm,tid,period,ip,sym --no-inline` of a `perf record --call-graph dwarf`
run (bench/tools/loop_profile.sh makes both). Each sample whose call chain passes through the
loop (models/network/flow_network.cpp, simulate()) goes to the part named by the nearest frame
from the leaf upwards; allocation frames (malloc/free/new/delete, the kernel's page faults and
page zeroing) are skipped for that and counted in their own column, so "of which allocation"
says what share of a part is first touch of memory. Code inlined into simulate() (the
completion heap, the solver's rate callback) is not separable without debug info and is its
own row. Usage: loop_breakdown.py PERF_SCRIPT_TXT [LOOP_CPU_S] (CPU s per part = share x
LOOP_CPU_S, e.g. the "network: event loop" row of `aidcsim run --profile`)."""
import re, sys, collections
ROOT = re.compile(r'network::detail::\(anonymous namespace\)::simulate\b')
ALLOC = re.compile(r'\bmalloc\b|\bfree\b|operator new|operator delete|^je_|_rjem_|arena_|tcache_|extent_|asm_exc_page_fault|exc_page_fault|clear_page|folio_zero|__memset|_M_realloc|_M_default_append|_M_fill_insert|^ffffffff')
PARTS = [
  ("lmm solve (System::solve)", r'lmm::System::solve|lmm::MaxMin::|MaxMinSharing::solve_only'),
  ("reading rates (modified set)", r'MaxMinSharing::read_changed|MaxMinSharing::solve_into|Action::get_rate'),
  ("lmm selective-update marking", r'update_modified_cnst_set|remove_all_modified_cnst_set'),
  ("lmm variable add/remove", r'lmm::System::expand|variable_new|variable_free|var_free|Action::~Action|Action::Action|MaxMinSharing::add_item|MaxMinSharing::remove_item|lmm::Element|lmm::Variable|lmm::System::|on_disabled_var'),
  ("lmm constraint add (per link direction)", r'constraint_new|Constraint::Constraint|MaxMinSharing::add_resource'),
  ("link timeline", r'tl_credit|tl_bin|tl_boundary|tl_done|tl_progress|tl_compact|tl_finish|tl_init'),
  ("repetition/periodic bookkeeping", r'rep_finished|rep_ready|begin_batch|before_add|on_item_added|on_item_removed|periodic_check|group_end|new_wave|repeats_template|fast_forward|rep_init|materialise'),
  ("timed event queue (TimedQueue: latency expiries, bins)", r'TimedQueue::'),
  ("flow start/finish (slots, route resources)", r'start_flow|start_transfer_flows|link_resource|new_slot|free_slot|complete_slot|remains_now|\bbegin\b|drain_ready|handle_timed'),
]
PC = [(n, re.compile(p)) for n, p in PARTS]
# SimGrid helpers called from several parts (check_concurrency ends expand, var_free and solve):
# their samples go to the caller's part.
PASS = re.compile(r'check_concurrency|@plt$')
SELF = "event loop itself (simulate: completion heap, rate callback, inlined)"
tot = collections.Counter(); alloc = collections.Counter(); n_all = 0
def flush(fr, period):
    global n_all
    if not fr: return
    n_all += period
    idx = next((i for i, s in enumerate(fr) if ROOT.search(s)), None)
    if idx is None: return
    part = None; is_alloc = False
    for s in fr[:idx]:
        if ALLOC.search(s): is_alloc = True; continue
        if PASS.search(s): continue
        part = next((n for n, c in PC if c.search(s)), None)
        if part: break
    part = part or SELF
    tot[part] += period
    if is_alloc: alloc[part] += period
fr = []; period = 0
for line in open(sys.argv[1], errors='replace'):
    if not line.strip():
        flush(fr, period); fr = []; continue
    if not line[0].isspace():
        parts = line.split(); period = int(parts[2]) if len(parts) > 2 else 1; fr = []; continue
    p = line.strip().split(None, 1)
    fr.append(p[1] if len(p) > 1 else ('ffffffff' if p[0].startswith('ffffffff') else p[0]))
flush(fr, period)
if not tot:
    sys.exit("no sample inside the network event loop (symbols missing? perf script of a dwarf call-graph run?)")
s = sum(tot.values()); cpu = float(sys.argv[2]) if len(sys.argv) > 2 else None
print(f"loop = {s/n_all*100:.1f} % of the process's samples")
print(f"| part | share of the loop | of which allocation / page faults |" + (" CPU s |" if cpu else ""))
print("|---|---:|---:|" + ("---:|" if cpu else ""))
for n, v in tot.most_common():
    print(f"| {n} | {v/s*100:.1f} % | {alloc[n]/s*100:.1f} % |" + (f" {cpu*v/s:.3f} |" if cpu else ""))
print(f"| total allocation / page faults (all parts) | {sum(alloc.values())/s*100:.1f} % | |")
