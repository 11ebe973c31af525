// The CPU prelude's __half and __nv_bfloat16 (kernels/labs/custom/prelude/cpu_cuda_fp16.h,
// cpu_cuda_bf16.h) against half_reference.hpp: every 16-bit pattern to float, every value and
// every midpoint between neighbours back, and a fresh random sample of float bit patterns (all
// exponents: subnormals, ties, overflow, inf, NaN), plus arithmetic rounded once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "custom_test_support.hpp"
#include "half_reference.hpp"

namespace cpu_prelude {
#include "labs/custom/prelude/cpu_half16.h"
#include "labs/custom/prelude/cpu_cuda_fp16.h"
#include "labs/custom/prelude/cpu_cuda_bf16.h"
}  // namespace cpu_prelude

namespace bs::custom {
namespace {

using namespace test;
using cpu_prelude::__half;
using cpu_prelude::__nv_bfloat16;

float f32(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The pattern a float must give: the reference value encoded by searching the format's patterns.
template <class Encode>
void check_rounding(const Format16& fmt, float x, Encode encode, std::uint16_t nan_bits) {
  const std::uint16_t got = encode(x);
  if (std::isnan(x)) {
    ASSERT_EQ(got, nan_bits) << "NaN bits " << std::hex << bits(x);
    return;
  }
  const double want = round_to(fmt, static_cast<double>(x));
  const double have = value_of(fmt, got);
  ASSERT_EQ(have, want) << "float bits 0x" << std::hex << bits(x) << " -> 0x" << got;
  ASSERT_EQ(std::signbit(have), std::signbit(want)) << std::hex << bits(x);
}

TEST(PreludeTypes, EveryFp16PatternConvertsToItsExactFloatAndBack) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const auto h = cpu_prelude::__ushort_as_half(static_cast<unsigned short>(b));
    const float f = cpu_prelude::__half2float(h);
    const double want = value_of(kFp16, static_cast<std::uint16_t>(b));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << b;
      ASSERT_EQ(cpu_prelude::__half_as_ushort(cpu_prelude::__float2half(f)), 0x7fffu) << "CUDA's canonical NaN";
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), want) << b;
    ASSERT_EQ(cpu_prelude::__half_as_ushort(cpu_prelude::__float2half_rn(f)), b) << "round trip of " << b;
  }
}

TEST(PreludeTypes, EveryBf16PatternConvertsToItsExactFloatAndBack) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const auto h = cpu_prelude::__ushort_as_bfloat16(static_cast<unsigned short>(b));
    const float f = cpu_prelude::__bfloat162float(h);
    const double want = value_of(kBf16, static_cast<std::uint16_t>(b));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << b;
      ASSERT_EQ(cpu_prelude::__bfloat16_as_ushort(cpu_prelude::__float2bfloat16(f)), 0x7fffu);
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), want) << b;
    ASSERT_EQ(cpu_prelude::__bfloat16_as_ushort(cpu_prelude::__float2bfloat16_rn(f)), b) << "round trip of " << b;
  }
}

