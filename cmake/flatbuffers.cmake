# univk_flatbuffers(TARGET <lib> SCHEMAS <file.fbs>...)
# Generates C++ readers/builders with flatc at build time. The generated `<stem>_generated.h`
# is on <lib>'s private include path; white-box tests that read the format link the interface
# target <lib>_schema.
find_program(UNIVK_FLATC flatc REQUIRED)
find_package(flatbuffers CONFIG QUIET)

function(univk_flatbuffers)
  cmake_parse_arguments(ARG "" "TARGET" "SCHEMAS" ${ARGN})
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}_fbs)
  file(MAKE_DIRECTORY ${out_dir})
  set(headers "")
  foreach(schema IN LISTS ARG_SCHEMAS)
    get_filename_component(abs ${schema} ABSOLUTE)
    get_filename_component(stem ${schema} NAME_WE)
    set(h ${out_dir}/${stem}_generated.h)
    add_custom_command(OUTPUT ${h}
      COMMAND ${UNIVK_FLATC} --cpp --scoped-enums -o ${out_dir} ${abs}
      DEPENDS ${abs} COMMENT "flatc ${stem}" VERBATIM)
    list(APPEND headers ${h})
  endforeach()
  add_custom_target(${ARG_TARGET}_fbs_gen DEPENDS ${headers})
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_fbs_gen)
  target_include_directories(${ARG_TARGET} PRIVATE ${out_dir})
  add_library(${ARG_TARGET}_schema INTERFACE)
  target_include_directories(${ARG_TARGET}_schema INTERFACE ${out_dir})
  add_dependencies(${ARG_TARGET}_schema ${ARG_TARGET}_fbs_gen)
endfunction()
