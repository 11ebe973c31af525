// The lab host (shell/lab_host.hpp) without GL or a window: slots made through a catalog of fake
// labs, the selection and settings asked for applied to them, where an image goes, compute
// switching and the move to the CPU after a device fault. The fakes count what they were asked,
// so each rule is checked against what reached the labs.
#include "shell/lab_host.hpp"

#include <gtest/gtest.h>

#include "fake_lab_view.hpp"

namespace bs::app {
namespace {
using namespace bs::app::test;

class Host : public ::testing::Test {
 protected:
  void SetUp() override {
    script_ = std::make_shared<FakeScript>();
    seen_a_ = std::make_shared<ViewSeen>();
    seen_b_ = std::make_shared<ViewSeen>();
    LaunchScheduler::Options o;
    o.on_fault = [this](const Status& s) { host_->handle_device_fault(s); };
    launches_ = std::make_unique<LaunchScheduler>(o);
  }
  // Two labs: "nums" takes no images and has a GPU-only kernel; "pics" takes images.
  void make(const lab::Backend& backend) {
    LabCatalog catalog = {fake_entry("nums", false, script_, seen_a_, {"n1", "n2"}, {"gpu_only"}),
                          fake_entry("pics", true, script_, seen_b_, {"p1"})};
    ComputeSession session{backend, ""};
    host_ = std::make_unique<LabHost>(state_, messages_, session, std::move(catalog), *launches_, true);
  }
  static Rgba8Image image(int w, const std::string& name) {
    Rgba8Image img;
    img.width = w;
    img.height = 1;
    img.rgba.assign(static_cast<std::size_t>(w) * 4, 7);
    img.name = name;
    return img;
  }

