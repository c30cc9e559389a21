// `aidcsim report RESULTS.h5 [--out DIR]`, `aidcsim sweep SWEEP.yaml ...` and `aidcsim compare A.yaml
// B.yaml ...`: the plots, sweeps and design comparisons
// live in the Python package (python/aidcsim), so these subcommands replace the process with
// `PYTHON -m aidcsim report|sweep|compare ARGS...` (every argument after the subcommand passed on as is,
// including --help). PYTHON is $AIDCSIM_PYTHON, else the interpreter the extension module was built
// for (CMake's Python3_EXECUTABLE), else `python3` on PATH. The package is looked for next to this
// executable, in the build tree (<exe dir>/../python) and in an installed tree (<exe dir>/../
// AIDCSIM_INSTALL_PYTHONDIR), and prepended to PYTHONPATH; when neither holds it, the interpreter's
// own (pip-installed) aidcsim is used.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "models/common/errors.hpp"
#include "sim/cli/commands.hpp"

#ifndef AIDCSIM_PYTHON_EXECUTABLE
#define AIDCSIM_PYTHON_EXECUTABLE ""
#endif
#ifndef AIDCSIM_INSTALL_PYTHONDIR
#define AIDCSIM_INSTALL_PYTHONDIR "lib/aidcsim/python"
#endif

namespace aidcsim::cli {
namespace {

namespace fs = std::filesystem;

// The directory holding the aidcsim package that belongs to this executable, or "" if none.
std::string package_dir() {
  const std::string exe_dir = executable_dir();
  if (exe_dir.empty()) return {};
  const fs::path prefix = fs::path(exe_dir).parent_path();
  for (const fs::path& dir : {prefix / "python", prefix / AIDCSIM_INSTALL_PYTHONDIR})
    if (fs::exists(dir / "aidcsim" / "__init__.py")) return fs::weakly_canonical(dir).string();
  return {};
}

std::string interpreter() {
  if (const char* env = std::getenv("AIDCSIM_PYTHON"); env && *env) return env;
  const std::string built_for = AIDCSIM_PYTHON_EXECUTABLE;
  if (!built_for.empty() && ::access(built_for.c_str(), X_OK) == 0) return built_for;
  return "python3";  // looked up on PATH by execvp
}

int exec_python(const std::string& command, const std::vector<std::string>& args) {
  return guarded([&]() -> int {
    if (const std::string dir = package_dir(); !dir.empty()) {
      std::string path = dir;
      if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
      ::setenv("PYTHONPATH", path.c_str(), 1);
    }
    const std::string python = interpreter();
    std::vector<std::string> argv_s = {python, "-m", "aidcsim", command};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp(python.c_str(), argv.data());
    throw Error("cannot run " + python +
                " (set AIDCSIM_PYTHON to a Python 3 with aidcsim's dependencies): " + std::strerror(errno));
  });
}

void add_passthrough(CLI::App& app, Action& action, const std::string& name, const std::string& help) {
  CLI::App* sub = app.add_subcommand(name, help);
  sub->prefix_command();  // everything after the subcommand goes to Python unparsed
  sub->set_help_flag();   // so does --help
  sub->callback([sub, name, &action] {
    auto args = std::make_shared<std::vector<std::string>>(sub->remaining());
    action = [name, args] { return exec_python(name, *args); };
  });
}

}  // namespace

void add_python_commands(CLI::App& app, Action& action) {
  add_passthrough(app, action, "report",
                  "Write PNG plots (and an HTML report) of a results file: report RESULTS.h5 [--out DIR] "
                  "[--html FILE] (Python)");
  add_passthrough(app, action, "sweep",
                  "Run a parameter sweep described in SWEEP.yaml (Python; see `aidcsim sweep --help`)");
  add_passthrough(app, action, "compare",
                  "Compare designs over seeds: compare A.yaml [--set KEY=VALUE].. B.yaml .. [--seeds N] (Python; "
                  "see `aidcsim compare --help`)");
}

}  // namespace aidcsim::cli
