# Writes OUTPUT: a C++ source defining bs::app::<SYMBOL>() as a span over INPUT's bytes, so the
# built-in sample image is part of the executable (it runs with nothing beside it).
#   cmake -DINPUT=file -DOUTPUT=file.cpp -DSYMBOL=name -P embed_binary.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR byte_count "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# Break the initializer into lines so compilers and editors cope.
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){24})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by embed_binary.cmake. Do not edit.
#include <cstdint>
#include <span>
namespace bs::app {
namespace {
const std::uint8_t k_data[${byte_count}] = {
${bytes}
};
}  // namespace
std::span<const std::uint8_t> ${SYMBOL}() { return {k_data, sizeof k_data}; }
}  // namespace bs::app
")
