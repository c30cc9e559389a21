// `aidcsim report RESULTS.h5 [--out DIR]` and `aidcsim sweep SWEEP.yaml ...`: the plots and sweeps
// live in the Python package (python/aidcsim), so these subcommands replace the process with
// `/usr/bin/python3` running aidcsim.report.main / aidcsim.sweep.main with ARGS..., PYTHONPATH pointing at the build's
// python directory (<exe dir>/../python). Every argument after the subcommand is passed on as is,
// including --help. $AIDCSIM_PYTHON overrides the interpreter.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "models/common/errors.hpp"
#include "sim/cli/commands.hpp"

namespace aidcsim::cli {
namespace {

int exec_python(const std::string& module, const std::vector<std::string>& args) {
  return guarded([&]() -> int {
    namespace fs = std::filesystem;
    const std::string exe_dir = executable_dir();
    const fs::path pydir = fs::path(exe_dir).parent_path() / "python";
    if (exe_dir.empty() || !fs::exists(pydir / "aidcsim" / "__init__.py"))
      throw Error("the Python package is not next to this executable (looked for " +
                  (pydir / "aidcsim").string() + "); build the aidcsim_python target");
    std::string path = fs::weakly_canonical(pydir).string();
    if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
    ::setenv("PYTHONPATH", path.c_str(), 1);

    const char* env_python = std::getenv("AIDCSIM_PYTHON");
    const std::string python = env_python && *env_python ? env_python : "/usr/bin/python3";
    // `-c` rather than `-m module`: the package imports its submodules, and runpy warns when the
    // module run with -m is already in sys.modules.
    std::vector<std::string> argv_s = {python, "-c",
                                       "import sys; from " + module + " import main; sys.exit(main(sys.argv[1:]))"};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(python.c_str(), argv.data());
    throw Error("cannot run " + python + ": " + std::strerror(errno));
  });
}

void add_passthrough(CLI::App& app, Action& action, const std::string& name, const std::string& module,
                     const std::string& help) {
  CLI::App* sub = app.add_subcommand(name, help);
  sub->prefix_command();   // everything after the subcommand goes to Python unparsed
  sub->set_help_flag();    // so does --help
  sub->callback([sub, module, &action] {
    auto args = std::make_shared<std::vector<std::string>>(sub->remaining());
    action = [module, args] { return exec_python(module, *args); };
  });
}

}  // namespace

void add_python_commands(CLI::App& app, Action& action) {
  add_passthrough(app, action, "report", "aidcsim.report",
                  "Write PNG plots of a results file: report RESULTS.h5 [--out DIR] (Python)");
  add_passthrough(app, action, "sweep", "aidcsim.sweep",
                  "Run a parameter sweep described in SWEEP.yaml (Python; see `aidcsim sweep --help`)");
}

}  // namespace aidcsim::cli
