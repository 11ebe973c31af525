#include "labs/custom/verify.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "labs/matmul/matmul.hpp"

namespace bs::custom {

void split_thread_id(unsigned long long id, Dim3 grid, Dim3 block, Dim3& b, Dim3& t) {
  const unsigned long long tpb = block.volume();
  const unsigned long long lb = id / tpb, lt = id % tpb;
  b = Dim3{static_cast<unsigned>(lb % grid.x), static_cast<unsigned>((lb / grid.x) % grid.y),
           static_cast<unsigned>(lb / (static_cast<unsigned long long>(grid.x) * grid.y))};
  t = Dim3{static_cast<unsigned>(lt % block.x), static_cast<unsigned>((lt / block.x) % block.y),
           static_cast<unsigned>(lt / (static_cast<unsigned long long>(block.x) * block.y))};
}

namespace {

void add_wrong(Verdict& v, long long e, long long width, double got, double want,
               const OwnerMap* owners, Dim3 grid, Dim3 block) {
  Check::Bad bad{e % width, e / width, got, want};
  if (v.check.first_bad.size() < Check::kMaxBad) v.check.first_bad.push_back(bad);
  if (v.wrong.size() >= Check::kMaxBad) return;
  WrongElement w;
  w.x = bad.x;
  w.y = bad.y;
  w.got = got;
  w.want = want;
  if (owners && static_cast<std::size_t>(e) < owners->thread.size()) {
    w.owner_known = true;
    const std::uint32_t id = owners->thread[static_cast<std::size_t>(e)];
    w.written = id != OwnerMap::kNobody;
    if (w.written) {
      w.thread_id = id;
      split_thread_id(id, grid, block, w.block, w.thread);
    }
  }
  v.wrong.push_back(w);
}

}  // namespace

Verdict verify_output(const Problem::Data& p, const std::uint8_t* out, const OwnerMap* owners,
                      Dim3 grid, Dim3 block) {
  Verdict v;
  Check& c = v.check;
  const long long width = p.shape.w;
  if (p.lab == "gray") {
    const std::vector<std::uint8_t>& ref = p.gray_reference();
    c.against = "double-precision CPU reference";
    c.measure = "max |out - ref| (grey levels)";
    c.limit = 1;
    for (std::size_t e = 0; e < ref.size(); ++e) {
      const int d = std::abs(static_cast<int>(out[e]) - static_cast<int>(ref[e]));
      c.worst = std::max(c.worst, static_cast<double>(d));
      if (d > 1) {
        ++c.mismatches;
        add_wrong(v, static_cast<long long>(e), width, out[e], ref[e], owners, grid, block);
      }
    }
    c.checked = ref.size();
  } else {
    const auto& ref = p.matmul_reference();
    const int h = static_cast<int>(p.shape.h), w = static_cast<int>(p.shape.w);
    std::vector<float> got(static_cast<std::size_t>(h) * w);
    std::memcpy(got.data(), out, got.size() * sizeof(float));
    const matmul::Verification mv = matmul::verify(got.data(), ref.c.data(), h, w, ref.scale);
    c.against = "CPU reference (double accumulation)";
    c.measure = "worst |out - ref| / tolerance";
    c.limit = 1;
    c.worst = mv.max_tolerance_ratio;
    c.checked = mv.checked;
    c.mismatches = mv.mismatches;
    c.note = mv.tolerance;
    if (mv.mismatches > 0) {
      // The same per-element rule as matmul::verify, to list the first few.
      const double per_unit = matmul::tolerance_per_unit(ref.scale);
      for (int i = 0; i < h && v.wrong.size() < Check::kMaxBad; ++i)
        for (int j = 0; j < w && v.wrong.size() < Check::kMaxBad; ++j) {
          const std::size_t e = static_cast<std::size_t>(i) * w + j;
          const double tol = per_unit * ref.scale.a_row_norms[i] * ref.scale.b_col_norms[j] +
                             matmul::kToleranceFloor;
          if (!(std::fabs(static_cast<double>(got[e]) - ref.c[e]) <= tol))
            add_wrong(v, static_cast<long long>(e), w, got[e], ref.c[e], owners, grid, block);
        }
    }
  }
  c.state = c.mismatches == 0 && c.checked > 0 ? Check::State::Passed : Check::State::Failed;
  return v;
}

}  // namespace bs::custom
