#include "sim/scenario/input_limits.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "models/common/errors.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {
namespace {

std::string hex_byte(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", b);
  return buf;
}

std::string code_point(char32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  return buf;
}

// YAML 1.2 c-printable (§5.1), without the byte order mark (allowed only first).
bool printable(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0x7E) || c == 0x85 || (c >= 0xA0 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD && c != 0xFEFF) || (c >= 0x10000 && c <= 0x10FFFF);
}

}  // namespace

std::string unprintable_in(const std::string& value) {
  const auto* s = reinterpret_cast<const unsigned char*>(value.data());
  const std::size_t n = value.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char b = s[i];
    // yaml-cpp writes decoded escapes as UTF-8 (it refuses surrogates and values above U+10FFFF),
    // so only well-formed sequences occur; a stray byte is reported as itself.
    const std::size_t len = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    char32_t c = len == 1 ? b : b & (0x3F >> (len - 1));
    for (std::size_t k = 1; k < len && i + k < n; ++k) c = (c << 6) | (s[i + k] & 0x3F);
    if (!printable(c) || c == 0xFEFF) return code_point(c);
    i += len;
  }
  return {};
}

std::string read_scenario_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw FileError("cannot read scenario file '" + path + "': " + std::strerror(err), path, err);
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw FileError("cannot read scenario file '" + path + "': " + std::strerror(EISDIR), path, EISDIR);
  }
  std::string text;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw FileError("cannot read scenario file '" + path + "': " + std::strerror(err), path, err);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxScenarioBytes) {  // also stops /dev/zero and endless pipes
      ::close(fd);
      throw ScenarioError(SourceLocation{path, 0, 0}, "", "",
                          "scenario file larger than " + std::to_string(kMaxScenarioBytes >> 20) +
                              " MiB (the limit of a scenario file; is it the right file?)");
    }
  }
  ::close(fd);
  return text;
}

void check_scenario_text(const std::string& text, const std::string& name) {
  if (text.size() > kMaxScenarioBytes)
    throw ScenarioError(SourceLocation{name, 0, 0}, "", "",
                        "scenario text larger than " + std::to_string(kMaxScenarioBytes >> 20) + " MiB (" +
                            std::to_string(text.size()) + " bytes)");
  int line = 1, column = 1;
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char b = s[i];
    char32_t c = 0;
    std::size_t len = 1;
    if (b < 0x80) {
      c = b;
    } else {
      if (b >= 0xC2 && b <= 0xDF)
        len = 2, c = b & 0x1F;
      else if (b >= 0xE0 && b <= 0xEF)
        len = 3, c = b & 0x0F;
      else if (b >= 0xF0 && b <= 0xF4)
        len = 4, c = b & 0x07;
      else
        len = 0;
      bool ok = len > 0 && i + len <= n;
      for (std::size_t k = 1; ok && k < len; ++k) {
        ok = (s[i + k] & 0xC0) == 0x80;
        c = (c << 6) | (s[i + k] & 0x3F);
      }
      // Overlong forms, UTF-16 surrogates and code points beyond U+10FFFF are not UTF-8.
      if (ok &&
          ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)) || (c >= 0xD800 && c <= 0xDFFF)))
        ok = false;
      if (!ok)
        throw ScenarioError(SourceLocation{name, line, column}, "", "",
                            "invalid UTF-8 (byte " + hex_byte(b) + "); scenario files are UTF-8 text");
    }
    const bool bom = c == 0xFEFF && i == 0;
    if (!printable(c) && !bom)
      throw ScenarioError(
          SourceLocation{name, line, column}, "", "",
          "invalid character " + code_point(c) + " (a control character); scenario files are printable text");
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += len;
  }
}

}  // namespace aidcsim