TEST(PreludeTypes, MidpointsBetweenNeighboursRoundToTheEvenOne) {
  auto fp16 = [](float x) { return cpu_prelude::__half_as_ushort(cpu_prelude::__float2half(x)); };
  auto bf16 = [](float x) { return cpu_prelude::__bfloat16_as_ushort(cpu_prelude::__float2bfloat16(x)); };
  int ties = 0;
  for (std::uint32_t b = 0; b < 0x7c00; ++b) {  // positive finite FP16, and the step to the next (or inf)
    const double lo = value_of(kFp16, static_cast<std::uint16_t>(b));
    const double hi = b + 1 == 0x7c00 ? 65536.0 : value_of(kFp16, static_cast<std::uint16_t>(b + 1));
    const float mid = static_cast<float>((lo + hi) / 2);  // 12 significant bits: exact in float
    ASSERT_EQ(static_cast<double>(mid), (lo + hi) / 2);
    const std::uint16_t even = (b % 2 == 0) ? static_cast<std::uint16_t>(b) : static_cast<std::uint16_t>(b + 1);
    ASSERT_EQ(fp16(mid), even) << "tie between 0x" << std::hex << b << " and the next";
    ASSERT_EQ(fp16(-mid), even | 0x8000) << std::hex << b;
    check_rounding(kFp16, std::nextafter(mid, 0.0f), fp16, 0x7fff);
    check_rounding(kFp16, std::nextafter(mid, 1e30f), fp16, 0x7fff);
    ++ties;
  }
  for (std::uint32_t b = 0; b < 0x7f80; ++b) {  // positive finite BF16
    const float lo = f32(b << 16), hi = f32((b + 1) << 16);
    const float mid = f32((b << 16) | 0x8000);
    ASSERT_EQ(static_cast<double>(mid), (static_cast<double>(lo) + (b + 1 == 0x7f80 ? 0x1p128 : hi)) / 2);
    const std::uint16_t even = (b % 2 == 0) ? static_cast<std::uint16_t>(b) : static_cast<std::uint16_t>(b + 1);
    ASSERT_EQ(bf16(mid), even) << std::hex << b;
    check_rounding(kBf16, std::nextafter(mid, 0.0f), bf16, 0x7fff);
    ++ties;
  }
  EXPECT_EQ(ties, 0x7c00 + 0x7f80);
}

TEST(PreludeTypes, FreshRandomFloatsRoundAsTheReferenceSays) {
  std::mt19937 rng(fresh_seed());
  auto fp16 = [](float x) { return cpu_prelude::__half_as_ushort(cpu_prelude::__float2half_rn(x)); };
  auto bf16 = [](float x) { return cpu_prelude::__bfloat16_as_ushort(cpu_prelude::__float2bfloat16_rn(x)); };
  std::uniform_int_distribution<std::uint32_t> any;
  for (int i = 0; i < 400000; ++i) {
    const float x = f32(any(rng));  // every exponent: subnormals, huge, inf, NaN
    check_rounding(kBf16, x, bf16, 0x7fff);
    check_rounding(kFp16, x, fp16, 0x7fff);
    // FP16's own range (where its rounding is interesting), more densely.
    const float y = f32((any(rng) & 0x80000000u) | (0x30000000u + any(rng) % 0x18000000u));
    check_rounding(kFp16, y, fp16, 0x7fff);
  }
  for (float special : {0.0f, -0.0f, INFINITY, -INFINITY, 65504.0f, 65519.99f, 65520.0f, 5.96e-8f, 2.98e-8f, 2.99e-8f})
    check_rounding(kFp16, special, fp16, 0x7fff);
}

// CI found it under ASan (one random triple in ~10^6): __hfma rounded a * b + c to float first,
// then to 16 bits. Cases built so that the float rounding lands on a 16-bit midpoint, where the
// second rounding then goes to the even neighbour: each against the exact value rounded once.
TEST(PreludeTypes, FusedAndDoubleResultsAreRoundedOnceEvenNextToAMidpoint) {
  using cpu_prelude::__float2bfloat16;
  using cpu_prelude::__float2half;
  // FP16: (1/16)(1 + 2^-10) (1 - 2^-10) + 145.125 = 145.1875 - 2^-24: below the midpoint of
  // 145.125 and 145.25 by less than float keeps at that size.
  const __half a = __float2half(0.0625f + 0x1p-14f), b = __float2half(1.0f - 0x1p-10f), c = __float2half(145.125f);
  const double exact = 145.1875 - 0x1p-24;
  ASSERT_EQ(
      static_cast<double>(cpu_prelude::__half2float(a)) * cpu_prelude::__half2float(b) + cpu_prelude::__half2float(c),
      exact);
  EXPECT_EQ(cpu_prelude::__half2float(cpu_prelude::__hfma(a, b, c)), 145.125f);
  EXPECT_EQ(round_to(kFp16, exact), 145.125);
  EXPECT_EQ(cpu_prelude::__half2float(cpu_prelude::__double2half(exact)), 145.125f);
  EXPECT_EQ(cpu_prelude::__half2float(__half(exact)), 145.125f);
  EXPECT_EQ(cpu_prelude::__half2float(cpu_prelude::__double2half(145.1875 + 0x1p-30)), 145.25f);
  // BF16: 17 * 8.5 + 2^-40 = 144.5 + 2^-40, just above the midpoint of 144 and 145.
  const __nv_bfloat16 x = __float2bfloat16(17.0f), y = __float2bfloat16(8.5f), z = __float2bfloat16(0x1p-40f);
  EXPECT_EQ(cpu_prelude::__bfloat162float(cpu_prelude::__hfma(x, y, z)), 145.0f);
  EXPECT_EQ(round_to(kBf16, 144.5 + 0x1p-40), 145.0);
  EXPECT_EQ(cpu_prelude::__bfloat162float(cpu_prelude::__double2bfloat16(144.5 + 0x1p-40)), 145.0f);
  EXPECT_EQ(cpu_prelude::__bfloat162float(cpu_prelude::__double2bfloat16(144.5 - 0x1p-40)), 144.0f);
  // And the same with the signs flipped.
  EXPECT_EQ(cpu_prelude::__half2float(cpu_prelude::__hfma(cpu_prelude::__hneg(a), b, cpu_prelude::__hneg(c))),
            -145.125f);
  EXPECT_EQ(cpu_prelude::__bfloat162float(cpu_prelude::__hfma(cpu_prelude::__hneg(x), y, cpu_prelude::__hneg(z))),
            -145.0f);
}

