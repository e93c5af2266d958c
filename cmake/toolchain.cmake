# Compiler settings shared by univk's targets: warnings, sanitizers, ccache. C++20 is a usage
# requirement of univk_base (target_compile_features), so every target that links univk gets it.
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
# A parent project's build type is its own; only a top-level build gets univk's default.
if(PROJECT_IS_TOP_LEVEL AND NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

find_program(UNIVK_CCACHE ccache)
if(UNIVK_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER ${UNIVK_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${UNIVK_CCACHE})
endif()

# Debug sections compressed: every test executable links the library statically with its debug
# information (about 120 MB each uncompressed, 2.5 times less compressed), and CI builds five
# configurations on one disk. Debuggers, addr2line and the sanitizers' symbolizers read them.
include(CheckCXXCompilerFlag)
include(CheckLinkerFlag)
check_cxx_compiler_flag(-gz UNIVK_COMPILER_COMPRESSES_DEBUG)
check_linker_flag(CXX -gz UNIVK_LINKER_COMPRESSES_DEBUG)
if(UNIVK_COMPILER_COMPRESSES_DEBUG AND UNIVK_LINKER_COMPRESSES_DEBUG)
  add_compile_options(-gz)
  add_link_options(-gz)
endif()

add_compile_options(-Wall -Wextra)
if(UNIVK_WERROR)
  add_compile_options(-Werror)
endif()

if(UNIVK_ENABLE_ASAN)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
# A fuzzer build (fuzz/run_fuzzers.sh, with ASan) instruments every target for coverage; only
# the fuzz executables link libFuzzer itself (fuzz/CMakeLists.txt).
if(UNIVK_BUILD_FUZZERS)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(UNIVK_ENABLE_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
