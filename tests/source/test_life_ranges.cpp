// Register pressure from nvdisasm's life ranges, on real disassembler output of two kernels
// compiled for sm_90 (tests/source/data/life_ranges: their sources, make.sh, and what nvdisasm
// printed for them): saxpy (general, predicate and uniform registers) and a kernel that keeps 28
// values live under a 24-register cap, so it spills. The counts the parser reads from the
// compact form (`-lrm count`) are checked against the registers counted by hand, mark by mark,
// in the wide form's columns of the same cubin, and against the allocation cuobjdump reports;
// the per-line maximum against values read off the listing by eye. Where this machine has a
// toolkit whose nvcc and nvdisasm can make and read a cubin now, the same checks run on a fresh
// one through the listing's own tool calls (else the test says why it skips).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

#include "skips.hpp"
#include "test_data.hpp"
#include "source/listing_parse.hpp"
#include "source/toolkit.hpp"

namespace {

using namespace bs::source;
using namespace bs::toolchain;  // the CUDA toolkit's tools, found
namespace fs = std::filesystem;

// Beside the executable (build/tests/test_data, or the GPU bundle's test_data), never the source
// path of the machine that built it.
const fs::path kData = bs::test::test_data("source/life_ranges");

std::string read_text(const fs::path& p) {
  EXPECT_FALSE(kData.empty()) << "test_data/source/life_ranges is not beside the test executable";
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << p;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The wide table counted by hand: per pc, the registers of each group whose column holds a mark
// (^ assigned, v used, x both, : in use). Which group is which comes from the header row.
struct HandCount {
  std::map<unsigned long long, std::map<std::string, int>> at_pc;
};

HandCount count_marks(const std::string& wide) {
  HandCount out;
  std::vector<std::string> groups;
  std::istringstream in(wide);
  std::string line;
  auto fields = [](const std::string& row) {
    std::vector<std::string> f;
    std::size_t a = row.find("// |");
    if (a == std::string::npos) return f;
    a += 3;
    for (std::size_t b; (b = row.find('|', a + 1)) != std::string::npos; a = b)
      f.push_back(row.substr(a + 1, b - a - 1));
    return f;
  };
  while (std::getline(in, line)) {
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line.compare(first, 4, "// |") == 0) {
      std::vector<std::string> names;
      for (const std::string& f : fields(line)) {
        std::istringstream w(f);
        std::string word, extra;
        w >> word >> extra;
        if (word.empty() || !extra.empty() || word == "#") {
          names.clear();
          break;
        }
        names.push_back(word);
      }
      if (!names.empty()) groups = names;
      continue;
    }
    if (line.compare(first, 2, "/*") != 0) continue;
    unsigned long long pc = 0;
    if (std::sscanf(line.c_str() + first, "/*%llx*/", &pc) != 1) continue;
    const std::vector<std::string> f = fields(line);
    if (f.empty()) continue;
    for (std::size_t g = 0; g < f.size() && g < groups.size(); ++g) {
      int marks = 0;
      for (char c : f[g]) marks += c == '^' || c == 'v' || c == 'x' || c == ':';
      out.at_pc[pc][groups[g]] = marks;
    }
  }
  return out;
}

// cuobjdump -res-usage's REG: for the one function.
int allocated_registers(const std::string& res_usage) {
  const std::size_t at = res_usage.find("REG:");
  return at == std::string::npos ? -1 : std::atoi(res_usage.c_str() + at + 4);
}

std::vector<AsmFunction> parse_or_fail(const std::string& text, const std::string& prefer) {
  auto r = parse_nvdisasm(text, prefer);
  EXPECT_TRUE(r.ok()) << r.status().describe();
  return r ? *r : std::vector<AsmFunction>{};
}

// Every instruction with a row in the table: its parsed counts equal the hand count of the wide
// table (a group the function never uses: none live).
void expect_counts_match_marks(const std::vector<AsmFunction>& parsed, const HandCount& hand, int* checked) {
  ASSERT_EQ(parsed.size(), 1u);
  for (const bs::ListedInstruction& i : parsed.front().instructions) {
    auto it = hand.at_pc.find(i.pc_offset);
    if (it == hand.at_pc.end()) {
      EXPECT_EQ(i.live_regs, -1) << i.text;  // the NOPs after the end: no row, not known
      continue;
    }
    auto of = [&](const char* g) {
      auto f = it->second.find(g);
      return f == it->second.end() ? 0 : f->second;
    };
    EXPECT_EQ(i.live_regs, of("GPR")) << std::hex << i.pc_offset << " " << i.text;
    EXPECT_EQ(i.live_predicates, of("PRED")) << std::hex << i.pc_offset << " " << i.text;
    EXPECT_EQ(i.live_uniform, of("UGPR")) << std::hex << i.pc_offset << " " << i.text;
    ++*checked;
  }
}

TEST(LifeRanges, CountsOfTheCompactFormEqualTheRegistersMarkedInTheWideForm) {
  for (const char* k : {"saxpy", "spill"}) {
    SCOPED_TRACE(k);
    const HandCount hand = count_marks(read_text(kData / (std::string(k) + ".wide.txt")));
    ASSERT_GT(hand.at_pc.size(), 15u);
    int checked = 0;
    expect_counts_match_marks(parse_or_fail(read_text(kData / (std::string(k) + ".count.txt")), ""), hand, &checked);
    EXPECT_EQ(checked, static_cast<int>(hand.at_pc.size()));
    // The wide form parses to the same counts (its first number per group).
    checked = 0;
    expect_counts_match_marks(parse_or_fail(read_text(kData / (std::string(k) + ".wide.txt")), ""), hand, &checked);
    EXPECT_EQ(checked, static_cast<int>(hand.at_pc.size()));
  }
}

TEST(LifeRanges, SaxpysLinesTakeTheirMostLiveRegistersAndThePeakIsNamed) {
  auto listing = parse_or_fail(read_text(kData / "saxpy.gi.txt"), "saxpy.cu");
  const auto ranges = parse_or_fail(read_text(kData / "saxpy.count.txt"), "");
  ASSERT_EQ(listing.size(), 1u);
  for (const bs::ListedInstruction& i : listing.front().instructions) EXPECT_EQ(i.live_regs, -1);  // -gi has none
  const int rows = merge_live(listing, ranges);
  EXPECT_EQ(rows, 20);  // 0x0000 .. 0x0130; the padding NOPs have no row
  const auto& sass = listing.front().instructions;
  // Read off the listing by eye: line 3 (the index) holds R1, R7, R0; line 5 (the load of x)
  // and line 6 (the update of y) peak with both pointers' pairs live beside i.
  const std::vector<int> per_line = max_live_per_line(sass, "saxpy.cu", 9);
  EXPECT_EQ(per_line, (std::vector<int>{-1, -1, 1, 3, 2, 6, 6, -1, 1, -1}));
  const LivePeak peak = peak_live(sass);
  EXPECT_EQ(peak.regs, 6);
  ASSERT_GE(peak.index, 0);
  EXPECT_EQ(sass[static_cast<std::size_t>(peak.index)].pc_offset, 0xb0u);  // LDC.64 R4: the first at 6
  EXPECT_EQ(peak.line, 6);
  EXPECT_TRUE(same_source_file(peak.file, "saxpy.cu"));
  // The compare sets P0, the predicated EXIT reads it; uniform: UR4..UR6 around the loads.
  for (const bs::ListedInstruction& i : sass) {
    if (i.pc_offset == 0x60 || i.pc_offset == 0x70) {
      EXPECT_EQ(i.live_predicates, 1) << i.text;
    } else if (i.live_regs >= 0) {
      EXPECT_EQ(i.live_predicates, 0) << i.text;
    }
    if (i.pc_offset == 0xa0) { EXPECT_EQ(i.live_uniform, 3) << i.text; }
  }
  // Within the allocation: cuobjdump says 10 registers.
  EXPECT_LE(peak.regs, allocated_registers(read_text(kData / "saxpy.res-usage.txt")));
}

TEST(LifeRanges, ASpillingKernelRunsAtItsRegisterCapAndSpillsWhereThePressureIs) {
  auto listing = parse_or_fail(read_text(kData / "spill.gi.txt"), "spill.cu");
  const auto ranges = parse_or_fail(read_text(kData / "spill.count.txt"), "");
  ASSERT_GT(merge_live(listing, ranges), 100);
  const auto& sass = listing.front().instructions;
  const int allocated = allocated_registers(read_text(kData / "spill.res-usage.txt"));
  ASSERT_EQ(allocated, 24);  // -maxrregcount=24
  const LivePeak peak = peak_live(sass);
  // Capped: the peak is at the allocation (less the registers the ABI keeps), never above it.
  EXPECT_LE(peak.regs, allocated);
  EXPECT_GE(peak.regs, allocated - 2);
  int spills = 0;
  for (const bs::ListedInstruction& i : sass)
    if (i.text.rfind("STL", 0) == 0 || i.text.rfind("LDL", 0) == 0) {
      ++spills;
      EXPECT_GE(i.live_regs, 2) << i.text;  // the stack pointer and the value moved
    }
  EXPECT_GT(spills, 10);
  // This kernel uses no predicate: its table has no PRED group, and none is live anywhere.
  EXPECT_EQ(read_text(kData / "spill.count.txt").find("PRED"), std::string::npos);
  for (const bs::ListedInstruction& i : sass) {
    if (i.live_regs >= 0) { EXPECT_EQ(i.live_predicates, 0); }
  }
  // The 28 values are loaded on line 5 and read on line 8: those lines hold the peak.
  const std::vector<int> per_line = max_live_per_line(sass, "spill.cu", 10);
  EXPECT_EQ(std::max(per_line[5], per_line[8]), peak.regs);
}

TEST(LifeRanges, AListingWithoutTheTableLeavesEveryCountUnknown) {
  const auto fns = parse_or_fail(read_text(kData / "saxpy.gi.txt"), "");
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_EQ(peak_live(fns.front().instructions).regs, -1);
  EXPECT_EQ(max_live_per_line(fns.front().instructions, "saxpy.cu", 9), std::vector<int>(10, -1));
  // A life-range listing of another function adds nothing.
  auto other = fns;
  other.front().name = "not_saxpy";
  EXPECT_EQ(merge_live(other, parse_or_fail(read_text(kData / "saxpy.count.txt"), "")), 0);
}

// An nvdisasm that knows no life-range option (a stand-in script: -gi prints saxpy's real
// listing, anything else is refused as an old nvdisasm refuses an unknown option): the listing
// keeps its SASS and live_status says why there are no counts.
TEST(LifeRanges, AnNvdisasmWithoutLifeRangesSaysWhyAndTheSassStays) {
  const fs::path dir = fs::temp_directory_path() / ("bs-old-nvdisasm-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path tool = dir / "nvdisasm";
  {
    std::ofstream out(tool);
    out << "#!/bin/sh\ncase \"$*\" in *-gi*) cat '" << (kData / "saxpy.gi.txt").string()
        << "' ;; *) echo \"nvdisasm fatal   : Unknown option '$2'\" >&2; exit 1 ;; esac\n";
  }
  fs::permissions(tool, fs::perms::owner_all);
  Toolkit tk;
  tk.nvdisasm = tool;
  const fs::path cubin = dir / "k.cubin";
  std::ofstream(cubin) << "not read by the stand-in";
  auto fns = disassemble_cubin(tk, cubin, {}, "saxpy.cu");
  ASSERT_TRUE(fns.ok()) << fns.status().describe();
  const bs::Status live = add_life_ranges(tk, cubin, {}, *fns);
  fs::remove_all(dir);
  EXPECT_FALSE(live.ok());
  EXPECT_NE(live.message.find("no register life ranges"), std::string::npos) << live.describe();
  EXPECT_NE(live.message.find("Unknown option"), std::string::npos) << live.describe();
  EXPECT_NE(live.hint.find("CUDA_HOME"), std::string::npos) << live.describe();
  ASSERT_EQ(fns->size(), 1u);
  EXPECT_EQ(fns->front().instructions.size(), 32u);  // the SASS is all there
  EXPECT_EQ(peak_live(fns->front().instructions).regs, -1);
}

// Issue 36, item 15: the message naming where the toolkit was looked for listed the same folder
// three times (CUDA_HOME, the build's toolkit and the default were one folder). Each once.
TEST(LifeRanges, TheFoldersSearchedForTheToolkitAreEachNamedOnce) {
  const char* old = std::getenv("CUDA_HOME");
  const std::string kept = old ? old : "";
  ::setenv("CUDA_HOME", "/usr/local/cuda/", 1);
  const Toolkit tk = find_toolkit();
  if (old) ::setenv("CUDA_HOME", kept.c_str(), 1);
  else ::unsetenv("CUDA_HOME");
  std::size_t count = 0;
  for (std::size_t at = tk.searched.find("/usr/local/cuda/bin"); at != std::string::npos;
       at = tk.searched.find("/usr/local/cuda/bin", at + 1))
    ++count;
  EXPECT_EQ(count, 1u) << tk.searched;
  const bs::Status missing = missing_tool("nvdisasm", tk);
  EXPECT_EQ(missing.message.find("/usr/local/cuda/bin, /usr/local/cuda/bin"), std::string::npos) << missing.message;
}

// A fresh cubin, now: nvcc and nvdisasm of one toolkit, through the listing's own calls.
TEST(LifeRanges, AFreshCubinsCountsEqualItsWideTableWhereTheToolkitIsHere) {
  const Toolkit tk = find_toolkit();
  if (tk.nvdisasm.empty())
    BS_SKIP() << "no nvdisasm (looked in " << tk.searched << "): the checked-in listings are tested";
  const fs::path nvcc = tk.nvdisasm.parent_path() / "nvcc";
  if (!fs::exists(nvcc)) BS_SKIP() << "no nvcc beside " << tk.nvdisasm << " to compile a fresh cubin for it";
  const fs::path dir = fs::temp_directory_path() / ("bs-life-ranges-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path cubin = dir / "spill.cubin";
  const std::string compile = "'" + nvcc.string() + "' -cubin -arch=sm_90 -lineinfo -maxrregcount=24 -o '" +
                              cubin.string() + "' '" + (kData / "spill.cu").string() + "' > '" +
                              (dir / "nvcc.txt").string() + "' 2>&1";
  if (std::system(compile.c_str()) != 0) {
    const std::string why = read_text(dir / "nvcc.txt");
    fs::remove_all(dir);
    FAIL() << "nvcc could not compile spill.cu: " << why;
  }
  auto fns = disassemble_cubin(tk, cubin, {}, "spill.cu");
  ASSERT_TRUE(fns.ok()) << fns.status().describe();
  const bs::Status live = add_life_ranges(tk, cubin, {}, *fns);
  ASSERT_TRUE(live.ok()) << live.describe();
  const std::string wide_cmd = "'" + tk.nvdisasm.string() + "' -c -lrm wide '" + cubin.string() + "' > '" +
                               (dir / "wide.txt").string() + "' 2>&1";
  ASSERT_EQ(std::system(wide_cmd.c_str()), 0) << read_text(dir / "wide.txt");
  const HandCount hand = count_marks(read_text(dir / "wide.txt"));
  fs::remove_all(dir);
  int checked = 0;
  expect_counts_match_marks(*fns, hand, &checked);
  EXPECT_GT(checked, 20);
  const LivePeak peak = peak_live(fns->front().instructions);
  EXPECT_LE(peak.regs, 24);
  EXPECT_GE(peak.regs, 18);
  EXPECT_GT(peak.line, 0);
}

}  // namespace
