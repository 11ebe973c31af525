#include "mapping/shared_banks.hpp"

#include <algorithm>
#include <set>

namespace bs::mapping {

BankRequest bank_request(const std::vector<long long>& lane_offset, unsigned bytes) {
  BankRequest out;
  out.phases = bytes > 8 ? 4 : bytes > 4 ? 2 : 1;
  out.lanes_per_phase = 32 / out.phases;
  for (unsigned p = 0; p < out.phases; ++p) {
    // Per bank, the distinct words in first-touch order, each with its lanes.
    std::array<std::vector<BankCell>, kBanks> banks;
    std::set<long long> distinct;
    bool any = false;
    for (unsigned lane = p * out.lanes_per_phase; lane < (p + 1) * out.lanes_per_phase; ++lane) {
      if (lane >= lane_offset.size() || lane_offset[lane] < 0) continue;
      any = true;
      ++out.active_lanes;
      const long long first = lane_offset[lane] / kBankBytes;
      const long long last = (lane_offset[lane] + std::max(1u, bytes) - 1) / kBankBytes;
      for (long long w = first; w <= last; ++w) {
        distinct.insert(w);
        auto& cells = banks[static_cast<unsigned>(w % kBanks)];
        auto it = std::find_if(cells.begin(), cells.end(), [&](const BankCell& c) { return c.word == w; });
        if (it == cells.end()) cells.push_back(BankCell{w, {lane}});
        else if (it->lanes.back() != lane) it->lanes.push_back(lane);
      }
    }
    if (!any) continue;
    std::size_t depth = 0;
    for (const auto& cells : banks) depth = std::max(depth, cells.size());
    for (std::size_t w = 0; w < depth; ++w) {
      std::array<BankCell, kBanks> row;
      for (unsigned b = 0; b < kBanks; ++b)
        if (w < banks[b].size()) row[b] = banks[b][w];
      out.rows.push_back(std::move(row));
      out.phase_of_row.push_back(p);
    }
    out.wavefronts += static_cast<unsigned>(depth);
    out.ideal_wavefronts += static_cast<unsigned>((distinct.size() + kBanks - 1) / kBanks);
  }
  return out;
}

void SharedTotals::add(const SharedRequest& r) {
  const BankRequest b = bank_request(r);
  if (b.active_lanes == 0) return;
  switch (r.op) {
    case SharedOp::Load:
    case SharedOp::LdMatrix: ld_requests += 1, ld_wavefronts += b.wavefronts, ld_ideal += b.ideal_wavefronts; break;
    case SharedOp::Store: st_requests += 1, st_wavefronts += b.wavefronts, st_ideal += b.ideal_wavefronts; break;
    case SharedOp::AsyncCopy:
      async_requests += 1, async_wavefronts += b.wavefronts, async_ideal += b.ideal_wavefronts;
      break;
  }
}

void SharedTotals::scale(double f) {
  for (double* v : {&ld_requests, &ld_wavefronts, &ld_ideal, &st_requests, &st_wavefronts, &st_ideal, &async_requests,
                    &async_wavefronts, &async_ideal})
    *v *= f;
}

}  // namespace bs::mapping
