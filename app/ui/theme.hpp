// The dark theme's colours and sizes, scaled for the text size (the monitor's content scale times
// View > Text size). The fonts for that size are ui/fonts.hpp's.
#pragma once
namespace bs::ui {
void apply_theme(float scale);
}
