#pragma once
// SimGrid 3.32's max-min solver walks the constraints a change touches recursively
// (lmm::System::update_modified_cnst_set_rec): the depth grows with the connected component, and at
// ~0.5 M transfers in flight (PAT or all-to-all at 32K GPUs) it overflows a default 8 MiB stack
// (seen under gdb, SIGSEGV). FlowNetwork::run therefore runs on a thread with a large stack; only
// the pages the recursion touches are committed.
#include <cstddef>
#include <functional>

namespace aidcsim::network::detail {

/// Bytes of stack reserved for a run (virtual address space; committed as touched).
inline constexpr std::size_t kRunStackBytes = std::size_t{1} << 30;

/// Whether the calling thread is a run thread started by run_on_large_stack.
bool on_large_stack();

/// Runs `body` on a thread with kRunStackBytes of stack and waits for it: one long-lived thread
/// for the process (a thread of its own when another caller's run is on it; the calling thread
/// when it is a large-stack one already). An exception thrown by `body` is rethrown in the caller.
/// Throws SimulationError if the thread cannot be started.
void run_on_large_stack(const std::function<void()>& body);

}  // namespace aidcsim::network::detail
