#pragma once
// Writes an output file so that a run never leaves a half-written file behind: the content goes
// to "<path>.tmp-<pid>" in the same directory, which is renamed over <path> only when complete
// (rename(2) within one file system is atomic), and removed on any error.
#include <functional>
#include <string>

namespace aidcsim {

/// Calls `write(tmp_path)` to produce the file at a temporary path next to `path`, then renames
/// it to `path`. If `write` throws, or the rename fails, the temporary file is removed and
/// aidcsim::Error is thrown (the original exception's message is kept); `path` is untouched.
/// Throws aidcsim::Error before calling `write` if `path` names a directory or its parent
/// directory does not exist.
void write_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);

/// Checks, without creating anything, that `path` could be written: its parent directory exists
/// and is a directory, and `path` is not itself a directory. Throws aidcsim::Error naming the
/// path and the reason. Used by the CLI before a long run so a typo in --output fails at once.
void check_writable_path(const std::string& path);

}  // namespace aidcsim
