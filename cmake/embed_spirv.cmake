# Script mode: turns one .spv file into a C++ source defining NAMESPACE::NAME_spv().
file(READ ${SPV} bytes HEX)
string(LENGTH "${bytes}" hex_len)
math(EXPR word_count "${hex_len} / 8")
# SPIR-V words are little-endian in the file: each 4 bytes become one word, bytes reversed; 8
# words a line. Two regular-expression passes (linear in the size, unlike a SUBSTRING loop).
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${bytes}")
set(word "0x[0-9a-f]+u,")
string(REGEX REPLACE "(${word}${word}${word}${word}${word}${word}${word}${word})" "\\1\n" words "${words}")
file(WRITE ${OUT}
  "// Generated from ${NAME}.spv by cmake/embed_spirv.cmake. Do not edit.\n"
  "#include <cstdint>\n#include <span>\n"
  "namespace ${NAMESPACE} {\nnamespace {\nconst uint32_t k_words[${word_count}] = {\n${words}};\n}  // namespace\n"
  "std::span<const uint32_t> ${NAME}_spv() { return k_words; }\n}  // namespace ${NAMESPACE}\n")
