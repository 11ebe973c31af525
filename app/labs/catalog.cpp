#include "labs/catalog.hpp"

#include "labs/custom/user_kernel_lab.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "labs/grayscale/gray_user_spec.hpp"
#include "labs/grayscale/gray_view.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/matmul_user_spec.hpp"
#include "labs/matmul/matmul_view.hpp"

namespace bs::app {

LabCatalog built_in_labs() {
  // The user's own kernels: one engine (its spare runner processes, its compile cache), the list
  // of labs that take them (which lab a dropped .cu belongs to), and one book per lab, shared by
  // that lab's objects on every backend, so switching compute keeps them. Each lab that offers a
  // user-kernel spec is wrapped so its kernel list ends with them (user_kernel_lab.hpp).
  auto engine = std::make_shared<custom::Engine>();
  auto user_labs = std::make_shared<const custom::UserLabs>(custom::UserLabs{
      {{"gray", "Grayscale", &gray::user_kernel_spec()}, {"matmul", "Matmul", &matmul::user_kernel_spec()}}});
  auto gray_book = std::make_shared<custom::UserKernelBook>(engine, user_labs);
  auto matmul_book = std::make_shared<custom::UserKernelBook>(engine, user_labs);
  LabCatalog c;
  c.push_back(LabEntry{
      "gray", "Grayscale",
      [gray_book](const lab::Backend& b) -> Result<std::unique_ptr<lab::Lab>> {
        auto l = gray::GrayLab::create(b);
        if (!l) return l.status();
        return custom::with_user_kernels(std::move(l.value()), gray_book);
      },
      &GrayView::create,
      {}});
  c.push_back(LabEntry{
      "matmul", "Matmul",
      [matmul_book](const lab::Backend& b) -> Result<std::unique_ptr<lab::Lab>> {
        auto l = matmul::MatmulLab::create(b);
        if (!l) return l.status();
        return custom::with_user_kernels(std::move(l.value()), matmul_book);
      },
      &MatmulView::create, MatmulView::options()});
  return c;
}

}  // namespace bs::app
