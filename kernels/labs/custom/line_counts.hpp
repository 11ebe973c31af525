// How often each line of a user kernel ran on the CPU simulator (issue 22). The simulator has no
// warps stalling to sample, but it can count: the kernel's unit is built once more with GCC's
// coverage counters (atomic: the simulator's workers run blocks at the same time) into a folder of
// its own, the runner runs one launch of that build and writes the counters (bs_coverage_dump),
// and gcov turns them into executions per line of the user's kernel.cu, every simulated thread's
// added up.
//
//   auto build = build_counting_object(compiler, unit_text, user_source, 60);   // once per kernel
//   clear_line_counts(*build);                     // before each counted launch
//   ... the runner: SampleLines with build->library ...
//   auto profile = read_line_counts(*build, 60);   // LineMeasure::Executions
//
// Needs GCC and its gcov (clang's coverage speaks another tool): otherwise a Status saying so.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_profile.hpp"
#include "core/status.hpp"
#include "toolchain/host_compiler.hpp"

namespace bs::custom {

struct CountingObject {
  std::filesystem::path dir;      // a folder of its own (removed by remove_counting_object)
  std::filesystem::path library;  // the counting build of the kernel
  std::filesystem::path gcov;     // the gcov of the compiler that built it
  std::string compiler;           // "g++ 12.2.0 -O0 --coverage"
};

Result<CountingObject> build_counting_object(const toolchain::HostCompiler& compiler, std::string_view unit_text,
                                             std::string_view user_source, double time_limit_s);
// Forgets the counts of earlier launches (gcov adds a launch's counts to those already written).
void clear_line_counts(const CountingObject& object);
// The counts the last launch wrote, per line of kernel.cu.
Result<LineProfile> read_line_counts(const CountingObject& object, double time_limit_s);
void remove_counting_object(const CountingObject& object);

}  // namespace bs::custom
