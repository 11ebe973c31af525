// Forms by meaning, not spelling: the element types of a kernel's pointer parameter that mean
// the same bytes as a form's. The one table; source_parse.cpp matches with it and codegen.cpp
// views or casts the buffer as the kernel's own type.
#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "lab/user_kernel_spec.hpp"

namespace bs::custom {

struct ElementSpelling {
  std::string_view bits;                    // UserParam::bits, or "" for a plain C type
  std::string_view type;                    // the form's UserParam::type
  std::vector<std::string_view> spellings;  // normalised element types a kernel may write
  std::string_view what;                    // for messages: "BF16"
};

inline const std::vector<ElementSpelling>& element_spellings() {
  static const std::vector<ElementSpelling> table = {
      {"bf16", "unsigned short", {"unsigned short", "uint16_t", "__nv_bfloat16", "nv_bfloat16"}, "BF16"},
      {"fp16", "unsigned short", {"unsigned short", "uint16_t", "__half", "half"}, "FP16"},
      {"", "unsigned char", {"unsigned char", "uint8_t"}, ""},
      {"", "unsigned short", {"unsigned short", "uint16_t"}, ""},
      {"", "unsigned", {"unsigned", "uint32_t"}, ""},
      {"", "int", {"int", "int32_t"}, ""},
      {"", "float", {"float"}, ""},
  };
  return table;
}

inline const ElementSpelling* element_spelling(const lab::UserParam& f) {
  for (const ElementSpelling& e : element_spellings())
    if (e.bits == f.bits && e.type == f.type) return &e;
  return nullptr;
}

// Whether a kernel's element type `t` (normalised) means the bytes of form parameter `f`.
inline bool same_bytes(std::string_view t, const lab::UserParam& f) {
  if (t == f.type) return true;
  const ElementSpelling* e = element_spelling(f);
  return e && std::find(e->spellings.begin(), e->spellings.end(), t) != e->spellings.end();
}

// Why `t` is not `f`'s when it names a 16-bit float of another kind ("__half is FP16, ..."), or "".
inline std::string other_meaning(std::string_view t, const lab::UserParam& f) {
  const ElementSpelling* mine = element_spelling(f);
  if (!mine || mine->bits.empty()) return {};
  for (const ElementSpelling& e : element_spellings())
    if (&e != mine && !e.bits.empty() && std::find(e.spellings.begin(), e.spellings.end(), t) != e.spellings.end() &&
        t != f.type)
      return std::string(t) + " is " + std::string(e.what) + ", this parameter holds " + std::string(mine->what) +
             " numbers (write " + std::string(mine->spellings[2]) + "* or " + f.type + "*)";
  return {};
}

}  // namespace bs::custom
