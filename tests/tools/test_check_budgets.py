#!/usr/bin/env python3
"""tools/budgets/check_budgets.py on sample results written here (no GPU): a figure over its budget
is reported as missed (and the exit status says so), one within it is ok, an absent file is "not
measured", and the repository's budgets.json is complete (every budget names a figure, a unit, a
limit and where it is measured, and reads from a source the checker understands)."""
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "budgets"))
import check_budgets  # noqa: E402


def write(folder, name, doc):
    with open(os.path.join(folder, name), "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))


class CheckBudgets(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bs_budgets_")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def read(self, path):
        with open(path) as f:
            return json.load(f)

    def run_checker(self, *args):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = check_budgets.main([self.dir, *args])
        return rc, out.getvalue()

    def line_of(self, text, name):
        return next(l for l in text.splitlines() if l.startswith(name + " "))

    def test_the_repository_budgets_are_complete(self):
        budgets = self.read(os.path.join(ROOT, "budgets.json"))["budgets"]
        names = [b["name"] for b in budgets]
        self.assertEqual(len(names), len(set(names)), "budget names repeat")
        for b in budgets:
            for key in ("name", "what", "unit", "limit", "measured_by", "source"):
                self.assertIn(key, b, b.get("name"))
            self.assertIn("file", b["source"], b["name"])
        # The budgets are all there.
        for want in ("idle_window_defaults", "sweep_gray_8192_wall", "one_point_sweep_over_headless_start",
                     "headless_frame_8192", "headless_frame_3840x2160", "huge_image_rss", "huge_image_frame",
                     "edit_to_result_gpu", "gray_vec16_of_copy_8192", "matmul_k7_of_cublas_sgemm",
                     "matmul_t6_of_cublas_bf16", "source_tab_request_to_table", "pipeline_trace_cost"):
            self.assertIn(want, names)
        # Nothing measured: every budget is "not measured", none missed.
        rc, text = self.run_checker()
        self.assertEqual(rc, 0, text)
        self.assertIn(f"budgets: 0 met, 0 missed, {len(budgets)} not measured", text)

    def test_figures_over_budget_are_missed_and_within_are_ok(self):
        # Issue 34's figures before its fixes: the idle window at 183% of a core, the sweep at 3.1 s,
        # T6 at 185% of "its ceiling"; and some within budget.
        write(self.dir, "window_cost.json", {"idle": {"cpu_share_of_a_core": 0.005},
                                             "idle_default": {"cpu_share_of_a_core": 1.83}})
        write(self.dir, "sweep_gray_cli.json", {"sweep": {"wall_s": 3.1}, "results": []})
        write(self.dir, "bench_matmul_bf16.json", {"results": [
            {"kernel": "tc6_cluster_multicast", "problem": "8192x8192x8192 bf16", "of_library": 0.97,
             "of_ceiling": {"cublas_tf32 (same run)": 1.85, "BF16 tensor-core peak": 0.7}},
            {"kernel": "tc6_cluster_multicast", "problem": "4096x4096x4096 bf16", "of_library": 0.5,
             "of_ceiling": {"BF16 tensor-core peak": 0.6}},
            {"kernel": "cublas_bf16", "problem": "8192x8192x8192 bf16", "of_library": 1.0}]})
        write(self.dir, "bench_gray_planar.json", {"results": [
            {"kernel": "gray_vec16", "problem": "8192x8192 planar", "of_ceiling": {"copy (same run)": 0.97}},
            {"kernel": "gray_vec16", "problem": "8192x8192 planar", "of_ceiling": {"copy (same run)": 0.985}},
            {"kernel": "gray_vec16", "problem": "3840x2160 planar", "of_ceiling": {"copy (same run)": 0.5}}]})
        write(self.dir, "lines.txt", "noise\nrequest to table at 4096^2, median of 5: 1.234 s\n")
        write(self.dir, "pipeline_check.json", {"rungs": [{"overhead": 0.01}, {"overhead": 0.012}]})
        write(self.dir, "custom_edit_to_result.json", {"backend": "cpu", "median_total_ms": 900})
        figures = os.path.join(self.dir, "budget_figures.json")
        self.assertEqual(check_budgets.main(["--record", "headless_frame_ms_8192x8192", "10.8", "--into", figures]), 0)
        self.assertEqual(check_budgets.main(["--record", "headless_frame_ms_3840x2160", "1.5", "--into", figures]), 0)
        rc, text = self.run_checker("--json", os.path.join(self.dir, "out.json"))
        self.assertEqual(rc, 1, text)
        missed = {l.split()[1].rstrip(":") for l in text.splitlines() if l.startswith("MISSED ")}
        self.assertEqual(missed, {"idle_window_defaults", "sweep_gray_8192_wall", "headless_frame_8192",
                                  "matmul_of_ceiling_at_most_peak"}, text)
        self.assertIn("183", self.line_of(text, "idle_window_defaults"))  # scaled to % of a core
        self.assertIn("1.85", self.line_of(text, "matmul_of_ceiling_at_most_peak"))
        for ok in ("headless_frame_3840x2160", "gray_vec16_of_copy_8192", "matmul_t6_of_cublas_bf16",
                   "source_tab_request_to_table", "pipeline_trace_cost"):
            self.assertTrue(self.line_of(text, ok).endswith(" ok"), self.line_of(text, ok))
        self.assertIn("0.985", self.line_of(text, "gray_vec16_of_copy_8192"))  # the best of the 8192 rows
        self.assertIn("0.97", self.line_of(text, "matmul_t6_of_cublas_bf16"))  # 8192^3, not 4096^3
        # The CPU's edit-to-result is not the GPU budget's figure.
        self.assertIn("not measured", self.line_of(text, "edit_to_result_gpu"))
        self.assertIn("not measured", self.line_of(text, "huge_image_rss"))
        out = self.read(os.path.join(self.dir, "out.json"))
        self.assertEqual(set(out["missed"]), missed)

    def test_a_fixed_ceiling_passes(self):
        write(self.dir, "bench_matmul_bf16.json", {"results": [
            {"kernel": "tc6_cluster_multicast", "problem": "8192x8192x8192 bf16",
             "of_ceiling": {"BF16 tensor-core peak": 0.7, "cuBLAS BF16": 0.98}}]})
        rc, text = self.run_checker()
        self.assertEqual(rc, 0, text)
        self.assertTrue(self.line_of(text, "matmul_of_ceiling_at_most_peak").endswith(" ok"), text)

    def test_an_unreadable_results_file_is_an_error_not_a_pass(self):
        write(self.dir, "sweep_gray_cli.json", "{ not json")
        with redirect_stdout(io.StringIO()):
            self.assertEqual(check_budgets.main([self.dir]), 2)


if __name__ == "__main__":
    unittest.main()
