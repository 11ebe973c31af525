// A code editing widget for ImGui 1.86, which has none: its multi-line text field (which brings
// typing, selection, clipboard and undo/redo) inside a scrolling region with a gutter of line
// numbers, marks for diagnostics at their line, a tint and a squiggle at their column, and a
// cursor that can be moved from outside (a click on an error in the list below the editor).
//
// How it lines up: the text field is made as tall and wide as its text, so it never scrolls on
// its own; the surrounding child window scrolls, the gutter is drawn beside the field in that
// window, and every line sits at a fixed multiple of the font's height. The field's own
// background is transparent, so the marks drawn behind it show through.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

namespace bs::editor {

struct CodeMark {
  enum class Kind { Error, Warning, Note };
  int line = 0;    // 1-based; 0: not on a line (not drawn)
  int column = 0;  // 1-based byte column; 0: the whole line
  Kind kind = Kind::Error;
  std::string message;  // the gutter mark's tooltip
};

struct CodeEditorState {
  std::string text;
  // Out: where the cursor is (1-based), and whether the field has the keyboard.
  int cursor_line = 1, cursor_column = 1;
  bool active = false;
  // In: move the cursor to this line and column (and take the keyboard); 0: nothing asked.
  int goto_line = 0, goto_column = 0;
  bool take_focus = false;     // take the keyboard, leaving the cursor where it was
  bool text_replaced = false;  // set when `text` is changed from outside while the field may be active

  // Private: scroll-follow state.
  int last_cursor_offset = -1;
};

// Replaces the text from outside the widget (a file opened, a template chosen): the field drops
// its own copy and undo history, which belong to the old text.
void replace_text(CodeEditorState& state, std::string text);

// Draws the editor filling `size` (0: the remaining space). Returns true when the user changed
// the text this frame.
bool draw_code_editor(const char* id, CodeEditorState& state, const std::vector<CodeMark>& marks, ImVec2 size);

}  // namespace bs::editor
