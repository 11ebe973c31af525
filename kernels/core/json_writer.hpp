// A small streaming JSON writer for benchmark results and schedule exports (no dependency for
// one output format). Commas are inserted automatically; strings are escaped.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace bs {

class JsonWriter {
 public:
  JsonWriter& begin_object() {
    value_prefix();
    out_ += '{';
    first_.push_back(true);
    return *this;
  }
  JsonWriter& end_object() {
    out_ += '}';
    first_.pop_back();
    return *this;
  }
  JsonWriter& begin_array() {
    value_prefix();
    out_ += '[';
    first_.push_back(true);
    return *this;
  }
  JsonWriter& end_array() {
    out_ += ']';
    first_.pop_back();
    return *this;
  }

  JsonWriter& key(std::string_view k) {
    comma();
    string_literal(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(std::string_view s) {
    value_prefix();
    string_literal(s);
    return *this;
  }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b) {
    value_prefix();
    out_ += b ? "true" : "false";
    return *this;
  }
  JsonWriter& value(double d) {
    value_prefix();
    if (!std::isfinite(d)) {
      out_ += "null";
      return *this;
    }
    // Ten significant digits: 6 rounded a wave count of 24520.03 to 24520 (and any figure above
    // a million lost its units); 17 would print measuring noise as digits.
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", d);
    out_ += buf;
    return *this;
  }
  JsonWriter& value(long long v) {
    value_prefix();
    out_ += std::to_string(v);
    return *this;
  }
  JsonWriter& value(unsigned long long v) {
    value_prefix();
    out_ += std::to_string(v);
    return *this;
  }
  JsonWriter& value(int v) { return value(static_cast<long long>(v)); }
  JsonWriter& value(unsigned v) { return value(static_cast<unsigned long long>(v)); }
  JsonWriter& value(unsigned long v) { return value(static_cast<unsigned long long>(v)); }
  JsonWriter& value(long v) { return value(static_cast<long long>(v)); }
  JsonWriter& value(float f) { return value(static_cast<double>(f)); }

  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    return key(k).value(v);
  }

  const std::string& str() const { return out_; }

 private:
  void comma() {
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  void value_prefix() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    comma();
  }
  void string_literal(std::string_view s) {
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\t': out_ += "\\t"; break;
        case '\r': out_ += "\\r"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }
  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace bs
