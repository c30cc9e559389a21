#pragma once
// An allocator for the large arrays the fluid run reads in random order (fluid_waves.cpp: a
// 32K-GPU halving / doubling keeps 63 MB of activities and 33 MB of link directions): blocks of
// at least kHugePageBytes are mapped 2 MiB-aligned and marked MADV_HUGEPAGE, so that one TLB
// entry covers 2 MiB, not 4 KiB (with 4 KiB pages nearly every random access to such an array
// also misses the TLB and walks the page tables; Linux, Documentation/admin-guide/mm/transhuge.rst:
// with `enabled` = madvise, only madvised ranges get huge pages). Elsewhere, or for small blocks,
// std::allocator. Only where memory goes: the arrays' contents and results stay the same.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace aidcsim::network {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// Bytes actually mapped for a block of `bytes` (rounded up to whole huge pages when huge).
constexpr std::size_t huge_block_bytes(std::size_t bytes) {
  return bytes < kHugePageBytes ? bytes : (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  /// Storage for n T (n * sizeof(T) >= kHugePageBytes: a fresh 2 MiB-aligned anonymous mapping,
  /// zero-filled by the kernel). Throws std::bad_alloc when it cannot be had.
  T* allocate(std::size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (n > max_size()) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    if (bytes >= kHugePageBytes) {
      const std::size_t size = huge_block_bytes(bytes);
      // Over-map by one huge page, keep the aligned part, unmap the rest.
      void* raw = mmap(nullptr, size + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (raw == MAP_FAILED) throw std::bad_alloc();
      const auto base = reinterpret_cast<std::uintptr_t>(raw);
      const std::uintptr_t aligned = (base + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
      if (aligned > base) munmap(raw, aligned - base);
      if (const std::size_t tail = base + size + kHugePageBytes - (aligned + size); tail > 0)
        munmap(reinterpret_cast<void*>(aligned + size), tail);
      madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);  // advice only: 4 KiB pages if refused
      return reinterpret_cast<T*>(aligned);
    }
#endif
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (n * sizeof(T) >= kHugePageBytes) {
      munmap(p, huge_block_bytes(n * sizeof(T)));
      return;
    }
#endif
    std::allocator<T>().deallocate(p, n);
  }
  static constexpr std::size_t max_size() noexcept { return (std::size_t(-1) / 2) / sizeof(T); }

  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const noexcept {
    return false;
  }
};

}  // namespace aidcsim::network
