#pragma once
// Output files written as a set: all of them or none, never half a file, never a stray temporary.
//
//   OutputSet out;
//   out.add("run.h5", hdf5_image(results));   // checks the destination now (before a long run,
//   out.add("run.json", json_text);           // call add() with the paths first: see check())
//   out.commit();                              // all published, or Error and nothing changed
//
// commit() first writes every regular file's bytes to an unnamed temporary in the destination's
// directory (Linux O_TMPFILE: nothing is left behind even on SIGKILL; a named "<path>.tmp-<pid>-<n>"
// registered for removal on SIGINT/SIGTERM where the file system has no O_TMPFILE), flushed to
// disk; then writes the streams; then publishes each temporary under its name (link + rename in
// its directory, atomic per file). A failure before publishing leaves no new file; a failure while
// publishing (the directory removed between two renames) removes the files this set created.
//
// Destinations:
// - a regular file or a new name: temporary + rename (a symlink to a regular file: the link's
//   target is replaced, the link stays);
// - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written through that descriptor;
// - other special files (FIFO, character device such as /dev/null, socket): opened and written
//   through, never renamed over (the cause of /dev/stdout becoming a regular file when run as root);
// - refused (aidcsim::Error): an empty path, a .yaml/.yml name (a scenario's), a directory, a block device, a missing or unwritable
//   directory, two outputs naming the same file.
#include <cstddef>
#include <string>
#include <vector>

namespace aidcsim {

/// Where an output path leads.
enum class OutputKind {
  File,     ///< regular file (existing or new): written through a temporary and a rename
  Stream,   ///< an open descriptor (stdout, /dev/fd/N): written through
  Special,  ///< a FIFO, character device or socket: opened and written through
};

/// One destination, resolved.
struct OutputTarget {
  std::string path;  ///< as given
  OutputKind kind = OutputKind::File;
  std::string file;       ///< File: the regular file to replace (symlinks resolved)
  int fd = -1;            ///< Stream: the descriptor
  bool terminal = false;  ///< Stream/Special: a terminal
};

/// Resolves `path` and checks, without creating anything, that it can be written (see the
/// destinations above). Throws aidcsim::FileError naming the path and the reason.
OutputTarget resolve_output(const std::string& path);

class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  /// Removes any temporary left by a commit() that threw.
  ~OutputSet();

  /// Checks `path` (resolve_output) and that no other output of the set names the same file or
  /// descriptor; remembers it. `binary`: refuse a terminal (HDF5 bytes on a screen). Returns the
  /// index to pass to set_content(). Throws aidcsim::FileError.
  std::size_t add(const std::string& path, bool binary = false);
  /// The bytes of output `index`.
  void set_content(std::size_t index, std::string bytes);
  /// add() + set_content().
  void add(const std::string& path, std::string bytes, bool binary);

  /// Writes the set (see the file comment). Checks cancel (models/common/cancel.hpp) before
  /// publishing: a run interrupted by then writes nothing. Throws aidcsim::FileError (or Cancelled)
  /// with the set unchanged on disk, except in the rare case said above.
  void commit();

  const std::vector<OutputTarget>& targets() const noexcept { return targets_; }
  /// True when some output goes to standard output (the console summary then goes to stderr).
  bool uses_stdout() const;

 private:
  struct Pending {
    int fd = -1;           ///< open temporary (O_TMPFILE) or -1
    std::string named;     ///< named temporary when O_TMPFILE is unavailable
    bool created = false;  ///< the destination did not exist before publish
    bool published = false;
  };
  void discard();
  std::vector<OutputTarget> targets_;
  std::vector<std::string> contents_;
  std::vector<Pending> pending_;
  std::vector<int> slots_;  ///< registered named temporaries
};

/// Writes one file with the guarantees of OutputSet (a set of one).
void write_output(const std::string& path, const std::string& bytes, bool binary = false);

/// Removes the named temporaries of every set being committed (a fixed table, no allocation:
/// callable from a signal path before the process ends). O_TMPFILE temporaries need nothing.
void remove_registered_temporaries() noexcept;

/// True while a commit() publishes (renames): a forced exit waits for it to end, so a set is
/// never published halfway.
bool outputs_publishing() noexcept;

}  // namespace aidcsim
