// The kernel editor pane: write CUDA in the app, compile it for the current backend (NVRTC for
// the GPU, the host compiler for the CPU simulator), and see it run as a kernel of the lab.
//
// One tab per kernel source (typed, from a template, or a .cu file), each tied to a lab (its
// forms decide which signatures compile). Compile (the button, or Ctrl+Enter or F5 while the
// pane has the keyboard) hands the source to
// a worker thread that compiles it and runs it once on the lab's data, verified; only a kernel
// that compiled and whose launch finished joins the lab's kernel list (the "custom" group) and
// is selected, so the last working kernel keeps running while a new version fails. Errors and
// warnings are marked at their line and column and listed (click one to go there); compile
// times, and for the GPU build its registers, shared memory and spills, are shown. The time
// limit for user kernels (default 2 s) is set here.
//
// The lower pane has three tabs: Results (the above), PTX and SASS of the kernel being edited,
// from the Source tab's listing (kernels/source, NVRTC in this process with line information,
// nvdisasm for SASS and its live registers), made off the UI thread after each compile that
// succeeds. The instructions of the line the cursor is on are highlighted; a click on an
// instruction puts the cursor on its line. A compile that fails leaves the last good listing
// shown, marked stale (so is one whose source was edited since).
//
// Files: open and save .cu files (recent kernel files kept beside recent images), a .cu dropped
// on the window opens here, and --kernel-file does the same at start. A notebook (.ipynb) or
// Python file (.py) opens one tab per kernel found in it (labs/custom/source_import.hpp), each
// with the notes on what was left out (torch launchers, includes); its tabs save as .cu files. A file opens on the lab
// whose forms its kernel takes (any lab offering a user-kernel spec; the labs' list comes with
// the labs, custom::UserLabs). A file that cannot be read is a message; nothing open changes.
//
// Templates and titles are the labs' own (each lab's spec); the editor names no lab.
//
// Section index of kernel_editor.cpp:
//   1. tabs: edit, open a file, templates, save
//   2. compiling: requests, the worker's results, installing into the lab
//   3. the pane: toolbar, code, results, diagnostics; the File menu items
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_config.hpp"
#include "editor/code_editor.hpp"
#include "editor/compile_worker.hpp"
#include "editor/kernel_file_dialog.hpp"
#include "lab/lab.hpp"
#include "lab/user_kernel_spec.hpp"
#include "source/listing_worker.hpp"
#include "state/recent_files.hpp"
#include "ui/messages.hpp"
#include "ui/source_panel.hpp"

namespace bs::editor {

// What the editor needs of one lab, from the shell.
struct LabContext {
  std::string id;           // "gray"
  std::string title;        // "Grayscale"
  lab::Lab* lab = nullptr;  // the lab as the shell runs it (null: the lab could not open)
  std::string kernel;       // the selection in it
  KernelConfig config;
  std::optional<Dim3> shown_grid;  // the grid of the launch shown, when it is the selection's
};
using LabLookup = std::function<LabContext(const std::string& lab_id)>;

// What the editor asks of the shell.
struct EditorRequests {
  struct Select {
    std::string lab, kernel;
    KernelConfig config;
  };
  std::optional<Select> select;         // a kernel compiled and ran: show it
  bool relaunch = false;                // the launch settings of the current lab's kernel changed
  std::optional<std::string> show_lab;  // open this lab (a kernel file's lab, told by its source)
};

// The outcome of --kernel-file's first compile-and-run, for the run modes' exit code.
struct KernelFileOutcome {
  bool done = false;
  bool ok = false;
  std::string message;  // the first error at its line, the launch's failure, or the summary
  std::string build;    // the compiler and times; GPU: registers, shared memory, spills
};

class KernelEditor {
 public:
  // `recent_path`: where recent kernel files persist (empty: not persisted, as headless runs).
  explicit KernelEditor(std::filesystem::path recent_path = {});
  ~KernelEditor();
  KernelEditor(const KernelEditor&) = delete;
  KernelEditor& operator=(const KernelEditor&) = delete;

