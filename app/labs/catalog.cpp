#include "labs/catalog.hpp"

#include "labs/custom/user_kernel_lab.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "labs/grayscale/gray_view.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/matmul_view.hpp"

namespace bs::app {

LabCatalog built_in_labs() {
  // The user's own kernels: one engine (its spare runner processes, its compile cache) and one
  // book per lab, shared by that lab's objects on every backend, so switching compute keeps
  // them. Each lab is wrapped so its kernel list ends with them (user_kernel_lab.hpp).
  auto engine = std::make_shared<custom::Engine>();
  auto gray_book = std::make_shared<custom::UserKernelBook>(engine, "gray");
  auto matmul_book = std::make_shared<custom::UserKernelBook>(engine, "matmul");
  LabCatalog c;
  c.push_back(LabEntry{
      "gray", "Grayscale",
      [gray_book](const lab::Backend& b) -> Result<std::unique_ptr<lab::Lab>> {
        auto l = gray::GrayLab::create(b);
        if (!l) return l.status();
        return custom::with_user_kernels(std::move(l.value()), custom::gray_adapter(), gray_book);
      },
      &GrayView::create,
      {}});
  c.push_back(LabEntry{
      "matmul", "Matmul",
      [matmul_book](const lab::Backend& b) -> Result<std::unique_ptr<lab::Lab>> {
        auto l = matmul::MatmulLab::create(b);
        if (!l) return l.status();
        return custom::with_user_kernels(std::move(l.value()), custom::matmul_adapter(), matmul_book);
      },
      &MatmulView::create, MatmulView::options()});
  return c;
}

}  // namespace bs::app
