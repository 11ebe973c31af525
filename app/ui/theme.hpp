// The dark theme, scaled for HiDPI screens (fonts and sizes by the monitor's content scale).
#pragma once
namespace bs::ui {
void apply_theme(float scale);
}
