// The labs blockscope ships: one entry each (labs/lab_view.hpp says what an entry holds). The
// only place in the app that names them; main() hands this list to the shell.
#pragma once
#include "labs/lab_view.hpp"

namespace bs::app {

LabCatalog built_in_labs();

}  // namespace bs::app
