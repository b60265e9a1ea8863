# Install rules and the CMake package, so that a downstream project can do
#   find_package(zerotrace CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE zerotrace::tracing)     # the SDK
#   target_link_libraries(tool PRIVATE zerotrace::processor)  # read traces
#   zt_protozero_library(my_protos PROTOS a.proto PROTO_ROOT ...)  # own protos
# or use pkg-config (zerotrace.pc). Included at the end of the top-level
# CMakeLists.txt when ZT_INSTALL is on.
#
# Installed layout (under CMAKE_INSTALL_PREFIX):
#   include/zt/**.h                 public headers, and the generated headers
#                                   they include (zt/**.pbzero.h, zt/**.gen.h)
#   lib/libzt_*.a                   the SDK's static libraries
#   bin/protoc-gen-pbzero           the protoc plugin (needs libprotoc)
#   lib/cmake/zerotrace/            zerotraceConfig.cmake, version file,
#                                   exported targets, ZtProtozero.cmake,
#                                   ZtCppgen.cmake
#   lib/pkgconfig/zerotrace.pc      for pkg-config users (zerotrace-system.pc
#                                   adds the system backend,
#                                   zerotrace-processor.pc is the processor)

include(CMakePackageConfigHelpers)

set(ZT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/zerotrace")
get_filename_component(_zt_source_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

install(DIRECTORY "${_zt_source_root}/include/zt"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.h")

# Libraries declared with zt_cc_library(... INSTALL), plus the generated
# ones the SDK links: the pbzero writers of our schemas (header-only), the
# value classes the SDK reads and the schema tables.
get_property(_zt_installed_libraries GLOBAL PROPERTY ZT_INSTALLED_TARGETS)
foreach(lib zt_protos_pbzero zt_protos_gen zt_protos_gen_ipc zt_protos_schema)
  list(APPEND _zt_installed_libraries ${lib})
  string(REGEX REPLACE "^zt_" "" export_name ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
# Generated headers go next to the public ones; the targets say so. Exactly
# the headers each library generates (not whatever its folder holds: a
# build tree can keep headers of schemas that left the library).
foreach(lib zt_protos_pbzero zt_protos_gen)
  get_target_property(type ${lib} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(gen_dir ${lib} ZT_PBZERO_GEN_DIR)
    get_target_property(gen_headers ${lib} ZT_PBZERO_HEADERS)
    target_include_directories(${lib} INTERFACE
      "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  else()
    get_target_property(gen_dir ${lib} ZT_CPPGEN_GEN_DIR)
    get_target_property(gen_headers ${lib} ZT_CPPGEN_HEADERS)
    target_include_directories(${lib} PUBLIC
      "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  endif()
  foreach(header IN LISTS gen_headers)
    file(RELATIVE_PATH rel "${gen_dir}" "${header}")
    get_filename_component(rel_dir "${rel}" DIRECTORY)
    install(FILES "${header}" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/${rel_dir}")
  endforeach()
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

# Optional components (zt_cc_library(... INSTALL_COMPONENT c)): an export
# set each, zerotrace<C>Targets.cmake, which zerotraceConfig.cmake loads
# only when the component's own dependencies are found.
get_property(_zt_components GLOBAL PROPERTY ZT_INSTALLED_COMPONENTS)
list(REMOVE_DUPLICATES _zt_components)
foreach(component IN LISTS _zt_components)
  get_property(_zt_component_targets GLOBAL PROPERTY ZT_INSTALLED_TARGETS_${component})
  string(SUBSTRING "${component}" 0 1 first)
  string(TOUPPER "${first}" first)
  string(SUBSTRING "${component}" 1 -1 rest)
  set(export_set "zerotrace${first}${rest}Targets")
  install(TARGETS ${_zt_component_targets}
    EXPORT ${export_set}
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
  install(EXPORT ${export_set}
    NAMESPACE zerotrace::
    FILE ${export_set}.cmake
    DESTINATION "${ZT_INSTALL_CMAKEDIR}")
endforeach()

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

# pkg-config: the SDK's libraries in link order (each before what it uses).
configure_file("${CMAKE_CURRENT_LIST_DIR}/zerotrace.pc.in"
               "${PROJECT_BINARY_DIR}/zerotrace.pc" @ONLY)
configure_file("${CMAKE_CURRENT_LIST_DIR}/zerotrace-system.pc.in"
               "${PROJECT_BINARY_DIR}/zerotrace-system.pc" @ONLY)
configure_file("${CMAKE_CURRENT_LIST_DIR}/zerotrace-processor.pc.in"
               "${PROJECT_BINARY_DIR}/zerotrace-processor.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/zerotrace.pc" "${PROJECT_BINARY_DIR}/zerotrace-system.pc"
              "${PROJECT_BINARY_DIR}/zerotrace-processor.pc"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
