# The C++ package (docs/USER_GUIDE.md, section 0): `cmake --install` puts the libraries,
# the headers under include/univk, the CMake package (find_package(univk CONFIG) gives
# univk::univk and one univk::<component> per library), univk.pc and the tools under a prefix.
# The same univk::* names exist as ALIAS targets for applications that use add_subdirectory.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# univk's libraries in link order (each before the libraries it uses), with their component
# names. The list order is also univk.pc's -l order: the libraries are static archives.
set(univk_components
  univk vgf_backend vulkan_backend compiler runtime backend_api vulkan_graph kernels vgf_format spirv reference ops
  vulkan npy tensor base)
set(univk_installed_components "")
set(univk_install_targets "")
foreach(component IN LISTS univk_components)
  set(target univk_${component})
  if(component STREQUAL "univk")
    set(target univk)
  endif()
  if(NOT TARGET ${target})
    continue()
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${component})
  add_library(univk::${component} ALIAS ${target})
  list(APPEND univk_installed_components ${component})
  list(APPEND univk_install_targets ${target})
endforeach()

install(TARGETS ${univk_install_targets} EXPORT univkTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Headers of libraries this build does not have are left out, so an installed header always
# has its library.
set(univk_excluded_headers "")
if(NOT TARGET univk_compiler)
  list(APPEND univk_excluded_headers PATTERN compiler EXCLUDE)
endif()
if(NOT TARGET univk_vgf_backend)
  list(APPEND univk_excluded_headers PATTERN vgf EXCLUDE PATTERN spirv EXCLUDE)
endif()
if(NOT TARGET univk_vulkan_backend)
  list(APPEND univk_excluded_headers PATTERN backends/vulkan EXCLUDE)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/univk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" ${univk_excluded_headers})
install(FILES ${PROJECT_BINARY_DIR}/include/univk/config.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/univk)

set(univk_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/univk)
install(EXPORT univkTargets NAMESPACE univk:: DESTINATION ${univk_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/univkConfig.cmake.in
  ${PROJECT_BINARY_DIR}/univkConfig.cmake INSTALL_DESTINATION ${univk_cmake_dir})
# 0.x releases promise nothing across minor versions.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/univkConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/univkConfig.cmake ${PROJECT_BINARY_DIR}/univkConfigVersion.cmake
  DESTINATION ${univk_cmake_dir})

# univk.pc: univk::univk for builds without CMake.
set(univk_pc_libs "")
foreach(component IN LISTS univk_installed_components)
  if(component STREQUAL "univk")
    string(APPEND univk_pc_libs " -lunivk")
  elseif(NOT component STREQUAL "compiler")
    string(APPEND univk_pc_libs " -lunivk_${component}")
  endif()
endforeach()
foreach(lib IN LISTS CMAKE_DL_LIBS)
  string(APPEND univk_pc_libs " -l${lib}")
endforeach()
# The prefix is found from the .pc file's own folder, so `cmake --install --prefix` and moved
# prefixes work.
if(IS_ABSOLUTE ${CMAKE_INSTALL_LIBDIR})
  set(univk_pc_prefix ${CMAKE_INSTALL_PREFIX})
else()
  file(RELATIVE_PATH univk_pc_up /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  string(REGEX REPLACE "/$" "" univk_pc_up ${univk_pc_up})
  set(univk_pc_prefix "\${pcfiledir}/${univk_pc_up}")
endif()
foreach(dir LIBDIR INCLUDEDIR)
  string(TOLOWER ${dir} name)
  if(IS_ABSOLUTE ${CMAKE_INSTALL_${dir}})
    set(univk_pc_${name} ${CMAKE_INSTALL_${dir}})
  else()
    set(univk_pc_${name} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/univk.pc.in ${PROJECT_BINARY_DIR}/univk.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/univk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

foreach(tool univk-devices univk-dump univk-run univk-bench)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
