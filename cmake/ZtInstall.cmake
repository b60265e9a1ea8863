# Install rules and the CMake package, so that a downstream project can do
#   find_package(zerotrace CONFIG REQUIRED)
#   zt_protozero_library(my_protos PROTOS a.proto PROTO_ROOT ...)
#   target_link_libraries(app PRIVATE my_protos)   # or zerotrace::zt_protozero
# Include this at the end of the top-level CMakeLists.txt, after every
# add_subdirectory() that defines an installed target.
#
# Installed layout (under CMAKE_INSTALL_PREFIX):
#   include/zt/**.h                     public headers
#   lib/libzt_protozero.a               runtime
#   bin/protoc-gen-pbzero               the protoc plugin (needs libprotoc)
#   lib/cmake/zerotrace/                zerotraceConfig.cmake, version file,
#                                       exported targets, ZtProtozero.cmake

include(CMakePackageConfigHelpers)

set(ZT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/zerotrace")
get_filename_component(_zt_source_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

install(DIRECTORY "${_zt_source_root}/include/zt"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.h")

# Libraries in the zerotraceTargets export set. zt_warnings is only there
# because zt_protozero links it privately (a static library's private
# dependencies are exported as link-only); it carries no usage requirements
# downstream. protoc-gen-pbzero adds itself (src/protozero/plugin).
set(_zt_installed_libraries "")
foreach(lib zt_protozero zt_warnings)
  if(TARGET ${lib})
    list(APPEND _zt_installed_libraries ${lib})
  endif()
endforeach()
install(TARGETS ${_zt_installed_libraries}
  EXPORT zerotraceTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

install(EXPORT zerotraceTargets
  NAMESPACE zerotrace::
  FILE zerotraceTargets.cmake
  DESTINATION "${ZT_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/zerotraceConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/zerotraceConfig.cmake"
  INSTALL_DESTINATION "${ZT_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/zerotraceConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)

install(FILES
  "${PROJECT_BINARY_DIR}/zerotraceConfig.cmake"
  "${PROJECT_BINARY_DIR}/zerotraceConfigVersion.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/ZtProtozero.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/ZtCppgen.cmake"
  DESTINATION "${ZT_INSTALL_CMAKEDIR}")
