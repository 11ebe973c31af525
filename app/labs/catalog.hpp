// The app's catalog: each lab of the one catalog of labs (kernels/labs/built_in_labs.hpp) paired with its
// view, one line per lab, with the user's own kernels joined to every lab that takes them. The
// only place in the app that names the labs; main() hands this list to the shell.
#pragma once
#include <string>
#include <vector>

#include "lab/catalog.hpp"
#include "labs/lab_view.hpp"

namespace bs::app {

// A lab's view: the id of the catalog's lab it draws, how to make it, and the lab's own flags.
struct ViewOf {
  std::string lab;
  decltype(LabEntry::make_view) make_view;
  std::vector<LabOption> options = {};
};

// Every lab of `labs` with its view, in the catalog's order. A lab without a view is left out
// (AppCatalog.EveryLabOfTheCatalogHasItsView proves the shipped catalog has none such).
LabCatalog with_views(const lab::Catalog& labs, const std::vector<ViewOf>& views);

LabCatalog built_in_labs();

}  // namespace bs::app
