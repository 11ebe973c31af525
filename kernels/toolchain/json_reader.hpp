// A minimal strict JSON reader (RFC 8259) for the files blockscope reads rather than writes: a
// notebook (.ipynb) dropped on the window. The one writer is kernels/core/json_writer.hpp; the
// tests have their own reader (tests/app/json_reader.hpp), so a bug in one is not mirrored here.
//
//   auto v = bs::toolchain::parse_json(text);         // a value, or where and why it is not JSON
//   if (!v) v.status().message;                    // "line 3, column 14: expected ',' or '}'"
//   for (const JsonValue& cell : v->at("cells").items) cell.at("source");
//
// \u escapes (with surrogate pairs) decode to UTF-8; nesting is limited (256) so a hostile file
// cannot exhaust the stack. Errors are values with the 1-based line and column (in bytes).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace bs::toolchain {

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string str;
  std::vector<JsonValue> items;
  std::map<std::string, JsonValue> members;

  bool is_string() const { return kind == Kind::String; }
  bool is_array() const { return kind == Kind::Array; }
  bool is_object() const { return kind == Kind::Object; }
  // A missing key reads as null, so chains like v.at("a").at("b") never fail.
  const JsonValue& at(const std::string& key) const;
};

Result<JsonValue> parse_json(std::string_view text);

}  // namespace bs::toolchain