  AppState state_;
  MessageLog messages_;
  std::shared_ptr<FakeScript> script_;
  std::shared_ptr<ViewSeen> seen_a_, seen_b_;
  std::unique_ptr<LaunchScheduler> launches_;
  std::unique_ptr<LabHost> host_;
};

TEST_F(Host, TheCommandLinesSelectionWinsOverTheRememberedOneForTheOpenLabOnly) {
  state_.lab = "nums";
  state_.selection.kernel = "n2";
  state_.selection.block = Dim3{64, 1, 1};
  state_.remembered["nums"].selection.kernel = "n1";
  state_.remembered["pics"].selection.kernel = "p1";
  state_.remembered["pics"].selection.block = Dim3{32, 2, 1};
  make(cpu_backend());
  ASSERT_TRUE(host_->open_lab("nums").ok());
  LabSlot& nums = host_->current();
  EXPECT_EQ(nums.kernel, "n2");
  EXPECT_EQ(nums.config.block, (Dim3{64, 1, 1}));
  ASSERT_TRUE(host_->ensure_view(*host_->slot("pics")).ok());
  EXPECT_EQ(host_->slot("pics")->config.block, (Dim3{32, 2, 1})) << "the other lab opens as it was left";
  EXPECT_EQ(host_->current().id(), "nums") << "opening a view is not opening the lab";
}

TEST_F(Host, ARememberedKernelThatNoLongerExistsIsSaidAndTheDefaultKept) {
  state_.lab = "nums";
  state_.remembered["nums"].selection.kernel = "gone";
  make(cpu_backend());
  ASSERT_TRUE(host_->open_lab("nums").ok());
  EXPECT_EQ(host_->current().kernel, "n1");
  ASSERT_NE(messages_.latest(), nullptr);
  EXPECT_NE(messages_.latest()->text.find("no kernel 'gone'"), std::string::npos) << messages_.latest()->text;
}

TEST_F(Host, SettingsAskedForReachTheLabAndARefusedOneIsSaidAndDropped) {
  state_.lab = "nums";
  state_.lab_settings["nums"] = {{"layout", "rgba"}, {"colour", "blue"}};
  make(cpu_backend());
  ASSERT_TRUE(host_->open_lab("nums").ok());
  EXPECT_EQ(host_->current().view->lab().setting_values().front().second, "rgba");
  EXPECT_EQ(messages_.errors(), 1u) << "the unknown setting";
  EXPECT_EQ(state_.lab_settings["nums"].count("colour"), 0u);
  // A combo's change: kept in the state, and the problem changed (a new fork key, a relaunch).
  LabSlot& s = host_->current();
  s.launch.dirty = false;
  const std::string key = problem_key(s);
  host_->change_setting(s, "layout", "planar");
  EXPECT_EQ(state_.lab_settings["nums"]["layout"], "planar");
  EXPECT_TRUE(s.launch.dirty);
  EXPECT_NE(problem_key(s), key);
  host_->change_setting(s, "layout", "diagonal");
  EXPECT_EQ(messages_.errors(), 2u);
  EXPECT_EQ(state_.lab_settings["nums"]["layout"], "planar");
}

// Issue 36 item 2: a setting that swaps the kernel list (the matmul lab's precision) selects the
// nearest kernel of the new list: the rung of the same number where the backend runs it, else the
// first rung; never a kernel of the old list that every launch would refuse.
TEST_F(Host, ASettingThatSwapsTheKernelListSelectsTheNearestKernelOfTheNewList) {
  state_.lab = "nums";
  make(cpu_backend());
  ASSERT_TRUE(host_->open_lab("nums").ok());
  LabSlot& s = host_->current();
  ASSERT_TRUE(host_->select("n1", KernelConfig{Dim3{64, 1, 1}}).ok());
  host_->change_setting(s, "precision", "bf16");
  EXPECT_EQ(s.kernel, "t_n1") << "the same rung of the new list";
  EXPECT_EQ(s.config.block, (Dim3{128, 1, 1})) << "with that kernel's default configuration";
  EXPECT_TRUE(s.launch.dirty);
  EXPECT_EQ(messages_.errors(), 0u);
  host_->change_setting(s, "precision", "fp32");
  ASSERT_TRUE(host_->select("n2", KernelConfig{Dim3{64, 1, 1}}).ok());
  host_->change_setting(s, "precision", "bf16");
  EXPECT_EQ(s.kernel, "t_n1") << "rung 2 of the new list is beyond this backend: the first rung it runs";
  // A setting that keeps the list keeps the selection.
  host_->change_setting(s, "layout", "rgba");
  EXPECT_EQ(s.kernel, "t_n1");
  EXPECT_NE(s.view->lab().find_kernel(s.kernel), nullptr);
}

TEST_F(Host, AnImageGoesToTheFirstLabThatTakesImagesWhichIsThenOpen) {
  state_.lab = "nums";
  make(cpu_backend());
  ASSERT_TRUE(host_->open_lab("nums").ok());
  host_->current().launch.last.kernel = "n1";  // a launch on the old data
  ASSERT_TRUE(host_->install_image(image(5, "five.png")).ok());
  EXPECT_EQ(state_.lab, "pics");
  EXPECT_EQ(seen_b_->images, 1);
  EXPECT_EQ(seen_a_->images, 0);
  EXPECT_EQ(host_->current().view->lab().problem().name, "five.png");
  // A failed install keeps the lab's image and says why (the caller reports it).
  EXPECT_FALSE(host_->install_image(image(0, "empty.png")).ok());
  EXPECT_EQ(host_->current().view->lab().problem().name, "five.png");
}

TEST_F(Host, WithNoLabThatTakesImagesAnImageIsRefused) {
  LabCatalog catalog = {fake_entry("nums", false, script_, seen_a_, {"n1"})};
  state_.lab = "nums";
  host_ = std::make_unique<LabHost>(state_, messages_, ComputeSession{cpu_backend(), ""}, std::move(catalog),
                                    *launches_, true);
  EXPECT_FALSE(host_->install_image(image(3, "x.png")).ok());
}

TEST_F(Host, SwitchingComputeKeepsTheSelectionWhereTheNewBackendHasItAndForgetsTheRecords) {
  state_.lab = "nums";
  make(cuda_backend());
  ASSERT_TRUE(host_->open_lab("nums").ok());
  ASSERT_TRUE(host_->select("gpu_only", KernelConfig{Dim3{32, 1, 1}}).ok());
  ASSERT_TRUE(host_->ensure_view(*host_->slot("pics")).ok());
  host_->slot("pics")->kernel = "p1";
  for (LabSlot& s : host_->slots()) s.launch.shown.kernel = s.launch.last.kernel = s.kernel;
  host_->switch_compute(ComputeSession{cpu_backend(), "asked for"});
  EXPECT_EQ(host_->backend().kind, BackendKind::CpuSimulation);
  EXPECT_EQ(seen_a_->set_labs, 1);
  EXPECT_EQ(seen_b_->set_labs, 1);
  EXPECT_EQ(host_->current().kernel, "n1") << "cuBLAS-like kernels exist on the GPU only";
  EXPECT_EQ(host_->slot("pics")->kernel, "p1");
  for (const LabSlot& s : host_->slots()) {
    EXPECT_TRUE(s.launch.shown.kernel.empty()) << s.id() << ": a record of the old backend";
    EXPECT_TRUE(s.launch.dirty);
  }
}

TEST_F(Host, AStickyFaultMovesEveryLabToTheCpuAndSaysSo) {
  state_.lab = "nums";
  make(cuda_backend());
  ASSERT_TRUE(host_->open_lab("nums").ok());
  // The fault comes in a launch record, through the scheduler, as on the GPU.
  script_->fault_code = "cudaErrorIllegalAddress";
  ViewContext ctx = host_->context();
  launches_->step(host_->current(), host_->current().view->lab().problem(), false, ctx);
  EXPECT_TRUE(host_->device_faulted());
  EXPECT_EQ(host_->backend().kind, BackendKind::CpuSimulation);
  EXPECT_NE(host_->compute().why_cpu.find("cudaErrorIllegalAddress"), std::string::npos);
  EXPECT_EQ(seen_a_->set_labs, 1) << "the open lab re-installed its problem on the CPU";
}

TEST_F(Host, ResetToDefaultsPutsEveryOpenLabBackAndRelaunchesIt) {
  state_.lab = "nums";
  state_.lab_settings["nums"] = {{"layout", "rgba"}};
  make(cpu_backend());
  ASSERT_TRUE(host_->open_lab("nums").ok());
  ASSERT_TRUE(host_->select("n2", KernelConfig{Dim3{32, 1, 1}}).ok());
  LabSlot& s = host_->current();
  s.launch.continuous = false;
  s.launch.dirty = false;
  s.view->view_state().overlay = OverlayMode::Off;
  host_->reset_to_defaults();
  EXPECT_EQ(s.kernel, "n1");
  EXPECT_EQ(s.config.block, (Dim3{128, 1, 1}));
  EXPECT_EQ(s.view->lab().setting_values().front().second, "planar");
  EXPECT_TRUE(state_.lab_settings["nums"].empty());
  EXPECT_EQ(s.view->view_state().overlay, ViewState{}.overlay);
  EXPECT_TRUE(s.launch.continuous);
  EXPECT_TRUE(s.launch.dirty);
}

}  // namespace
}  // namespace bs::app
