#include "sim/results/output_set.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"

namespace aidcsim {
namespace {

namespace fs = std::filesystem;

// --- named temporaries, removable from a signal path -------------------------------------------
constexpr int kSlots = 16;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 registered
  char path[PATH_MAX];
};
std::array<Slot, kSlots> g_slots;

int register_temporary(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int free = 0;
    if (g_slots[i].state.compare_exchange_strong(free, 1)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].state.store(2);
      return i;
    }
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0);
}

std::atomic<unsigned> g_counter{0};
std::atomic<bool> g_publishing{false};

struct PublishingFlag {
  PublishingFlag() { g_publishing.store(true); }
  ~PublishingFlag() { g_publishing.store(false); }
};

[[noreturn]] void fail(const std::string& path, const std::string& why, int err = 0) {
  throw FileError("cannot write '" + path + "': " + why, path, err);
}

std::string errno_text(int err) { return std::strerror(err); }

// A descriptor named by the path ("-", /dev/stdout, /dev/fd/N, /proc/self/fd/N), or -1.
int descriptor_of(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::size_t n = std::strlen(prefix);
    if (path.compare(0, n, prefix) == 0 && path.size() > n &&
        path.find_first_not_of("0123456789", n) == std::string::npos && path.size() - n < 9)
      return std::atoi(path.c_str() + n);
  }
  return -1;
}

// Identity of a destination, to refuse two outputs naming one file.
std::string identity(const OutputTarget& t) {
  struct stat st {};
  if (t.kind == OutputKind::Stream && ::fstat(t.fd, &st) == 0)
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  const std::string& p = t.kind == OutputKind::File ? t.file : t.path;
  if (::stat(p.c_str(), &st) == 0) return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  std::error_code ec;
  return "new:" + fs::weakly_canonical(fs::absolute(p, ec), ec).string();
}

void write_all(int fd, const std::string& bytes, const std::string& path) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, errno_text(errno), errno);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

std::string parent_dir(const std::string& file) {
  const fs::path p(file);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// A .yaml / .yml name (ASCII case-insensitive): a scenario's. aidcsim writes no YAML.
bool yaml_name(const std::string& path) {
  for (const std::string_view sfx : {std::string_view(".yaml"), std::string_view(".yml")}) {
    if (path.size() < sfx.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < sfx.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(path[path.size() - sfx.size() + i])) == sfx[i];
    if (same) return true;
  }
  return false;
}

bool proc_fd_usable() {
  static const bool ok = ::access("/proc/self/fd", X_OK) == 0;
  return ok;
}

}  // namespace

bool outputs_publishing() noexcept { return g_publishing.load(); }

void remove_registered_temporaries() noexcept {
  for (auto& s : g_slots)
    if (s.state.load() == 2) ::unlink(s.path);
}

OutputTarget resolve_output(const std::string& path) {
  OutputTarget t;
  t.path = path;
  if (path.empty()) throw FileError("output path is empty", path);
  // A scenario's name given where an output goes (`compare s.yaml --json s.yaml`, a sweep's
  // `output: base.yaml`) replaced the user's scenario: refused for every writer, whatever the command.
  if (yaml_name(path)) fail(path, "a .yaml/.yml name is a scenario file's; aidcsim writes no YAML output");
  if (const int fd = descriptor_of(path); fd >= 0) {
    const int fl = ::fcntl(fd, F_GETFL);
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
      fail(path, "descriptor " + std::to_string(fd) + " is not open for writing");
    t.kind = OutputKind::Stream;
    t.fd = fd;
    t.terminal = ::isatty(fd) == 1;
    return t;
  }
  struct stat lst {
  }, st{};
  if (::lstat(path.c_str(), &lst) == 0) {
    if (::stat(path.c_str(), &st) != 0) fail(path, "it is a symbolic link to nothing (" + errno_text(errno) + ")");
    if (S_ISDIR(st.st_mode)) fail(path, "it is a directory");
    if (S_ISBLK(st.st_mode)) fail(path, "it is a block device");
    if (!S_ISREG(st.st_mode)) {  // FIFO, character device, socket: written through
      if (::access(path.c_str(), W_OK) != 0) fail(path, errno_text(errno));
      t.kind = OutputKind::Special;
      if (S_ISCHR(st.st_mode)) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd >= 0) {
          t.terminal = ::isatty(fd) == 1;
          ::close(fd);
        }
      }
      return t;
    }
    if (::access(path.c_str(), W_OK) != 0) fail(path, "the file is not writable (" + errno_text(errno) + ")");
    t.file = path;
    if (S_ISLNK(lst.st_mode)) {  // replace the link's target, keep the link
      char* real = ::realpath(path.c_str(), nullptr);
      if (!real) fail(path, errno_text(errno));
      t.file = real;
      std::free(real);
    }
  } else {
    t.file = path;
  }
  const std::string dir = parent_dir(t.file);
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0) fail(path, "directory '" + dir + "' does not exist");
  if (!S_ISDIR(dst.st_mode)) fail(path, "'" + dir + "' is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    fail(path, "directory '" + dir + "' is not writable (" + errno_text(errno) + ")");
  return t;
}

OutputSet::~OutputSet() { discard(); }

