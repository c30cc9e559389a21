#pragma once
// Typed exceptions thrown by every aidcsim library. Library code throws; it never exits the process.
#include <stdexcept>
#include <string>

namespace aidcsim {

/// Base class of every exception aidcsim throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A model parameter outside its domain, raised by a model with the dotted scenario key it came
/// from (e.g. "fabric.switch_radix", "rollout.phases[1].gpus"). The scenario layer catches it and
/// rethrows a ScenarioError with the file, line and column of that key.
/// - key: dotted path of the offending key (list items as name[i]).
/// - value: the offending value as the user would recognise it ("48", "400 GB").
/// - expected: what would have been accepted ("a multiple of 72", "a data rate such as 400 Gbps").
/// - hint: optional, e.g. "did you mean 'GB200'?"; what() ends with "; <hint>" when given.
class InvalidParameter : public Error {
 public:
  InvalidParameter(std::string key, std::string value, std::string expected, std::string hint = {});
  const std::string& key() const noexcept { return key_; }
  const std::string& value() const noexcept { return value_; }
  const std::string& expected() const noexcept { return expected_; }
  const std::string& hint() const noexcept { return hint_; }

 private:
  std::string key_, value_, expected_, hint_;
};

/// A file that cannot be read or written: missing, a directory, no permission, a full disk.
/// what() says which file and why; `path()` is the file, `error_number()` the errno (0: unknown).
class FileError : public Error {
 public:
  FileError(const std::string& message, std::string path, int error_number = 0)
      : Error(message), path_(std::move(path)), errno_(error_number) {}
  const std::string& path() const noexcept { return path_; }
  int error_number() const noexcept { return errno_; }

 private:
  std::string path_;
  int errno_;
};

/// A simulation that cannot go on with valid input: GPUs disconnected by a failure, a flow with no
/// route, a solver that did not converge. The message says which element and why.
class SimulationError : public Error {
 public:
  using Error::Error;
};

}  // namespace aidcsim