TEST(PreludeTypes, ArithmeticIsTheExactResultRoundedOnce) {
  std::mt19937 rng(fresh_seed());
  std::uniform_real_distribution<float> u(-300.0f, 300.0f);
  for (int i = 0; i < 100000; ++i) {
    const __half a = cpu_prelude::__float2half(u(rng)), b = cpu_prelude::__float2half(u(rng)),
                 c = cpu_prelude::__float2half(u(rng));
    const double da = cpu_prelude::__half2float(a), db = cpu_prelude::__half2float(b),
                 dc = cpu_prelude::__half2float(c);
    ASSERT_EQ(static_cast<double>(cpu_prelude::__half2float(cpu_prelude::__hadd(a, b))), round_to(kFp16, da + db));
    ASSERT_EQ(static_cast<double>(cpu_prelude::__half2float(a * b)), round_to(kFp16, da * db));
    ASSERT_EQ(static_cast<double>(cpu_prelude::__half2float(cpu_prelude::__hfma(a, b, c))),
              round_to(kFp16, da * db + dc));
    ASSERT_EQ(cpu_prelude::__hlt(a, b), da < db);
    const __nv_bfloat16 x = cpu_prelude::__float2bfloat16(u(rng)), y = cpu_prelude::__float2bfloat16(u(rng));
    const double dx = cpu_prelude::__bfloat162float(x), dy = cpu_prelude::__bfloat162float(y);
    ASSERT_EQ(static_cast<double>(cpu_prelude::__bfloat162float(x + y)), round_to(kBf16, dx + dy));
    ASSERT_EQ(static_cast<double>(cpu_prelude::__bfloat162float(cpu_prelude::__hmul(x, y))), round_to(kBf16, dx * dy));
    const __nv_bfloat16 w = cpu_prelude::__float2bfloat16(u(rng));
    ASSERT_EQ(static_cast<double>(cpu_prelude::__bfloat162float(cpu_prelude::__hfma(x, y, w))),
              round_to(kBf16, dx * dy + static_cast<double>(cpu_prelude::__bfloat162float(w))));
    ASSERT_EQ(x > y, dx > dy);
  }
  // __half2: lanes apart; __low2float / __high2float read them back.
  const auto h2 = cpu_prelude::__floats2half2_rn(1.0f / 3.0f, -2.5f);
  EXPECT_EQ(static_cast<double>(cpu_prelude::__low2float(h2)), round_to(kFp16, 1.0f / 3.0f));
  EXPECT_EQ(cpu_prelude::__high2float(h2), -2.5f);
  EXPECT_EQ(cpu_prelude::__half_as_ushort(cpu_prelude::__habs(cpu_prelude::__float2half(-2.0f))), 0x4000u);
}

}  // namespace
}  // namespace bs::custom
