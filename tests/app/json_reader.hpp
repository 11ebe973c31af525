// A small JSON reader for tests that read what the app wrote (--status-file). Written for the
// tests from RFC 8259, separately from the app's writer (kernels/core/json_writer.hpp), so a bug
// in one is not mirrored by the other. Strict enough to reject truncated files; \u escapes
// (with surrogate pairs) decode to UTF-8; bytes >= 0x80 pass through unchecked.
//
//   auto v = bs::test::parse_json(text);   // std::nullopt if not valid JSON
//   if (v && v->has("image")) v->at("image").at("name").str;
#pragma once
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bs::test {

struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string str;
  std::vector<JsonValue> items;
  std::map<std::string, JsonValue> members;

  bool has(const std::string& key) const { return kind == Object && members.count(key) != 0; }
  // A missing key or index reads as null, so chains like v.at("a").at("b") never throw.
  const JsonValue& at(const std::string& key) const {
    static const JsonValue null_value;
    auto it = members.find(key);
    return it == members.end() ? null_value : it->second;
  }
  const JsonValue& at(std::size_t i) const {
    static const JsonValue null_value;
    return i < items.size() ? items[i] : null_value;
  }
};

namespace json_detail {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::optional<JsonValue> document() {
    JsonValue v;
    if (!value(v, 0)) return std::nullopt;
    space();
    if (i_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  bool value(JsonValue& v, int depth) {
    if (depth > 64) return false;
    space();
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '{') return object(v, depth);
    if (c == '[') return array(v, depth);
    if (c == '"') {
      v.kind = JsonValue::String;
      return string(v.str);
    }
    if (literal("true")) {
      v.kind = JsonValue::Bool;
      v.boolean = true;
      return true;
    }
    if (literal("false")) {
      v.kind = JsonValue::Bool;
      v.boolean = false;
      return true;
    }
    if (literal("null")) {
      v.kind = JsonValue::Null;
      return true;
    }
    return number(v);
  }
  bool object(JsonValue& v, int depth) {
    v.kind = JsonValue::Object;
    ++i_;  // {
    space();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return true;
    }
    for (;;) {
      space();
      std::string key;
      if (i_ >= s_.size() || s_[i_] != '"' || !string(key)) return false;
      space();
      if (i_ >= s_.size() || s_[i_++] != ':') return false;
      if (!value(v.members[key], depth + 1)) return false;
      space();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (s_[i_] == '}') {
        ++i_;
        return true;
      }
      return false;
    }
  }
  bool array(JsonValue& v, int depth) {
    v.kind = JsonValue::Array;
    ++i_;  // [
    space();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return true;
    }
    for (;;) {
      v.items.emplace_back();
      if (!value(v.items.back(), depth + 1)) return false;
      space();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (s_[i_] == ']') {
        ++i_;
        return true;
      }
      return false;
    }
  }
  bool hex4(std::uint32_t& out) {
    if (i_ + 4 > s_.size()) return false;
    out = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[i_++];
      out <<= 4;
      if (h >= '0' && h <= '9') out |= static_cast<std::uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') out |= static_cast<std::uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') out |= static_cast<std::uint32_t>(h - 'A' + 10);
      else return false;
    }
    return true;
  }
  static void utf8(std::uint32_t cp, std::string& out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  bool string(std::string& out) {
    ++i_;  // opening quote
    while (i_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return true;
      if (c < 0x20) return false;  // control characters must be escaped
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (i_ >= s_.size()) return false;
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00) {  // a high surrogate needs its low half
            std::uint32_t low = 0;
            if (!literal("\\u") || !hex4(low) || low < 0xDC00 || low >= 0xE000) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          utf8(cp, out);
          break;
        }
        default: return false;
      }
    }
    return false;  // unterminated
  }
  bool number(JsonValue& v) {
    const std::size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    bool digits = false;
    while (i_ < s_.size() && ((s_[i_] >= '0' && s_[i_] <= '9') || s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E' ||
                              s_[i_] == '+' || s_[i_] == '-')) {
      digits |= s_[i_] >= '0' && s_[i_] <= '9';
      ++i_;
    }
    if (!digits) return false;
    const std::string text(s_.substr(start, i_ - start));
    char* end = nullptr;
    v.number = std::strtod(text.c_str(), &end);
    v.kind = JsonValue::Number;
    return end == text.c_str() + text.size();
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace json_detail

inline std::optional<JsonValue> parse_json(std::string_view text) { return json_detail::Parser(text).document(); }

}  // namespace bs::test
