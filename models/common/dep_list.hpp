#pragma once
// A list of activity indices (an Activity's dependencies) in 8 bytes: empty, one index in place,
// or a pointer to a heap block. A 31K-GPU step holds ~500K activities; almost all wait for exactly
// one other (a DP collective's transfer for the previous one), a handful for tens of thousands (the
// optimizer step). std::vector<int> spent 24 B of header per list (three lists per activity) plus
// one heap allocation per non-empty list: ~40 MB of a 31K schedule, all of it first-touch page
// faults. Reads like a std::vector<int> (contiguous ints, begin/end/size/empty/[]), so code that
// iterates an Activity's lists is unchanged.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <vector>

namespace aidcsim::network {

class DepList {
 public:
  using value_type = int;
  using size_type = std::size_t;
  using iterator = int*;
  using const_iterator = const int*;

  DepList() noexcept = default;
  DepList(std::initializer_list<int> l) { append(l.begin(), l.end()); }
  // Implicit: a schedule builder assigns its std::vector<int> of dependencies (a collective's
  // `after`) to an Activity's list.
  DepList(const std::vector<int>& v) { append(v.begin(), v.end()); }  // NOLINT(google-explicit-constructor)
  template <class It>
  DepList(It first, It last) {
    append(first, last);
  }
  DepList(const DepList& o) { append(o.begin(), o.end()); }
  DepList(DepList&& o) noexcept {
    std::memcpy(w_, o.w_, sizeof w_);
    o.w_[0] = o.w_[1] = 0;
  }
  DepList& operator=(const DepList& o) {
    if (this != &o) {
      clear();
      append(o.begin(), o.end());
    }
    return *this;
  }
  DepList& operator=(DepList&& o) noexcept {
    if (this != &o) {
      release();
      std::memcpy(w_, o.w_, sizeof w_);
      o.w_[0] = o.w_[1] = 0;
    }
    return *this;
  }
  DepList& operator=(std::initializer_list<int> l) {
    clear();
    append(l.begin(), l.end());
    return *this;
  }
  DepList& operator=(const std::vector<int>& v) {
    clear();
    append(v.begin(), v.end());
    return *this;
  }
  ~DepList() { release(); }

  std::size_t size() const {
    if (w_[0] & 1) return 1;
    const int* b = block();
    return b ? static_cast<std::size_t>(b[0]) : 0;
  }
  bool empty() const { return size() == 0; }
  std::size_t capacity() const {
    const int* b = block();
    return b ? static_cast<std::size_t>(b[1]) : 1;
  }
  int* data() {
    int* b = block();
    return b ? b + 2 : &w_[1];
  }
  const int* data() const {
    const int* b = block();
    return b ? b + 2 : &w_[1];
  }
  int* begin() { return data(); }
  int* end() { return data() + size(); }
  const int* begin() const { return data(); }
  const int* end() const { return data() + size(); }
  int& operator[](std::size_t i) { return data()[i]; }
  int operator[](std::size_t i) const { return data()[i]; }
  int front() const { return data()[0]; }
  int back() const { return data()[size() - 1]; }

  void reserve(std::size_t n) {
    if (n > capacity()) grow(n);
  }
  void push_back(int v) {
    const std::size_t n = size();
    if (n == 0 && !block()) {
      w_[0] = 1;
      w_[1] = v;
      return;
    }
    int* b = n == capacity() ? grow(std::max<std::size_t>(2, 2 * n)) : block();
    b[2 + n] = v;
    b[0] = static_cast<int>(n + 1);
  }
  /// Inserts [first, last) before `pos` (any position, as std::vector::insert).
  template <class It>
  void insert(const int* pos, It first, It last) {
    const std::size_t at = static_cast<std::size_t>(pos - data()), n = size();
    const auto k = static_cast<std::size_t>(std::distance(first, last));
    if (k == 0) return;
    if (at == n) {
      append(first, last);
      return;
    }
    std::vector<int> tail(begin() + at, end());
    resize_down(at);
    append(first, last);
    append(tail.begin(), tail.end());
  }
  /// Empties the list; a heap block keeps its capacity (as std::vector::clear).
  void clear() { resize_down(0); }

  friend bool operator==(const DepList& a, const DepList& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const DepList& a, const std::vector<int>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static_assert(std::endian::native == std::endian::little && sizeof(int*) == 8 && sizeof(int) == 4,
                "DepList's tag lies in the low half of a heap pointer");
  // w_[0] odd: one index in place, w_[1]. Else w_ holds a heap pointer (null: empty), at least
  // 4-aligned so its low bit is 0, to a block {size, capacity, indices...}.
  alignas(8) int w_[2] = {0, 0};

  int* block() const {
    if (w_[0] & 1) return nullptr;
    int* b;
    std::memcpy(&b, w_, sizeof b);
    return b;
  }
  void set_block(int* b) { std::memcpy(w_, &b, sizeof b); }
  void release() {
    if (int* b = block()) ::operator delete(b);
    w_[0] = w_[1] = 0;
  }
  int* grow(std::size_t cap) {
    const std::size_t n = size();
    int* b = static_cast<int*>(::operator new((2 + cap) * sizeof(int)));
    b[0] = static_cast<int>(n);
    b[1] = static_cast<int>(cap);
    if (n) std::memcpy(b + 2, data(), n * sizeof(int));
    release();
    set_block(b);
    return b;
  }
  void resize_down(std::size_t n) {
    if (int* b = block())
      b[0] = static_cast<int>(n);
    else if (n == 0)
      w_[0] = w_[1] = 0;
  }
  template <class It>
  void append(It first, It last) {
    const auto k = static_cast<std::size_t>(std::distance(first, last));
    if (k == 0) return;
    const std::size_t n = size();
    if (n == 0 && k == 1 && !block()) {
      push_back(*first);
      return;
    }
    int* b = n + k > capacity() || !block() ? grow(std::max(n + k, 2 * n)) : block();
    int* out = b + 2 + n;
    for (; first != last; ++first) *out++ = *first;
    b[0] = static_cast<int>(n + k);
  }
};
static_assert(sizeof(DepList) == 8);

}  // namespace aidcsim::network
