// What a lab offers the user's own kernels (optional: Lab::user_kernel_spec() is null for a lab
// that takes none). Written in the lab's own folder, next to its reference and its plan()
// counts, so kernels/labs/custom stays lab-neutral: it compiles an entry point, runs it on the
// buffers a spec packs, with the grid a form's rule gives, and hands the output to the spec's
// check. A new lab gets user kernels by writing its spec, and nothing else changes.
//
//   forms()       the kernel signatures the lab accepts: a role per parameter (input, output,
//                 integer), the element types, and how the grid follows from the data
//   templates()   kernels the editor offers to start from; template_for(): which one an edit of
//                 a built-in kernel starts from
//   pack()        the lab's current problem as one form's kernel receives it: input bytes, the
//                 output's size and first value, the integer sizes, the lab's own byte and FLOP
//                 counts (the ones plan() gives its built-in kernels) and the lab's own check of
//                 an output against its reference. Self-contained: it can be verified on another
//                 thread while the lab moves on.
//   generation()  changes whenever the data pack() reads changes
//
// A form names sizes, not formulas: an integer parameter receives the problem size of its name
// (the gray lab's `n`, `w`, `h`), and grid dimension d covers the size grid_extent[d] in steps
// of grid_tile[d] (0: blockDim.d). So the lecture's 1D grid is {"n"} and its 2D grid {"w", "h"};
// a tensor-core form whose warp computes a 16 x 8 tile of C says {"w", "h"} with tiles {8, 16}.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/dim.hpp"
#include "core/status.hpp"

namespace bs::lab {

class Lab;

struct UserParam {
  enum class Role { Input, Output, Int };
  Role role = Role::Input;
  std::string type;        // pointers: the element type ("unsigned char", "float"); Int: "int"
                           // (any integer type is accepted)
  unsigned elem_size = 0;  // pointers: bytes per element
  std::string name;        // the lecture's name, for messages; an Int receives the size so named
  std::string meaning;     // "planar RGB input, 3n bytes"
  // What the elements' bits are when `type` only carries them ("bf16": unsigned short holding
  // BF16 patterns), so a kernel may name the type that means those bytes (__nv_bfloat16*);
  // labs/custom/element_types.hpp has the table. Empty: the type means itself.
  std::string bits = {};
  bool pointer() const { return role != Role::Int; }
};

struct UserForm {
  std::string id;                              // "gray_1d": unique within its lab
  std::string title;                           // "grayscale, 1D (the lecture's)"
  std::vector<UserParam> params;               // exactly one Output
  std::array<std::string, 3> grid_extent;      // the size each grid dimension covers ("": 1 block)
  std::array<unsigned, 3> grid_tile{0, 0, 0};  // elements per block along it (0: blockDim's)
  unsigned block_rank = 1;                     // block dimensions the kernel maps (the UI's block editor)
  Dim3 default_block{256, 1, 1};
  std::vector<Dim3> presets;        // block shapes the UI offers
  std::string element = "element";  // what one element of the output is called: "pixel"
  // Code put in front of the user's source for each compiler, e.g. the header or the CPU
  // stand-in a form's element type needs (empty for the plain C types).
  std::string gpu_prelude, cpu_prelude;

  std::string signature() const;  // "(unsigned char* x, unsigned char* out, int n)"
  std::string grid_rule() const;  // "gridDim = (ceil(n / blockDim.x), 1, 1)"
  const UserParam* output() const;
};

struct UserTemplate {
  std::string id;                    // "gray_1d"
  std::string title;                 // for the menu: "Grayscale, 1D (the lecture's)"
  std::string form;                  // the form its kernel takes
  Dim3 block{256, 1, 1};             // the block it is meant for
  unsigned fixed_blocks_per_sm = 0;  // > 0: runs on a fixed grid of this many blocks per SM
  std::string source;
};

// A lab's problem as one form's kernel receives it.
struct UserProblem {
  std::string form;                                      // the form it was packed for
  std::vector<std::pair<std::string, long long>> sizes;  // "n" = w * h, "w", "h", ...
  std::vector<std::vector<std::uint8_t>> inputs;         // the form's Input parameters, in order
  long long output_count = 0;                            // elements of the Output parameter
  std::uint8_t output_fill = 0;                          // every byte of it before each launch (a value no correct
                                                         // kernel writes, where the lab has one: unwritten shows wrong)
  long long out_width = 0, out_height = 0;               // the output as a row-major 2D array
  std::string summary;                                   // "512 x 512 image, planar RGB"
  double bytes_moved = 0;                                // the lab's own counts, as plan() gives its built-in kernels
  std::string bytes_note;
  double flops = 0;
  double replay_work = 0;  // thread-steps of a CPU replay (who stores what): its cost
  // The lab's check of an output (output_count elements of the Output's type) against its own
  // reference; Check::first_bad in (column, row) of the out_width x out_height array.
  std::function<Check(const std::uint8_t* out)> verify;

  std::optional<long long> size(std::string_view name) const;
};

class UserKernelSpec {
 public:
  virtual ~UserKernelSpec() = default;
  virtual const std::vector<UserForm>& forms() const = 0;
  virtual const std::vector<UserTemplate>& templates() const = 0;
  // The template an edit of the lab's built-in kernel `kernel` starts from.
  virtual std::string template_for(std::string_view kernel) const = 0;
  virtual std::uint64_t generation(const Lab& lab) const = 0;
  // `lab` is the lab that offered this spec (or a lab wrapping it: reach it with layer<T>). A
  // Status when there is no data, or the lab's settings rule the form out (with the reason).
  virtual Result<UserProblem> pack(const Lab& lab, const UserForm& form) const = 0;

  const UserForm* find_form(std::string_view id) const;
  const UserTemplate* find_template(std::string_view id) const;
};

// The grid `form`'s rule gives for `block` on `problem`. Refuses a zero block dimension and a
// size the form names that the problem lacks; grids over CUDA's limits are left to
// validate_launch (the grid is still computed so the message can name it).
Result<Dim3> user_grid(const UserForm& form, const UserProblem& problem, Dim3 block);

// One line per form, for a diagnostic: "  __global__ void NAME(...)   [gray_1d; gridDim = ...]".
std::string describe_forms(std::span<const UserForm> forms);

}  // namespace bs::lab
