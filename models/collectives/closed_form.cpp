#include "models/collectives/closed_form.hpp"

#include <cmath>

namespace aidcsim::collectives {

const char* op_name(Op op) {
  switch (op) {
    case Op::AllReduce:
      return "all_reduce";
    case Op::AllGather:
      return "all_gather";
    case Op::ReduceScatter:
      return "reduce_scatter";
    case Op::AllToAll:
      return "alltoall";
    case Op::Broadcast:
      return "broadcast";
    case Op::Reduce:
      return "reduce";
    case Op::SendRecv:
      return "sendrecv";
  }
  return "?";
}

double busbw_factor(Op op, int n) {
  switch (op) {
    case Op::AllReduce:
      return 2.0 * (n - 1) / n;
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::AllToAll:
      return double(n - 1) / n;
    default:
      return 1.0;
  }
}

double algbw(double bytes, double time) { return time > 0 ? bytes / time : 0; }
double busbw(Op op, int n, double bytes, double time) { return algbw(bytes, time) * busbw_factor(op, n); }

double ring_allreduce_time(int n, double s, double b, double a) {
  if (n <= 1) return 0;
  return 2.0 * (n - 1) / n * s / b + 2.0 * (n - 1) * a;
}
double ring_allgather_time(int n, double s, double b, double a) {
  if (n <= 1) return 0;
  return double(n - 1) / n * s / b + (n - 1) * a;
}
double ring_reduce_scatter_time(int n, double s, double b, double a) { return ring_allgather_time(n, s, b, a); }
double halving_doubling_allreduce_time(int n, double s, double b, double a) {
  if (n <= 1) return 0;
  return 2.0 * std::log2(double(n)) * a + 2.0 * (n - 1) / n * s / b;
}
double tree_allreduce_time(int n, double s, double b, double a) {
  if (n <= 1) return 0;
  return s / b + 2.0 * std::ceil(std::log2(double(n))) * a;
}
double in_network_allreduce_time(int n, double s, double b, double a) {
  if (n <= 1) return 0;
  return s / b + 2.0 * a;
}
double alltoall_time(int n, double s, double b, double a) {
  if (n <= 1) return 0;
  return (n - 1) * a + double(n - 1) / n * s / b;
}

}  // namespace aidcsim::collectives
