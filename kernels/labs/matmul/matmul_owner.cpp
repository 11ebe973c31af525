#include "labs/matmul/matmul_owner.hpp"

namespace bs::matmul {

Result<ElementOwner> element_owner(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int row, int col,
                                   const LaunchConfig* lc) {
  if (row < 0 || col < 0 || row >= M || col >= N)
    return Status::failure("C[" + std::to_string(row) + "][" + std::to_string(col) + "] is outside the " +
                               std::to_string(M) + " x " + std::to_string(N) + " result",
                           "", "element_owner");
  Result<ElementOwner> o = Status::failure("unknown kernel", "", "element_owner");
  with_rung(kernel, [&]<class R>() {
    if constexpr (requires { R::persistent_owner(config, *lc, M, N, row, col); }) {
      if (!lc) {
        o = Status::failure("a persistent rung's owners depend on the launch's grid", "", "element_owner");
        return;
      }
      o = R::persistent_owner(config, *lc, M, N, row, col);
    } else {
      o = R::owner(config, row, col);
    }
  });
  return o;
}

}  // namespace bs::matmul
