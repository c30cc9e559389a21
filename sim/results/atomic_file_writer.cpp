#include "sim/results/atomic_file_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "models/common/errors.hpp"

namespace aidcsim {

namespace fs = std::filesystem;

void check_writable_path(const std::string& path) {
  if (path.empty()) throw Error("output path is empty");
  const fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) throw Error("cannot write '" + path + "': it is a directory");
  const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::exists(parent, ec))
    throw Error("cannot write '" + path + "': directory '" + parent.string() + "' does not exist");
  if (!fs::is_directory(parent, ec))
    throw Error("cannot write '" + path + "': '" + parent.string() + "' is not a directory");
  if (::access(parent.c_str(), W_OK) != 0)
    throw Error("cannot write '" + path + "': directory '" + parent.string() +
                "' is not writable (" + std::strerror(errno) + ")");
}

void write_atomically(const std::string& path,
                      const std::function<void(const std::string& tmp_path)>& write) {
  check_writable_path(path);
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  auto discard = [&] {
    std::error_code ec;
    fs::remove(tmp, ec);  // best effort: the temp file may never have been created
  };
  try {
    write(tmp);
  } catch (const std::exception& e) {
    discard();
    throw Error("cannot write '" + path + "': " + e.what());
  } catch (...) {
    discard();
    throw Error("cannot write '" + path + "': unknown error");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    discard();
    throw Error("cannot write '" + path + "': rename from '" + tmp + "' failed: " + std::strerror(err));
  }
}

}  // namespace aidcsim
