// `aidcsim version`: the aidcsim version and the versions of the libraries that shape its results.
#include <H5public.h>
#include <xbt/base.h>  // SG_BEGIN_DECL, needed by simgrid/version.h: its own block, so that sorting keeps it first

#include <simgrid/version.h>

#include <iostream>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"

namespace aidcsim::cli {

void add_version_command(CLI::App& app, Action& action) {
  CLI::App* sub = app.add_subcommand("version", "Print the version of aidcsim and its libraries");
  sub->callback([&action] {
    action = [] {
      std::cout << version_line() << "\n"
                << fmt::format("SimGrid {}.{}.{}, HDF5 {}.{}.{}, fmt {}.{}.{}, CLI11 {}\n", SIMGRID_VERSION_MAJOR,
                               SIMGRID_VERSION_MINOR, SIMGRID_VERSION_PATCH, H5_VERS_MAJOR, H5_VERS_MINOR,
                               H5_VERS_RELEASE, FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100,
                               CLI11_VERSION);
      return kExitOk;
    };
  });
}

}  // namespace aidcsim::cli
