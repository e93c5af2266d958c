# univk_add_test(NAME <name> LABELS <label>... SOURCES <src>... LIBS <lib>...)
# One GoogleTest executable = one CTest test, labelled by area. Every test links the shared
# test main (tests/support), which turns on the Vulkan validation layer and fails any test
# during which the layer printed a message. Tests are white-box: they may include the private
# headers of the library they test, so src/ is on their (private) include path.
# Every SPIR-V graph module the tests write is validated with spirv-val after them: each test
# registered with univk_collect_spirv_modules (univk_add_test does it) gets
# UNIVK_SPIRV_DUMP_DIR=<build>/spirv-modules/<test> (write_tosa_graph copies each module there) and
# requires the fixture `spirv_modules`, whose setup empties the folder and whose cleanup,
# spirv_val_written_modules (tests/spirv/CMakeLists.txt), runs after every such test.
set(UNIVK_SPIRV_MODULE_DIR "${PROJECT_BINARY_DIR}/spirv-modules")
function(univk_collect_spirv_modules)
  foreach(test IN LISTS ARGN)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "UNIVK_SPIRV_DUMP_DIR=${UNIVK_SPIRV_MODULE_DIR}/${test}")
    set_property(TEST ${test} APPEND PROPERTY FIXTURES_REQUIRED spirv_modules)
  endforeach()
endfunction()

function(univk_add_test)
  cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "LABELS;SOURCES;LIBS;ENV" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE univk_test_support ${ARG_LIBS})
  target_include_directories(${ARG_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  univk_test_properties(${ARG_NAME} "${ARG_LABELS}" ${ARG_TIMEOUT} "${ARG_ENV}")
  univk_collect_spirv_modules(${ARG_NAME})
endfunction()

# The properties every univk test gets: labels, timeout, and an environment with validation on,
# sanitizer settings, the external test data and third-party tools, plus `env`.
function(univk_test_properties name labels timeout env)
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT ${timeout}
    ENVIRONMENT "UNIVK_VALIDATION=1;LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/support/lsan.supp;TSAN_OPTIONS=halt_on_error=1:suppressions=${PROJECT_SOURCE_DIR}/tests/support/tsan.supp;UNIVK_TEST_DATA=${PROJECT_SOURCE_DIR}/../shared/testdata;${UNIVK_THIRD_PARTY_TEST_ENV};${env}")
endfunction()

# univk_add_native_graph_run(NAME <name> TEST <test> [ARGS <gtest args>...] [TIMEOUT <s>])
# Runs the executable of univk test <test> again (label vgf_native) on the native VgfBackend
# path: its instances enable Arm's ML emulation layers (UNIVK_INSTANCE_LAYERS, VK_LAYER_PATH with
# the system layer folders after them, so validation stays on) and the VGF test helpers ask
# for vgf_graph_path=native (UNIVK_TEST_VGF_GRAPH_PATH). Added only when the layer was extracted
# (cmake/third_party.cmake); vgf_native_test skips, or fails in CI, without it.
function(univk_add_native_graph_run)
  cmake_parse_arguments(ARG "" "NAME;TEST;TIMEOUT" "ARGS" ${ARGN})
  set(layer "${UNIVK_THIRD_PARTY_DIR}/arm-ml-emulation-layer")
  if(NOT EXISTS "${layer}/graph")
    return()
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 900)
  endif()
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_TEST} ${ARG_ARGS})
  set(system_layers "/usr/local/share/vulkan/explicit_layer.d:/usr/share/vulkan/explicit_layer.d:/etc/vulkan/explicit_layer.d")
  univk_test_properties(${ARG_NAME} vgf_native ${ARG_TIMEOUT}
    "VK_LAYER_PATH=${layer}/graph:${layer}/tensor:${system_layers};UNIVK_INSTANCE_LAYERS=VK_LAYER_ML_Graph_Emulation:VK_LAYER_ML_Tensor_Emulation;UNIVK_TEST_VGF_GRAPH_PATH=native")
endfunction()
