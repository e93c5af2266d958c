# Script mode: turns one .spv file into a C++ source defining NAMESPACE::NAME_spv().
file(READ ${SPV} bytes HEX)
string(LENGTH "${bytes}" hex_len)
math(EXPR word_count "${hex_len} / 8")
set(words "")
set(i 0)
while(i LESS hex_len)
  # SPIR-V words are little-endian in the file.
  string(SUBSTRING "${bytes}" ${i} 8 w)
  string(SUBSTRING "${w}" 6 2 b3)
  string(SUBSTRING "${w}" 4 2 b2)
  string(SUBSTRING "${w}" 2 2 b1)
  string(SUBSTRING "${w}" 0 2 b0)
  string(APPEND words "0x${b3}${b2}${b1}${b0}u,")
  math(EXPR i "${i} + 8")
  math(EXPR rem "${i} % 64")
  if(rem EQUAL 0)
    string(APPEND words "\n")
  endif()
endwhile()
file(WRITE ${OUT}
  "// Generated from ${NAME}.spv by cmake/embed_spirv.cmake. Do not edit.\n"
  "#include <cstdint>\n#include <span>\n"
  "namespace ${NAMESPACE} {\nnamespace {\nconst uint32_t k_words[${word_count}] = {\n${words}};\n}  // namespace\n"
  "std::span<const uint32_t> ${NAME}_spv() { return k_words; }\n}  // namespace ${NAMESPACE}\n")
