#include "models/common/cancel.hpp"

#include <string>

namespace aidcsim {

Cancelled::Cancelled(int signal)
    : Error(signal == 2    ? std::string("interrupted (SIGINT)")
            : signal == 15 ? std::string("terminated (SIGTERM)")
            : signal > 0   ? "stopped by signal " + std::to_string(signal)
                           : std::string("cancelled")),
      signal_(signal) {}

}  // namespace aidcsim
