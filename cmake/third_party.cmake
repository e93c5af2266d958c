# Prebuilt third-party tools that some tests use, from ../shared/third_party (not part of univk;
# see that folder's README). When an archive is there, configuration extracts it once into
# ${PROJECT_BINARY_DIR}/third_party; tests find the results through the environment variables
# below (set on every test by univk_add_test) and skip, or fail under
# UNIVK_REQUIRE_EXTERNAL_TEST_DATA=1, when they are missing.
#
#   UNIVK_SPIRV_VAL             a spirv-val that knows SPV_ARM_graph and TOSA.001000.1
#   UNIVK_ARM_EMULATION_LAYER   Arm's ML emulation layer: graph/ and tensor/ layer manifests whose
#                               library_path is absolute, so only VK_LAYER_PATH needs setting
set(UNIVK_SHARED_THIRD_PARTY "${PROJECT_SOURCE_DIR}/../shared/third_party" CACHE PATH
  "Folder with the prebuilt third-party tool archives some tests use")
set(UNIVK_THIRD_PARTY_DIR "${PROJECT_BINARY_DIR}/third_party")

# Extracts <archive> into UNIVK_THIRD_PARTY_DIR unless the stamp says this archive already is.
function(univk_extract_third_party archive)
  set(source "${UNIVK_SHARED_THIRD_PARTY}/${archive}")
  if(NOT EXISTS "${source}")
    return()
  endif()
  file(SHA256 "${source}" hash)
  set(stamp "${UNIVK_THIRD_PARTY_DIR}/${archive}.stamp")
  if(EXISTS "${stamp}")
    file(READ "${stamp}" previous)
    if(previous STREQUAL hash)
      return()
    endif()
  endif()
  file(ARCHIVE_EXTRACT INPUT "${source}" DESTINATION "${UNIVK_THIRD_PARTY_DIR}")
  file(WRITE "${stamp}" "${hash}")
endfunction()

univk_extract_third_party(spirv-tools.tar.xz)
univk_extract_third_party(arm-ml-emulation-layer.tar.xz)

# The layer manifests name their library without a folder, which the loader would look up on
# LD_LIBRARY_PATH (read once at process start); absolute paths let a process enable the layers
# by setting VK_LAYER_PATH alone.
set(emulation_layer "${UNIVK_THIRD_PARTY_DIR}/arm-ml-emulation-layer")
foreach(layer graph tensor)
  file(GLOB manifests "${emulation_layer}/${layer}/*.json")
  foreach(manifest IN LISTS manifests)
    file(READ "${manifest}" text)
    string(REGEX REPLACE "\"library_path\": *\"(lib[^\"/]*)\""
      "\"library_path\": \"${emulation_layer}/${layer}/\\1\"" text "${text}")
    file(WRITE "${manifest}" "${text}")
  endforeach()
endforeach()

set(UNIVK_THIRD_PARTY_TEST_ENV
  "UNIVK_SPIRV_VAL=${UNIVK_THIRD_PARTY_DIR}/spirv-tools/spirv-val"
  "UNIVK_ARM_EMULATION_LAYER=${emulation_layer}")
