# Validates every SPIR-V module under MODULE_DIR with spirv-val --target-env vulkan1.3:
#
#   cmake -DMODULE_DIR=<folder> [-DSPIRV_VAL=<spirv-val>] -P validate_modules.cmake
#
# MODULE_DIR holds one folder per test with the modules it wrote (<hash>.spv, written by
# write_tosa_graph under UNIVK_SPIRV_DUMP_DIR); a module several tests wrote is validated once.
# SPIRV_VAL defaults to $ENV{UNIVK_SPIRV_VAL}. Without a spirv-val the script prints a line with
# "univk: skipped:" (CTest's skip pattern for this test) and succeeds, unless
# UNIVK_REQUIRE_EXTERNAL_TEST_DATA=1, when that is an error. Any invalid module is an error naming
# the tests that wrote it and spirv-val's message.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED SPIRV_VAL)
  set(SPIRV_VAL "$ENV{UNIVK_SPIRV_VAL}")
endif()
if(NOT MODULE_DIR)
  message(FATAL_ERROR "validate_modules.cmake: pass -DMODULE_DIR=<folder>")
endif()

if(SPIRV_VAL STREQUAL "" OR NOT EXISTS "${SPIRV_VAL}")
  set(what "spirv-val '${SPIRV_VAL}' is missing (from ../shared/third_party/spirv-tools.tar.xz)")
  if("$ENV{UNIVK_REQUIRE_EXTERNAL_TEST_DATA}" STREQUAL "1")
    message(FATAL_ERROR "${what}; UNIVK_REQUIRE_EXTERNAL_TEST_DATA=1")
  endif()
  message("univk: skipped: ${what}; the written SPIR-V modules are not validated")
  return()
endif()

file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE "${MODULE_DIR}" "${MODULE_DIR}/*.spv")
# hash -> the files (test/hash.spv) holding that module.
set(hashes "")
foreach(file IN LISTS files)
  get_filename_component(hash "${file}" NAME_WE)
  list(APPEND hashes "${hash}")
  list(APPEND "files_${hash}" "${file}")
endforeach()
list(REMOVE_DUPLICATES hashes)

set(failures "")
set(failed 0)
foreach(hash IN LISTS hashes)
  list(GET "files_${hash}" 0 first)
  execute_process(COMMAND "${SPIRV_VAL}" --target-env vulkan1.3 "${MODULE_DIR}/${first}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc STREQUAL "0")
    math(EXPR failed "${failed} + 1")
    string(REPLACE ";" ", " writers "${files_${hash}}")
    string(APPEND failures "\n${MODULE_DIR}/${first} (written by ${writers}):\n${out}")
  endif()
endforeach()

list(LENGTH files file_count)
list(LENGTH hashes module_count)
if(failed GREATER 0)
  message(FATAL_ERROR "spirv-val --target-env vulkan1.3: ${failed} of ${module_count} modules are invalid${failures}")
endif()
message("spirv-val --target-env vulkan1.3: ${module_count} distinct modules valid (${file_count} files under ${MODULE_DIR})")
