#include "toolchain/json_reader.hpp"

#include <cstdlib>

namespace bs::toolchain {

const JsonValue& JsonValue::at(const std::string& key) const {
  static const JsonValue null_value;  // immutable: the one "missing" answer
  auto it = members.find(key);
  return it == members.end() ? null_value : it->second;
}

namespace {

constexpr int kMaxDepth = 256;

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Result<JsonValue> document() {
    JsonValue v;
    space();
    if (!value(v, 0)) return fail();
    space();
    if (i_ != s_.size()) {
      error_ = "text after the end of the JSON value";
      return fail();
    }
    return v;
  }

 private:
  Status fail() const {
    int line = 1, column = 1;
    for (std::size_t k = 0; k < i_ && k < s_.size(); ++k) {
      if (s_[k] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return Status::failure("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + error_, "",
                           "parse_json");
  }
  bool err(const char* what) {
    if (error_.empty()) error_ = what;
    return false;
  }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool literal(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return err("not a JSON value");
    i_ += w.size();
    return true;
  }

  bool value(JsonValue& v, int depth) {
    if (depth > kMaxDepth) return err("nested more than 256 deep");
    if (i_ >= s_.size()) return err("the text ends where a value should be");
    switch (s_[i_]) {
      case '{': return object(v, depth);
      case '[': return array(v, depth);
      case '"': v.kind = JsonValue::Kind::String; return string(v.str);
      case 't':
        v.kind = JsonValue::Kind::Bool;
        v.boolean = true;
        return literal("true");
      case 'f': v.kind = JsonValue::Kind::Bool; return literal("false");
      case 'n': v.kind = JsonValue::Kind::Null; return literal("null");
      default: return number(v);
    }
  }

  bool object(JsonValue& v, int depth) {
    v.kind = JsonValue::Kind::Object;
    ++i_;
    space();
    if (eat('}')) return true;
    for (;;) {
      space();
      if (i_ >= s_.size() || s_[i_] != '"') return err("expected a \"key\" string");
      std::string key;
      if (!string(key)) return false;
      space();
      if (!eat(':')) return err("expected ':' after the key");
      space();
      JsonValue member;
      if (!value(member, depth + 1)) return false;
      v.members[key] = std::move(member);
      space();
      if (eat('}')) return true;
      if (!eat(',')) return err("expected ',' or '}' in an object");
    }
  }

  bool array(JsonValue& v, int depth) {
    v.kind = JsonValue::Kind::Array;
    ++i_;
    space();
    if (eat(']')) return true;
    for (;;) {
      space();
      JsonValue item;
      if (!value(item, depth + 1)) return false;
      v.items.push_back(std::move(item));
      space();
      if (eat(']')) return true;
      if (!eat(',')) return err("expected ',' or ']' in an array");
    }
  }

  static void utf8(std::string& out, unsigned cp) {
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
  bool hex4(unsigned& cp) {
    if (i_ + 4 > s_.size()) return err("a \\u escape needs four hex digits");
    cp = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') cp |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') cp |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') cp |= static_cast<unsigned>(c - 'A' + 10);
      else return err("a \\u escape needs four hex digits");
    }
    return true;
  }

  bool string(std::string& out) {
    ++i_;  // the opening quote
    for (;;) {
      if (i_ >= s_.size()) return err("a string is not closed");
      const char c = s_[i_];
      if (c == '"') {
        ++i_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return err("a control character inside a string (write it as \\n, \\t, ...)");
      if (c != '\\') {
        out += c;
        ++i_;
        continue;
      }
      if (++i_ >= s_.size()) return err("a string is not closed");
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
          unsigned cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00) {
            unsigned low = 0;
            if (!eat('\\') || !eat('u') || !hex4(low) || low < 0xDC00 || low >= 0xE000)
              return err("a \\u surrogate pair is incomplete");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          utf8(out, cp);
          break;
        }
        default: --i_; return err("an unknown escape in a string");
      }
    }
  }

  bool number(JsonValue& v) {
    const std::size_t start = i_;
    eat('-');
    if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') {
      i_ = start;
      return err("not a JSON value");
    }
    if (!eat('0'))
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    if (eat('.')) {
      if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') return err("a digit must follow '.'");
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (!eat('+')) eat('-');
      if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') return err("a digit must follow the exponent");
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    v.kind = JsonValue::Kind::Number;
    v.number = std::strtod(std::string(s_.substr(start, i_ - start)).c_str(), nullptr);
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string error_;
};

}  // namespace

Result<JsonValue> parse_json(std::string_view text) { return Parser(text).document(); }

}  // namespace bs::toolchain
