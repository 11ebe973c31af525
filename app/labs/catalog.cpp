#include "labs/catalog.hpp"

#include "labs/grayscale/gray_lab.hpp"
#include "labs/grayscale/gray_view.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/matmul_view.hpp"

namespace bs::app {

LabCatalog built_in_labs() {
  LabCatalog c;
  c.push_back(LabEntry{
      "gray", "Grayscale",
      [](const lab::Backend& b) -> Result<std::unique_ptr<lab::Lab>> {
        auto l = gray::GrayLab::create(b);
        if (!l) return l.status();
        return std::unique_ptr<lab::Lab>(std::move(l.value()));
      },
      &GrayView::create,
      {}});
  c.push_back(LabEntry{
      "matmul", "Matmul",
      [](const lab::Backend& b) -> Result<std::unique_ptr<lab::Lab>> {
        auto l = matmul::MatmulLab::create(b);
        if (!l) return l.status();
        return std::unique_ptr<lab::Lab>(std::move(l.value()));
      },
      &MatmulView::create, MatmulView::options()});
  return c;
}

}  // namespace bs::app
