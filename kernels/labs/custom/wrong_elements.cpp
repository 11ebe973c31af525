#include "labs/custom/wrong_elements.hpp"

namespace bs::custom {

void split_thread_id(unsigned long long id, Dim3 grid, Dim3 block, Dim3& b, Dim3& t) {
  const unsigned long long tpb = block.volume();
  const unsigned long long lb = id / tpb, lt = id % tpb;
  b = Dim3{static_cast<unsigned>(lb % grid.x), static_cast<unsigned>((lb / grid.x) % grid.y),
           static_cast<unsigned>(lb / (static_cast<unsigned long long>(grid.x) * grid.y))};
  t = Dim3{static_cast<unsigned>(lt % block.x), static_cast<unsigned>((lt / block.x) % block.y),
           static_cast<unsigned>(lt / (static_cast<unsigned long long>(block.x) * block.y))};
}

std::vector<WrongElement> wrong_elements(const Check& check, const OwnerMap* owners, Dim3 grid, Dim3 block) {
  std::vector<WrongElement> out;
  for (const Check::Bad& bad : check.first_bad) {
    WrongElement w;
    w.x = bad.x;
    w.y = bad.y;
    w.got = bad.got;
    w.want = bad.want;
    if (owners && bad.x >= 0 && bad.y >= 0 && bad.x < owners->width && bad.y < owners->height) {
      w.owner_known = true;
      const std::uint32_t id = owners->thread[static_cast<std::size_t>(bad.y * owners->width + bad.x)];
      w.written = id != OwnerMap::kNobody;
      if (w.written) {
        w.thread_id = id;
        split_thread_id(id, grid, block, w.block, w.thread);
      }
    }
    out.push_back(w);
  }
  return out;
}

}  // namespace bs::custom