  bool is_open() const { return open_; }
  void close() { open_ = false; }
  // The pane had the keyboard in the last frame (its F5 and Ctrl+Enter compile, not the app's).
  bool has_keyboard() const { return open_ && focused_; }
  // "Edit kernel": opens the pane on the lab's selected kernel: a user kernel's own source, else
  // the template the lab names for that built-in kernel.
  void edit(const LabContext& lab, app::MessageLog& log);
  // Opens a .cu file in a tab of its own (or the tab already holding it) on the lab its kernel
  // belongs to (`fallback_lab` when it matches none), and compiles it. A file that cannot be
  // read leaves everything as it was and says why.
  Status open_file(const std::filesystem::path& path, const std::string& fallback_lab, app::MessageLog& log);
  // --kernel-file: open_file, and remember the outcome of its first compile and launch, which
  // uses `block` when given (the command line's --block). A notebook or Python file: `kernel`
  // names the one kernel to open (empty: all; the outcome is ok when every one verified).
  Status open_kernel_file(const std::filesystem::path& path, const std::string& fallback_lab, app::MessageLog& log,
                          std::optional<Dim3> block = std::nullopt, const std::string& kernel = {});
  // The action behind the Compile button, Ctrl+Enter and F5: compiles the active tab.
  void compile();
  // What the toolbar's blockDim field does with a block typed into it (tests type through this):
  // the active tab's kernel relaunches with it if it is the one selected, else its next compile
  // uses it.
  void set_launch_block(Dim3 block);
  // Saves the active tab (to its file; a new one opens Save as).
  void save(app::MessageLog& log);

  // Each frame, before drawing: starts asked-for compiles, takes finished ones (installs the
  // kernels that run into their lab and asks to select them).
  EditorRequests update(const LabLookup& labs, app::MessageLog& log);
  // The pane (a window of its own) for the open lab.
  void draw(const LabLookup& labs, const std::string& current_lab, app::MessageLog& log, EditorRequests& requests);
  // Items for the app's File menu.
  void draw_file_menu(const LabLookup& labs, const std::string& current_lab, app::MessageLog& log);

  // Tabs with edits not saved to a file, so quitting never loses them: the app keeps them in the
  // settings folder at exit and gives them back at the next start (restore_unsaved).
  struct Unsaved {
    std::string lab, title, template_id, text;
    std::filesystem::path path;  // the file it came from, if any (its edits are not in it)
  };
  std::vector<Unsaved> unsaved() const;
  void restore_unsaved(const Unsaved& u);

  bool busy() const;  // a compile or its first launch is in flight, or a listing is being made
  std::size_t tab_count() const { return tabs_.size(); }
  std::string active_lab() const;  // the lab of the tab in front ("" with no tab)
  const KernelFileOutcome& kernel_file_outcome() const { return kernel_file_outcome_; }
  void set_time_limit_s(double s);

  // The lower pane's tabs.
  enum class Lower { Results, Ptx, Sass };
  // Brings a tab of the lower pane to the front on the next draw (the active kernel tab's).
  void show_lower(Lower which);
  // For tests and the window's redraw: the active tab's listing (null: none yet), whether it is
  // stale (the last compile failed, or the source was edited since), and whether one is being made.
  const KernelListing* listing() const;
  bool listing_stale() const;
  bool listing_pending() const;
  Lower lower() const;
  // The active tab's code widget (tests read the cursor and move it).
  CodeEditorState* active_code();

