// "8192x8192", "4096x4096x4096", "4096": the one spelling of sizes and shapes that the command
// line, bench, sweep lists and labs read. Parts are positive integers separated by 'x'.
#pragma once
#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

namespace bs::lab {

inline std::optional<std::vector<long long>> parse_dims(std::string_view text, std::size_t min_parts,
                                                        std::size_t max_parts, long long max_value = 1'000'000'000) {
  std::vector<long long> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = text.find('x', start);
    const std::string_view part = text.substr(start, x == std::string_view::npos ? text.npos : x - start);
    long long v = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || p != part.data() + part.size() || v < 0 || v > max_value)
      return std::nullopt;
    out.push_back(v);
    if (x == std::string_view::npos) break;
    start = x + 1;
  }
  if (out.size() < min_parts || out.size() > max_parts) return std::nullopt;
  return out;
}

}  // namespace bs::lab
