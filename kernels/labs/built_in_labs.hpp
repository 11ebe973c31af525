// The labs blockscope ships, one registry line each (lab/catalog.hpp says what a line holds). The
// only list of them: the app (with each lab's view), the command line, the rungs' line counter
// and the contract tests all read it. A new lab is one folder here, one in app/labs and one line
// in built_in_labs.cpp.
#pragma once
#include "lab/catalog.hpp"

namespace bs::labs {

lab::Catalog built_in_labs();

}  // namespace bs::labs
