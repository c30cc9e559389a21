#pragma once
// Alpha-beta (Hockney) closed forms of NCCL-style collectives and the nccl-tests bandwidth
// definitions. S is the nccl-tests "size" (bytes): the whole buffer for all-reduce / broadcast,
// the total gathered (= per-rank x n) for all-gather / reduce-scatter, the per-rank send buffer
// for all-to-all. B is the per-GPU effective bandwidth (B/s, after protocol efficiency), alpha
// the per-step latency (s).
namespace aidcsim::collectives {

enum class Op { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, Reduce, SendRecv };
const char* op_name(Op op);

/// busbw / algbw factor of nccl-tests doc/PERFORMANCE.md (published-figures.md §4.1):
/// all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce,
/// send/recv 1. n >= 1.
double busbw_factor(Op op, int n);
/// algbw = S / t (B/s); busbw = algbw x busbw_factor (nccl-tests).
double algbw(double bytes, double time);
double busbw(Op op, int n, double bytes, double time);

/// Ring all-reduce: 2(n-1)/n S/B + 2(n-1) alpha (Patarasuk & Yuan 2009; Thakur et al. 2005).
double ring_allreduce_time(int n, double bytes, double bw, double alpha);
/// Ring all-gather and reduce-scatter: (n-1)/n S/B + (n-1) alpha (Thakur et al. 2005).
double ring_allgather_time(int n, double bytes, double bw, double alpha);
double ring_reduce_scatter_time(int n, double bytes, double bw, double alpha);
/// Recursive halving-doubling all-reduce (Rabenseifner): 2 log2(n) alpha + 2(n-1)/n S/B,
/// n a power of two (Thakur et al. 2005, §4.4).
double halving_doubling_allreduce_time(int n, double bytes, double bw, double alpha);
/// Pipelined double binary tree all-reduce (NCCL 2.4, Sanders et al. 2009): the two trees each
/// carry S/2; with enough pipeline chunks every rank sends and receives ~S per direction:
/// S/B + 2 log2(n) alpha (bandwidth term independent of n, latency logarithmic).
double tree_allreduce_time(int n, double bytes, double bw, double alpha);
/// In-switch reduction (NVLS / SHARP): each GPU sends S once and receives S once: S/B + 2 alpha.
double in_network_allreduce_time(int n, double bytes, double bw, double alpha);
/// Direct all-to-all: (n-1) alpha + (n-1)/n S/B (every rank sends S/n to each of n-1 peers).
double alltoall_time(int n, double bytes, double bw, double alpha);

}  // namespace aidcsim::collectives
