# Every univk build option lives in this file. Backends are independent: turning one off
# changes nothing in the behaviour of the other.
option(UNIVK_BUILD_VGF "Build the VGF format library, SPIR-V graph reader and the VgfBackend" ON)
option(UNIVK_BUILD_VULKAN_BACKEND "Build the VulkanBackend (compute-shader operator library)" ON)
option(UNIVK_BUILD_COMPILER "Build the graph compiler (needs both backends' payload writers)" ON)
# An application that adds univk with add_subdirectory gets the libraries only, unless it asks.
option(UNIVK_BUILD_PYTHON "Build the pybind11 Python module (univk.export / univk.load)" ${PROJECT_IS_TOP_LEVEL})
option(UNIVK_BUILD_TOOLS "Build univk-dump, univk-run and univk-bench" ${PROJECT_IS_TOP_LEVEL})
option(UNIVK_BUILD_TESTS "Build the GoogleTest suites and register them with CTest" ${PROJECT_IS_TOP_LEVEL})
option(UNIVK_BUILD_BENCHMARKS "Build the Google Benchmark micro-benchmarks" ${PROJECT_IS_TOP_LEVEL})
option(UNIVK_BUILD_FUZZERS "Build libFuzzer targets (needs clang)" OFF)
option(UNIVK_ENABLE_ASAN "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(UNIVK_ENABLE_TSAN "Build with ThreadSanitizer" OFF)
option(UNIVK_WERROR "Treat compiler warnings as errors" OFF)

if(UNIVK_ENABLE_ASAN AND UNIVK_ENABLE_TSAN)
  message(FATAL_ERROR "UNIVK_ENABLE_ASAN and UNIVK_ENABLE_TSAN cannot be combined")
endif()
# The compiler lowers to both payload formats, so it needs both backends' code.
if(UNIVK_BUILD_COMPILER AND NOT (UNIVK_BUILD_VGF AND UNIVK_BUILD_VULKAN_BACKEND))
  message(STATUS "univk: compiler, Python module and e2e tests need both backends; turning them off")
  set(UNIVK_BUILD_COMPILER OFF)
  set(UNIVK_BUILD_PYTHON OFF)
endif()

# The effective features, for the generated univk/config.h (cmake/config.h.in).
foreach(feature UNIVK_BUILD_VGF UNIVK_BUILD_VULKAN_BACKEND UNIVK_BUILD_COMPILER UNIVK_BUILD_TOOLS)
  if(${feature})
    set(${feature}_01 1)
  else()
    set(${feature}_01 0)
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/config.h.in ${PROJECT_BINARY_DIR}/include/univk/config.h @ONLY)
