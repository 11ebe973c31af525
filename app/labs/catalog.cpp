#include "labs/catalog.hpp"

#include "labs/built_in_labs.hpp"
#include "labs/custom/user_kernel_lab.hpp"
#include "labs/grayscale/gray_view.hpp"
#include "labs/matmul/matmul_view.hpp"

namespace bs::app {

LabCatalog with_views(const lab::Catalog& labs, const std::vector<ViewOf>& views) {
  LabCatalog c;
  for (const lab::CatalogEntry& l : labs)
    for (const ViewOf& v : views)
      if (v.lab == l.id) c.push_back(LabEntry{l.id, l.title, l.create, v.make_view, v.options});
  return c;
}

LabCatalog built_in_labs() {
  return with_views(custom::with_user_kernels(bs::labs::built_in_labs(), std::make_shared<custom::Engine>()),
                    {{"gray", &GrayView::create}, {"matmul", &MatmulView::create, MatmulView::options()}});
}

}  // namespace bs::app
