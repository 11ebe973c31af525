// Host memory for a lab's problem, made fast: HostVector, a std::vector whose resize leaves the
// elements uninitialised (so the workers that fill it touch its pages first, in parallel, instead
// of one thread zero-filling them) and whose data is 256-byte aligned as cudaMalloc aligns; and
// splitmix64, a counter-based generator whose i-th word any worker makes alone, seeded fresh each
// run by fresh_seed().
#pragma once
#include <cstddef>
#include <cstdint>
#include <new>
#include <random>
#include <utility>
#include <vector>

namespace bs {

template <class T>
struct HostAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{256};
  HostAllocator() = default;
  template <class U>
  HostAllocator(const HostAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, kAlign); }
  template <class U>
  void construct(U* p) noexcept {  // default-initialised: no zero-fill
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const HostAllocator<U>&) const noexcept {
    return true;
  }
};
template <class T>
using HostVector = std::vector<T, HostAllocator<T>>;

// Word i of the SplitMix64 stream that `seed` starts: splitmix64(seed + i * kSplitMixGamma).
inline constexpr std::uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ull;
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += kSplitMixGamma;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// 64 fresh bits from the system's entropy: never time or check on the same data twice.
inline std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace bs
