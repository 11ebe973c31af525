#include "shell/status_report.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <system_error>

#include "core/json_writer.hpp"

namespace bs::app {
namespace fs = std::filesystem;

std::uint64_t fnv1a64(const std::uint8_t* data, std::size_t size) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {

void dim3_array(JsonWriter& w, const Dim3& d) { w.begin_array().value(d.x).value(d.y).value(d.z).end_array(); }

}  // namespace

std::string status_report_json(const StatusReport& r, bool with_frame) {
  JsonWriter w;
  w.begin_object();
  if (with_frame) w.field("frame", r.frame);
  w.field("lab", r.lab);
  w.field("loading", r.loading);
  if (r.data) {
    w.key("data").begin_object();
    w.field("name", r.data->name).field("width", r.data->width).field("height", r.data->height);
    w.end_object();
  }
  if (r.launch) {
    w.key("launch").begin_object();
    w.field("kernel", r.launch->kernel);
    w.key("grid");
    dim3_array(w, r.launch->grid);
    w.key("block");
    dim3_array(w, r.launch->block);
    w.field("ok", r.launch->ok).field("message", r.launch->message);
    w.end_object();
  }
  if (r.output) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(r.output->fnv1a64));
    w.key("output").begin_object();
    w.field("fnv1a64", hex).field("width", r.output->width).field("height", r.output->height);
    w.end_object();
  }
  w.field("status_message", r.status_message);
  w.field("errors", static_cast<unsigned long long>(r.errors));
  w.key("messages").begin_array();
  for (const auto& m : r.messages) w.begin_object().field("level", m.level).field("text", m.text).end_object();
  w.end_array();
  if (r.ui) {
    w.key("ui").begin_object();
    w.field("help", r.ui->help)
        .field("file_browser", r.ui->file_browser)
        .field("messages_window", r.ui->messages_window);
    w.field("fullscreen", r.ui->fullscreen).field("text_scale", static_cast<double>(r.ui->text_scale));
    w.field("left_open", r.ui->left_open).field("side_open", r.ui->side_open).field("panel", r.ui->panel);
    w.field("centre", r.ui->centre);
    w.field("launch_in_flight", r.ui->launch_in_flight).field("popup_open", r.ui->popup_open);
    w.field("state", r.ui->state).field("notice", r.ui->notice);
    w.field("frame_ms", std::round(r.ui->frame_ms * 10) / 10);
    w.end_object();
  }
  w.end_object();
  return w.str() + "\n";
}

Status StatusFileWriter::update(const StatusReport& report) {
  std::string body = status_report_json(report, false);
  if (last_written_ && *last_written_ == body) return Status::success();
  // A reader must never see half a file: write a sibling, then rename it over the old one (an
  // atomic replace on POSIX file systems).
  const fs::path tmp = fs::path(path_) += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    const std::string json = status_report_json(report, true);
    out.write(json.data(), static_cast<std::streamsize>(json.size()));
    out.close();
    if (!out)
      return Status::failure("could not write the status file " + tmp.string(),
                             "check that the folder exists and is writable", "--status-file");
  }
  std::error_code ec;
  fs::rename(tmp, path_, ec);
  if (ec)
    return Status::failure("could not rename " + tmp.string() + " to " + path_.string() + ": " + ec.message(),
                           "check that the folder exists and is writable", "--status-file");
  last_written_ = std::move(body);
  return Status::success();
}

}  // namespace bs::app