 private:
  struct Tab {
    int uid = 0;
    std::string lab;             // whose forms it compiles against
    std::string title;           // file name, or "untitled (template)"
    std::filesystem::path path;  // empty until saved
    std::string template_id;     // the template it started from (none for files)
    CodeEditorState code;
    std::string saved_text;  // what the file (or the template) holds: dirty when different
    std::vector<custom::Diagnostic> diagnostics;
    std::string status;  // the last compile's one-line outcome
    enum class State { Idle, Compiling, Ok, Wrong, Failed } state = State::Idle;
    std::string compiled_info;  // compiler, times; GPU: registers, shared, spills
    std::string installed_id;   // the user kernel it installed last
    // Launch: the grid rule (the form's, N blocks per SM, or a fixed grid).
    int grid_mode = 0;  // 0 form, 1 per SM, 2 fixed
    int per_sm = 2;
    int fixed_grid[2] = {128, 1};
    bool compile_requested = false;
    int waited_for_data = 0;                // frames a compile waited for the lab's data
    bool from_kernel_file = false;          // --kernel-file: its outcome is remembered
    bool lab_from_source = false;           // a file: its lab is the one its kernel's form belongs to
    bool imported = false;                  // from a notebook or .py (its title names the file)
    std::vector<std::string> import_notes;  // what was left out of it, and why
    std::optional<Dim3> block;              // the block its next compile runs with (else the form's)
    int block_field[3] = {0, 0, 0};         // the toolbar's block field while it has the keyboard
    bool block_editing = false;
    bool block_changed = false;  // the toolbar's block changed: relaunch with it
    // The lower pane: its tab, and the listing of the last source that compiled.
    Lower lower = Lower::Results;
    bool select_lower = false;                              // bring `lower` to the front on the next draw
    std::optional<source::ListingRequest> listing_request;  // the last compile that succeeded
    std::shared_ptr<const KernelListing> listing;           // its listing, once made
    bool last_compile_failed = false;                       // a compile error since the listing's source
    unsigned allocated_registers = 0;                       // the GPU build's, for the live-register bars (0: unknown)
    int highlighted_line = 0;                               // the line whose instructions are highlighted
    int line_from_click = 0;                                // a line the cursor went to from an instruction's click
    ui::InstructionListState ptx_view, sass_view;
    bool dirty() const { return code.text != saved_text; }
  };

  Tab& new_tab(std::string lab, std::string title);
  Tab* active();
  Tab* tab(int uid);
  void open_template(const std::string& lab, const lab::UserTemplate& tp);
  void resolve_lab(Tab& t, const LabLookup& labs, app::MessageLog& log);
  std::string lab_title(const std::string& lab) const;
  void start_compile(Tab& t, const LabContext& ctx, app::MessageLog& log);
  void apply(const CompileDone& done, const LabLookup& labs, app::MessageLog& log, EditorRequests& requests);
  custom::GridRule grid_rule(const Tab& t) const;
  // The block the tab's kernel launches with: the selection's when its installed kernel is the
  // one selected (as the user set it), else the command line's, else its template's.
  std::optional<Dim3> launch_block(const Tab& t, const LabContext& ctx) const;
  void draw_launch_shape(Tab& t, const LabContext& ctx, EditorRequests& requests);
  void draw_toolbar(Tab& t, const LabContext& ctx, app::MessageLog& log, EditorRequests& requests);
  void draw_results(Tab& t, const LabContext& ctx);
  void draw_lower(Tab& t, const LabContext& ctx);
  void draw_listing_level(Tab& t, bool sass);
  void remember(const std::filesystem::path& path);
  // A notebook or .py file: one tab per kernel found (only `only` when given); `opened` gets
  // the tabs' uids.
  Status open_imported(const std::filesystem::path& path, const std::string& fallback_lab, app::MessageLog& log,
                       const std::string& only, std::vector<int>* opened);
  // One --kernel-file tab finished (or could not start): the outcome is done when all have.
  void settle_kernel_file(bool ok, const std::string& message, const std::string& build);

  bool open_ = false;
  bool focused_ = false;
  std::vector<Tab> tabs_;
  int active_uid_ = 0;
  int select_uid_ = 0;  // a tab to bring to the front on the next draw
  int next_uid_ = 1;
  double time_limit_s_ = 2.0;
  CompileWorker worker_;
  source::ListingWorker listings_;  // PTX and SASS of compiled tabs, off the UI thread
  KernelFileDialog dialog_;
  int save_as_uid_ = 0;  // the tab a Save-as dialog is for
  RecentFiles recent_;
  std::filesystem::path recent_path_;
  KernelFileOutcome kernel_file_outcome_;
  int kernel_file_pending_ = 0;  // --kernel-file tabs whose first compile and launch are to come
  // The labs that take user kernels, as the first lab the editor reached knows them.
  std::shared_ptr<const custom::UserLabs> user_labs_;
};

}  // namespace bs::editor
