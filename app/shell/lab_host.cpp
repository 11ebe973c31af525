#include "shell/lab_host.hpp"

namespace bs::app {

LabHost::LabHost(AppState& state, MessageLog& messages, ComputeSession compute, LabCatalog catalog,
                 LaunchScheduler& launches, bool headless)
    : state_(state),
      messages_(messages),
      compute_(std::move(compute)),
      catalog_(std::move(catalog)),
      launches_(launches),
      headless_(headless) {
  slots_.resize(catalog_.size());
  for (std::size_t i = 0; i < catalog_.size(); ++i) slots_[i].entry = &catalog_[i];
}

ViewContext LabHost::context() { return ViewContext{messages_, compute_.backend, headless_, frame_}; }

LabSlot* LabHost::slot(const std::string& id) {
  for (LabSlot& s : slots_)
    if (s.id() == id) return &s;
  return nullptr;
}

const LabSlot* LabHost::slot(const std::string& id) const {
  for (const LabSlot& s : slots_)
    if (s.id() == id) return &s;
  return nullptr;
}

LabSlot& LabHost::current() {
  LabSlot* s = slot(state_.lab);
  return s ? *s : slots_.front();
}

const LabSlot& LabHost::current() const {
  const LabSlot* s = slot(state_.lab);
  return s ? *s : slots_.front();
}

std::vector<std::string> LabHost::lab_ids() const {
  std::vector<std::string> ids;
  for (const LabEntry& e : catalog_) ids.push_back(e.id);
  return ids;
}

Status LabHost::ensure_view(LabSlot& s) {
  if (s.view) return Status::success();
  if (!s.failure.ok()) return s.failure;
  auto lab = s.entry->make_lab(compute_.backend);
  if (!lab) {
    s.failure = lab.status();
    messages_.error(s.failure);
    return s.failure;
  }
  // What the command line names wins; the rest comes from the settings kept (state/user_settings.hpp).
  const LabMemory* memory = nullptr;
  if (auto it = state_.remembered.find(s.id()); it != state_.remembered.end()) memory = &it->second;
  const bool opened = s.id() == state_.lab;
  LabViewSetup setup;
  if (memory && memory->view) {
    setup.view.compare = memory->view->compare;
    setup.view.split = memory->view->split;
    setup.view.overlay = memory->view->overlay;
    setup.view.overlay_opacity = memory->view->overlay_opacity;
  }
  if (opened && state_.view_given) setup.view = state_.view;
  for (const LabOption& o : s.entry->options) {
    if (auto it = state_.lab_options.find(o.flag); it != state_.lab_options.end()) {
      setup.options[o.flag] = it->second;
    } else if (memory) {
      auto kept = memory->options.find(o.flag);
      if (kept == memory->options.end()) continue;
      if (Status st = o.check(kept->second); !st)
        messages_.warn("Settings: " + o.flag + ": " + st.message, "kept the default");
      else setup.options[o.flag] = kept->second;
    }
  }
  ViewContext ctx = context();
  auto view = s.entry->make_view(std::move(lab.value()), setup, ctx);
  if (!view) {
    s.failure = view.status();
    messages_.error(s.failure);
    return s.failure;
  }
  s.view = std::move(view.value());
  apply_settings(s);
  const auto& kernels = s.view->lab().kernels();
  if (!kernels.empty()) {
    s.kernel = kernels.front().id;
    s.config = s.view->lab().default_config(kernels.front());
  }
  const SelectionRequest& asked = state_.selection;
  const bool selection_given = !asked.kernel.empty() || asked.block || asked.compiled;
  if (opened && selection_given) apply_selection_request(s, asked);
  else if (memory) apply_selection_request(s, memory->selection);
  s.launch.dirty = true;
  return Status::success();
}

// The settings asked for this lab (the command line, the settings file, a combo) onto its lab;
// a refused one is said and dropped.
void LabHost::apply_settings(LabSlot& s) {
  auto it = state_.lab_settings.find(s.id());
  if (it == state_.lab_settings.end()) return;
  for (auto kv = it->second.begin(); kv != it->second.end();) {
    if (Status st = s.view->lab().set_setting(kv->first, kv->second); !st) {
      messages_.error(st);
      kv = it->second.erase(kv);
    } else {
      ++kv;
    }
  }
}

// The command line's kernel and configuration, whatever order its flags came in: a kernel's
// default first, then the block or configuration asked for.
void LabHost::apply_selection_request(LabSlot& s, const SelectionRequest& r) {
  const lab::Lab& lab = s.view->lab();
  if (!r.kernel.empty()) {
    const lab::KernelInfo* k = lab.find_kernel(r.kernel);
    if (!k) {
      messages_.warn("The " + std::string(lab.title()) + " lab has no kernel '" + r.kernel + "'",
                     "see the kernel list");
    } else {
      s.kernel = k->id;
      s.config = lab.default_config(*k);
    }
  }
  const lab::KernelInfo* k = lab.find_kernel(s.kernel);
  if (r.block) s.config.block = *r.block;
  if (r.compiled && k) {
    s.config.compiled = *r.compiled;
    if (*r.compiled >= 0 && *r.compiled < static_cast<int>(k->configs.size()))
      s.config.block = k->configs[static_cast<std::size_t>(*r.compiled)].block;
  }
  s.launch.dirty = true;
}

Status LabHost::open_lab(const std::string& id) {
  LabSlot* s = slot(id);
  if (!s) return Status::failure("there is no lab '" + id + "'", "", "open_lab");
  state_.lab = id;
  return ensure_view(*s);
}

Status LabHost::check_selection_request() const {
  const std::string& asked = state_.selection.kernel;
  const LabSlot& s = current();
  if (asked.empty() || !s.view || s.view->lab().find_kernel(asked)) return Status::success();
  std::string list;
  for (const lab::KernelInfo& k : s.view->lab().kernels()) list += (list.empty() ? "" : " ") + k.id;
  return Status::failure("the " + std::string(s.view->lab().title()) + " lab has no kernel '" + asked + "'",
                         "it has: " + list, "--kernel");
}

Status LabHost::select(const std::string& kernel, const KernelConfig& config) {
  LabSlot& s = current();
  if (Status st = ensure_view(s); !st) return st;
  if (!s.view->lab().find_kernel(kernel))
    return Status::failure("no kernel '" + kernel + "' in this lab", "", "select");
  choose(s, kernel, config);
  return Status::success();
}

void LabHost::choose(LabSlot& s, const std::string& kernel, const KernelConfig& config) {
  s.kernel = kernel;
  s.config = config;
  s.launch.dirty = true;
}

namespace {

bool is_rung(const lab::KernelInfo& k) { return k.group == KernelGroup::Lecture || k.group == KernelGroup::Ladder; }

// Where `kernel` stands on the lab's ladder (0 for the first rung); 0 for a kernel off the ladder.
std::size_t rung_number(const lab::Lab& lab, const std::string& kernel) {
  std::size_t n = 0;
  for (const lab::KernelInfo& k : lab.kernels()) {
    if (!is_rung(k)) continue;
    if (k.id == kernel) return n;
    ++n;
  }
  return 0;
}

// The kernel of the lab's list nearest to rung `rung` of another list: the rung of the same
// number where this backend can run it, else the first rung it can run, else the first kernel.
const lab::KernelInfo* nearest_rung(const lab::Lab& lab, std::size_t rung) {
  const lab::KernelInfo* first_runnable = nullptr;
  std::size_t n = 0;
  for (const lab::KernelInfo& k : lab.kernels()) {
    if (!is_rung(k)) continue;
    if (n++ == rung && k.unavailable.empty()) return &k;
    if (!first_runnable && k.unavailable.empty()) first_runnable = &k;
  }
  if (first_runnable) return first_runnable;
  return lab.kernels().empty() ? nullptr : &lab.kernels().front();
}

}  // namespace

void LabHost::change_setting(LabSlot& s, const std::string& key, const std::string& value) {
  const std::size_t rung = rung_number(s.view->lab(), s.kernel);
  if (Status st = s.view->lab().set_setting(key, value); !st) {
    messages_.error(st);
    return;
  }
  state_.lab_settings[s.id()][key] = value;
  // A setting that swaps the kernel list (the matmul lab's precision) takes the selection to the
  // nearest kernel of the new list, never leaves one the lab would refuse.
  if (!s.view->lab().find_kernel(s.kernel))
    if (const lab::KernelInfo* k = nearest_rung(s.view->lab(), rung)) {
      s.kernel = k->id;
      s.config = s.view->lab().default_config(*k);
    }
  problem_changed(s);
}

Status LabHost::install_image(Rgba8Image image) {
  LabSlot* target = nullptr;
  if (ensure_view(current()).ok() && current().view->accepts_images()) target = &current();
  for (LabSlot& s : slots_) {
    if (target) break;
    if (ensure_view(s).ok() && s.view->accepts_images()) target = &s;
  }
  if (!target) return Status::failure("no lab takes images", "", "install_image");
  ViewContext ctx = context();
  if (Status s = target->view->install_image(std::move(image), ctx); !s) return s;
  state_.lab = target->id();
  problem_changed(*target);
  return Status::success();
}

void LabHost::problem_changed(LabSlot& s) { launches_.problem_changed(s); }

void LabHost::handle_device_fault(const Status& fault) {
  messages_.error(fault);
  auto cpu = open_compute_session(BackendChoice::Cpu, -1, false);
  if (!cpu) {
    messages_.error(cpu.status());
    return;
  }
  cpu->why_cpu = "the GPU faulted (" + fault.code +
                 "); blockscope moved to the CPU simulation. "
                 "Restart it to use the GPU again.";
  device_faulted_ = true;
  messages_.warn("The GPU faulted: switched to the CPU simulation, your data is kept", cpu->why_cpu);
  switch_compute(std::move(cpu.value()));
}

void LabHost::switch_compute(ComputeSession next) {
  compute_ = std::move(next);
  launches_.compute_changed(slots_);
  for (LabSlot& s : slots_) {
    if (!s.view) {
      s.failure = Status::success();  // a lab that failed on the old backend may work here
      continue;
    }
    auto lab = s.entry->make_lab(compute_.backend);
    if (!lab) {
      messages_.error(lab.status());
      s.view.reset();
      s.failure = lab.status();
      continue;
    }
    ViewContext ctx = context();
    if (Status st = s.view->set_lab(std::move(lab.value()), ctx); !st) messages_.error(st);
    apply_settings(s);
    // The selection stays if the new backend's lab has the kernel (cuBLAS exists on the GPU only).
    if (!s.view->lab().find_kernel(s.kernel) && !s.view->lab().kernels().empty()) {
      s.kernel = s.view->lab().kernels().front().id;
      s.config = s.view->lab().default_config(s.view->lab().kernels().front());
    }
  }
}

void LabHost::reset_to_defaults() {
  for (LabSlot& s : slots_) {
    state_.lab_settings[s.id()].clear();
    if (!s.view) continue;
    lab::Lab& lab = s.view->lab();
    for (const lab::Setting& set : lab.settings())
      if (!set.choices.empty() && set.value != set.choices.front())
        if (Status st = lab.set_setting(set.key, set.choices.front()); !st) messages_.error(st);
    s.view->reset_options();
    ViewState& v = s.view->view_state();
    v = ViewState{};
    s.view->reset_view();
    const auto& kernels = lab.kernels();
    if (!kernels.empty()) {
      s.kernel = kernels.front().id;
      s.config = lab.default_config(kernels.front());
    }
    s.launch.continuous = true;
    s.launch.paused_slow = false;
    ++s.launch.problem_gen;
    s.launch.dirty = true;
  }
}

}  // namespace bs::app
