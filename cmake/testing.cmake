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
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
    ENVIRONMENT "UNIVK_VALIDATION=1;LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/support/lsan.supp;TSAN_OPTIONS=halt_on_error=1:suppressions=${PROJECT_SOURCE_DIR}/tests/support/tsan.supp;UNIVK_TEST_DATA=${PROJECT_SOURCE_DIR}/../shared/testdata;${UNIVK_THIRD_PARTY_TEST_ENV};${ARG_ENV}")
  univk_collect_spirv_modules(${ARG_NAME})
endfunction()
