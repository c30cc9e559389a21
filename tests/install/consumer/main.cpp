// Runs a scenario through the installed aidcsim library: consumer SCENARIO.yaml OUT.h5
// Prints the version, the step time and the MFU; writes the HDF5 results. Exit 0 on success,
// 1 with the error message on any aidcsim::Error (invalid scenario, simulation, I/O).
#include <iostream>

#include "models/common/errors.hpp"
#include "models/common/version.hpp"
#include "sim/engine/simulate.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/scenario/scenario.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: consumer SCENARIO.yaml OUT.h5\n";
    return 64;
  }
  try {
    const aidcsim::Scenario scenario = aidcsim::load_scenario_file(argv[1]);
    const aidcsim::Results r = aidcsim::simulate(scenario);
    aidcsim::write_hdf5(r, argv[2], "aidcsim consumer");
    std::cout << "aidcsim " << aidcsim::version() << "\n"
              << "step_time " << r.scalar("step_time") << " s\n"
              << "mfu " << r.scalar("mfu") << " %\n";
    return 0;
  } catch (const aidcsim::Error& e) {
    std::cerr << "consumer: " << e.what() << "\n";
    return 1;
  }
}
