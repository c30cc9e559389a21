#pragma once
// Bounds on what a scenario reader accepts before any YAML is parsed or walked, so that no input
// (a device such as /dev/zero, a binary file, a deeply nested or alias-expanded document) can make
// a reader run out of memory, recurse without end or write bytes a results file cannot hold.
// The same numbers bound the Python readers (python/aidcsim/limits.py; a test checks they agree).
#include <cstddef>
#include <string>

namespace aidcsim {

/// Largest scenario text, in bytes (the bundled scenarios are ~4 KB; 10,000 failure entries
/// fit in ~0.5 MB).
inline constexpr std::size_t kMaxScenarioBytes = 1u << 20;
/// Deepest nesting of YAML collections (the schema's deepest key, cooling.faults[].x, is 3 deep).
inline constexpr int kMaxNestingDepth = 32;
/// Most YAML nodes in a document once aliases are expanded (each alias counts as the nodes it
/// stands for), and most items of one list.
inline constexpr std::size_t kMaxNodes = 100000;
inline constexpr std::size_t kMaxListItems = 10000;
/// Largest seed (scenario `seed`, `run --seed`, Python `seed=`): 2^53 - 1, so that every seed is
/// stored exactly in results files and JSON numbers.
inline constexpr long long kMaxSeed = (1LL << 53) - 1;

/// Reads a scenario file, at most kMaxScenarioBytes: a larger file (or an endless device) is a
/// ScenarioError at the file ("a scenario file of at most 1 MiB"), a directory or a file that
/// cannot be opened or read is an aidcsim::FileError naming the path and the reason. Reads pipes and
/// character devices too (process substitution, /dev/stdin), within the same limit.
std::string read_scenario_file(const std::string& path);

/// Checks that `text` is a YAML character stream that results files can hold: valid UTF-8 (no
/// overlong forms, surrogates or code points above U+10FFFF), only printable characters (YAML 1.2
/// §5.1: tab, line feed, carriage return, U+0020..U+007E, U+0085, U+00A0..U+D7FF, U+E000..U+FFFD
/// except a leading byte order mark, U+10000..U+10FFFF), at most kMaxScenarioBytes. Throws
/// ScenarioError at the 1-based line and column (in characters) of the first offending byte,
/// naming it ("byte 0xE9", "character U+0007"). `name` is the file name in the message.
void check_scenario_text(const std::string& text, const std::string& name);

/// The first character of `value` (a YAML scalar after its escapes are decoded, UTF-8) that
/// check_scenario_text would refuse in the file itself, as "U+0000", or "" when there is none. A
/// double-quoted escape ("\\0", "\\x07", "\\e") writes a control character the raw text cannot
/// hold; a NUL truncated the HDF5 string attribute ("a\\0b" stored as "a") and an ESC reached the
/// terminal through the summary (case input/03's kind).
std::string unprintable_in(const std::string& value);

}  // namespace aidcsim
