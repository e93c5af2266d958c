// Copies of written SPIR-V graph modules, for checking them with other tools (spirv-val).
//
// When the environment variable UNIVK_SPIRV_DUMP_DIR names a folder, write_tosa_graph also
// writes every module it produces there, as <hash>.spv (the module's words, little endian;
// <hash> is a 64-bit FNV-1a of the words and their count, so a module written twice is one
// file). The test suite sets it for every test (tests/CMakeLists.txt) and validates the folder
// at the end.
//
// Thread-safety: safe to call from several threads and processes at once; each file is written
// under a unique temporary name and renamed into place.
#pragma once

#include <cstdint>
#include <span>

#include "univk/base/status.h"

namespace univk::spirv::detail {

inline constexpr const char* kSpirvDumpDirEnv = "UNIVK_SPIRV_DUMP_DIR";

// Writes `words` into UNIVK_SPIRV_DUMP_DIR (creating the folder) when the variable is set and not
// empty; does nothing otherwise. Internal error naming the path when the file cannot be written.
Status dump_module_if_requested(std::span<const uint32_t> words);

}  // namespace univk::spirv::detail
