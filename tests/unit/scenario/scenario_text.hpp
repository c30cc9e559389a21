#pragma once
// Test helpers: the default scenario with one line replaced, and where a key sits in a text.
#include <stdexcept>
#include <string>

#include "sim/scenario/default_scenario.hpp"

namespace aidcsim::test {

/// The default scenario text with the one line containing `needle` replaced by `replacement`
/// (which may hold several lines, or be empty to delete the line). Throws if `needle` is not on
/// exactly one line.
inline std::string default_with(const std::string& needle, const std::string& replacement) {
  std::string text = default_scenario_text();
  const auto at = text.find(needle);
  if (at == std::string::npos || text.find(needle, at + 1) != std::string::npos)
    throw std::logic_error("needle not unique in default scenario: " + needle);
  const auto begin = text.rfind('\n', at) + 1;  // npos + 1 == 0 on the first line
  auto end = text.find('\n', at);
  if (end == std::string::npos) end = text.size();
  if (replacement.empty() && end < text.size()) ++end;
  text.replace(begin, end - begin, replacement);
  return text;
}

/// `text` with the line holding the first `needle` turned into a YAML comment.
inline std::string comment_out(std::string text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) throw std::logic_error("needle not found: " + needle);
  const auto begin = at == 0 ? 0 : text.rfind('\n', at - 1) + 1;
  text.insert(text.begin() + static_cast<std::ptrdiff_t>(begin), '#');
  return text;
}

/// 1-based line of the first occurrence of `needle` in `text` (0 if absent).
inline int line_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) return 0;
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

/// 1-based column of the first occurrence of `needle` in `text` (0 if absent).
inline int column_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) return 0;
  const auto begin = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
  return static_cast<int>(at - (begin == std::string::npos ? 0 : begin + 1)) + 1;
}

}  // namespace aidcsim::test
