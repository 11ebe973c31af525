// Reference 16-bit float roundings for the tests, written independently of the CPU prelude's
// (which works on bit fields): here in double, by scaling to units of the target's last place
// and rounding with nearbyint (ties to even in the default rounding mode).
#pragma once
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace bs::custom::test {

struct Format16 {
  int mantissa_bits;  // stored: 10 (FP16), 7 (BF16)
  int min_exponent;   // of the smallest normal: -14, -126
  double overflow;    // the first value that is not finite: 65536, 2^128
};
inline constexpr Format16 kFp16{10, -14, 65536.0};
inline constexpr Format16 kBf16{7, -126, 0x1p128};

// The value a float rounds to (to nearest, ties to even): +-inf past the largest finite.
inline double round_to(const Format16& f, double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  if (a == 0) return x;
  int e = static_cast<int>(std::floor(std::log2(a)));
  if (std::ldexp(1.0, e) > a) --e;  // log2 rounding at powers of two
  if (std::ldexp(1.0, e + 1) <= a) ++e;
  if (e < f.min_exponent) e = f.min_exponent;
  const double ulp = std::ldexp(1.0, e - f.mantissa_bits);
  const double r = std::nearbyint(a / ulp) * ulp;
  const double v = r >= f.overflow ? std::numeric_limits<double>::infinity() : r;
  return std::signbit(x) ? -v : v;
}

// The value of a 16-bit pattern (sign, exponent, mantissa fields of the format).
inline double value_of(const Format16& f, std::uint16_t bits) {
  const int exp_bits = 15 - f.mantissa_bits, bias = (1 << (exp_bits - 1)) - 1;
  const int e = (bits >> f.mantissa_bits) & ((1 << exp_bits) - 1);
  const int m = bits & ((1 << f.mantissa_bits) - 1);
  double v;
  if (e == (1 << exp_bits) - 1)
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (e == 0) v = std::ldexp(m, 1 - bias - f.mantissa_bits);
  else v = std::ldexp((1 << f.mantissa_bits) + m, e - bias - f.mantissa_bits);
  return (bits & 0x8000) ? -v : v;
}

}  // namespace bs::custom::test