std::size_t OutputSet::add(const std::string& path, bool binary) {
  OutputTarget t = resolve_output(path);
  if (binary && t.terminal) fail(path, "it is a terminal (binary output; redirect it to a file or a pipe)");
  struct stat st {};
  const bool chardev = t.kind == OutputKind::Special && ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
  const std::string id = identity(t);
  for (const auto& other : targets_)  // two outputs to /dev/null are fine, to one file are not
    if (!chardev && identity(other) == id) fail(path, "the same file as another output ('" + other.path + "')");
  targets_.push_back(std::move(t));
  contents_.emplace_back();
  return targets_.size() - 1;
}

void OutputSet::set_content(std::size_t index, std::string bytes) { contents_.at(index) = std::move(bytes); }

void OutputSet::add(const std::string& path, std::string bytes, bool binary) {
  set_content(add(path, binary), std::move(bytes));
}

bool OutputSet::uses_stdout() const {
  for (const auto& t : targets_)
    if (t.kind == OutputKind::Stream && t.fd == 1) return true;
  return false;
}

void OutputSet::discard() {
  for (auto& p : pending_) {
    if (p.fd >= 0) ::close(p.fd);
    p.fd = -1;
    if (!p.named.empty() && !p.published) ::unlink(p.named.c_str());
    p.named.clear();
  }
  for (auto& s : slots_) unregister_temporary(s);
  slots_.clear();
  pending_.clear();
}

// Kept in one piece: the order of its steps (write every temporary, sync, then rename all, undo on
// any failure or signal) is what makes the set all-or-nothing, and is easier to check in one place.
void OutputSet::commit() {
  throw_if_cancelled();
  pending_.assign(targets_.size(), Pending{});
  try {
    // 1. Every regular file's bytes in a temporary next to it, on disk.
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      const OutputTarget& t = targets_[i];
      if (t.kind != OutputKind::File) continue;
      Pending& p = pending_[i];
      struct stat old {};
      const bool exists = ::stat(t.file.c_str(), &old) == 0;
      const mode_t mode = exists ? (old.st_mode & 07777) : 0666;
      const std::string dir = parent_dir(t.file);
      if (proc_fd_usable()) {
        p.fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
        if (p.fd < 0 && errno == ENOENT) fail(t.path, "directory '" + dir + "' does not exist");
      }
      if (p.fd < 0) {  // no O_TMPFILE here (or no /proc): a named temporary, removed on signals
        p.named = t.file + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(g_counter++);
        slots_.push_back(register_temporary(p.named));
        p.fd = ::open(p.named.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (p.fd < 0) fail(t.path, errno_text(errno));
      }
      if (exists) (void)::fchmod(p.fd, mode);  // keep the replaced file's permissions
      write_all(p.fd, contents_[i], t.path);
      if (::fsync(p.fd) != 0) fail(t.path, errno_text(errno));
    }
    // 2. Streams: cannot be taken back, so only once every file is ready.
    throw_if_cancelled();
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      const OutputTarget& t = targets_[i];
      if (t.kind == OutputKind::Stream) {
        write_all(t.fd, contents_[i], t.path);
      } else if (t.kind == OutputKind::Special) {
        const int fd = ::open(t.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) fail(t.path, errno_text(errno));
        try {
          write_all(fd, contents_[i], t.path);
        } catch (...) {
          ::close(fd);
          throw;
        }
        ::close(fd);
      }
    }
  } catch (...) {
    discard();
    throw;
  }
  // 3. Publish: link + rename, one directory operation per file.
  PublishingFlag publishing;
  std::string error;
  std::size_t failed_at = targets_.size();
  for (std::size_t i = 0; i < targets_.size() && error.empty(); ++i) {
    const OutputTarget& t = targets_[i];
    if (t.kind != OutputKind::File) continue;
    Pending& p = pending_[i];
    struct stat st {};
    p.created = ::lstat(t.file.c_str(), &st) != 0;
    std::string from = p.named;
    int slot = -1;
    if (from.empty()) {
      const std::string proc = "/proc/self/fd/" + std::to_string(p.fd);
      if (p.created && ::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, t.file.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        p.published = true;
        continue;
      }
      from = t.file + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(g_counter++);
      slot = register_temporary(from);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, from.c_str(), AT_SYMLINK_FOLLOW) != 0) {
        error = errno_text(errno);
        unregister_temporary(slot);
        failed_at = i;
        break;
      }
    }
    if (std::rename(from.c_str(), t.file.c_str()) != 0) {
      error = errno_text(errno);
      ::unlink(from.c_str());
      failed_at = i;
    } else {
      p.published = true;
    }
    unregister_temporary(slot);
  }
  if (!error.empty()) {
    // Take back what this set created; a replaced file cannot be restored (said in the message).
    std::string replaced;
    for (std::size_t j = 0; j < failed_at; ++j) {
      const Pending& p = pending_[j];
      if (!p.published) continue;
      if (p.created)
        ::unlink(targets_[j].file.c_str());
      else
        replaced += (replaced.empty() ? "" : ", ") + targets_[j].path;
    }
    const std::string path = targets_[failed_at].path;
    discard();
    fail(path, error + (replaced.empty() ? "" : "; already replaced: " + replaced));
  }
  // Directory entries durable too.
  for (const auto& t : targets_)
    if (t.kind == OutputKind::File) {
      const int dfd = ::open(parent_dir(t.file).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0) {
        (void)::fsync(dfd);
        ::close(dfd);
      }
    }
  discard();
}

void write_output(const std::string& path, const std::string& bytes, bool binary) {
  OutputSet set;
  set.add(path, bytes, binary);
  set.commit();
}

}  // namespace aidcsim
