// The huge-page allocator of the fluid run's large arrays (models/network/huge_pages.hpp): large
// blocks 2 MiB-aligned and whole, small ones as std::allocator's, contents kept as vectors grow.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/network/huge_pages.hpp"

using namespace aidcsim;

TEST_CASE("huge-page allocator: block sizes", "[huge_pages]") {
  CHECK(network::huge_block_bytes(100) == 100);
  CHECK(network::huge_block_bytes(network::kHugePageBytes - 1) == network::kHugePageBytes - 1);
  CHECK(network::huge_block_bytes(network::kHugePageBytes) == network::kHugePageBytes);
  CHECK(network::huge_block_bytes(network::kHugePageBytes + 1) == 2 * network::kHugePageBytes);
  CHECK(network::huge_block_bytes(5 * network::kHugePageBytes - 7) == 5 * network::kHugePageBytes);
}

TEST_CASE("huge-page allocator: vectors keep their contents, large blocks aligned", "[huge_pages]") {
  struct alignas(64) Line {
    double v[8];
  };
  std::vector<Line, network::HugePageAllocator<Line>> lines(3);  // small: std::allocator
  CHECK(reinterpret_cast<std::uintptr_t>(lines.data()) % alignof(Line) == 0);
  const std::size_t big = 3 * network::kHugePageBytes / sizeof(Line) + 5;  // 3 huge pages and a bit
  for (std::size_t i = 0; lines.size() < big; ++i) lines.push_back(Line{{double(i), 0, 0, 0, 0, 0, 0, -double(i)}});
  REQUIRE(lines.size() == big);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  CHECK(reinterpret_cast<std::uintptr_t>(lines.data()) % network::kHugePageBytes == 0);
#endif
  bool same = true;
  for (std::size_t i = 3; i < big; ++i)
    same = same && lines[i].v[0] == double(i - 3) && lines[i].v[7] == -double(i - 3);
  CHECK(same);
  // Value-initialised large blocks read as zero; every byte of the block is writable.
  std::vector<int, network::HugePageAllocator<int>> zeros(network::kHugePageBytes / sizeof(int) * 2 + 1);
  bool zero = true;
  for (int z : zeros) zero = zero && z == 0;
  CHECK(zero);
  zeros.back() = 7;
  zeros.front() = 9;
  CHECK(zeros.back() + zeros.front() == 16);
  std::vector<int, network::HugePageAllocator<int>> copy = zeros;
  CHECK(copy == zeros);
  lines.clear();
  lines.shrink_to_fit();
  CHECK(lines.capacity() == 0);
}
