#!/usr/bin/env python3
"""tools/include_graph/check_include_graph.py on small fake trees written here: a tree whose folders
include each other in a ring fails and names every step of the ring with the include that makes
it; the same tree without the closing include passes; includes that stay in a folder, go to its
subfolders, or name no file under the root are not edges; a file's own folder is the deepest one
with a CMakeLists.txt."""
import io
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "include_graph"))
import check_include_graph  # noqa: E402


class IncludeGraph(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bs_include_graph_")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def folder(self, rel):
        os.makedirs(os.path.join(self.dir, rel), exist_ok=True)
        with open(os.path.join(self.dir, rel, "CMakeLists.txt"), "w") as f:
            f.write("# a target\n")

    def source(self, rel, *includes):
        path = os.path.join(self.dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("// " + rel + "\n#include <vector>\n")
            for name in includes:
                f.write(f'#include "{name}"\n')

    def run_check(self):
        out = io.StringIO()
        with redirect_stdout(out):
            code = check_include_graph.main(["check_include_graph.py", self.dir])
        return code, out.getvalue()

    def three_folders(self, close_the_ring):
        # low <- mid <- top, and (when closing) low -> top: low -> top -> mid -> low.
        for f in ("low", "mid", "labs/top"):
            self.folder(f)
        self.source("low/a.hpp", "low/b.hpp", *(["labs/top/t.hpp"] if close_the_ring else []))
        self.source("low/b.hpp")
        self.source("mid/m.cpp", "mid/m.hpp", "low/a.hpp")
        self.source("mid/m.hpp")
        self.source("labs/top/t.hpp", "not_here/missing.hpp")
        self.source("labs/top/inner/x.cpp", "../t.hpp", "mid/m.hpp")  # no CMakeLists: labs/top's

    def test_a_ring_of_three_folders_fails_and_names_each_include(self):
        self.three_folders(close_the_ring=True)
        code, text = self.run_check()
        self.assertEqual(code, 1, text)
        self.assertIn("CYCLE: labs/top -> mid -> low -> labs/top", text)
        self.assertIn('labs/top -> mid: labs/top/inner/x.cpp:4 includes "mid/m.hpp"', text)
        self.assertIn('mid -> low: mid/m.cpp:4 includes "low/a.hpp"', text)
        self.assertIn('low -> labs/top: low/a.hpp:4 includes "labs/top/t.hpp"', text)

    def test_the_same_tree_without_the_closing_include_passes(self):
        self.three_folders(close_the_ring=False)
        code, text = self.run_check()
        self.assertEqual(code, 0, text)
        self.assertIn("no cycle", text)
        lines = {line.split("->")[0].strip(): line.split("->")[1].strip()
                 for line in text.splitlines() if line.startswith("  ") and "->" in line}
        # labs/top/inner/x.cpp is labs/top's (no CMakeLists.txt of its own): its "../t.hpp" stays
        # in the folder, its "mid/m.hpp" is labs/top's edge; "not_here/missing.hpp" is no file.
        self.assertEqual(lines, {"labs/top": "mid", "low": "(nothing)", "mid": "low"})

    def test_two_folders_including_each_other_fail(self):
        self.folder("a")
        self.folder("b")
        self.source("a/x.cpp", "b/y.hpp")
        self.source("b/y.hpp")
        self.source("b/z.cpp", "a/x.hpp")
        self.source("a/x.hpp")
        code, text = self.run_check()
        self.assertEqual(code, 1, text)
        self.assertIn("CYCLE: a -> b -> a", text)

    def test_a_subfolder_with_its_own_target_is_a_folder_of_its_own(self):
        # labs/custom/runner gets a CMakeLists.txt: runner -> custom and custom -> runner is a ring.
        self.folder("labs/custom")
        self.folder("labs/custom/runner")
        self.source("labs/custom/c.cpp", "labs/custom/runner/r.hpp")
        self.source("labs/custom/runner/r.hpp", "labs/custom/c.hpp")
        self.source("labs/custom/c.hpp")
        code, text = self.run_check()
        self.assertEqual(code, 1, text)
        self.assertIn("CYCLE: labs/custom -> labs/custom/runner -> labs/custom", text)


if __name__ == "__main__":
    unittest.main()
