# zt_cppgen_library(<name>
#     PROTOS <file.proto>...
#     [PROTO_ROOT <dir>]             # default: CMAKE_CURRENT_SOURCE_DIR
#     [IMPORT_DIRS <dir>...]         # extra -I paths for imports
#     [WRAPPER_NAMESPACE <ns>]       # default: gen
#     [DEPS <target>...])            # other zt_cppgen_library targets whose
#                                    # protos these import
#
# Runs protoc with protoc-gen-pbzero (generator=cppgen) at build time,
# writing X.gen.h and X.gen.cc for every PROTOS entry into
# ${CMAKE_CURRENT_BINARY_DIR}/<name>_gen/<path of X relative to PROTO_ROOT>,
# and defines <name>, a STATIC library of the .gen.cc files whose include
# directory is that folder: code linking <name> does
#   #include "<path relative to PROTO_ROOT>/x.gen.h"
# and uses the value classes in namespace <package>::<ns>
# (docs/design/cppgen.md). <name> links the protozero runtime and DEPS.
#
# Included by ZtProtozero.cmake, so it works wherever zt_protozero_library()
# does: in the zerotrace tree and downstream after find_package(zerotrace).

function(zt_cppgen_library name)
  cmake_parse_arguments(PARSE_ARGV 1 A
    ""
    "PROTO_ROOT;WRAPPER_NAMESPACE"
    "PROTOS;IMPORT_DIRS;DEPS")
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "zt_cppgen_library(${name}): unknown arguments ${A_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT A_PROTOS)
    message(FATAL_ERROR "zt_cppgen_library(${name}): PROTOS is empty")
  endif()
  if(A_PROTO_ROOT)
    get_filename_component(root "${A_PROTO_ROOT}" ABSOLUTE)
  else()
    set(root "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  set(wrapper gen)
  if(DEFINED A_WRAPPER_NAMESPACE)
    set(wrapper "${A_WRAPPER_NAMESPACE}")
  endif()
  set(plugin_args "generator=cppgen")
  if(wrapper)
    string(APPEND plugin_args ",wrapper_namespace=${wrapper}")
  endif()

  _zt_pbzero_find_protoc(protoc)
  set(plugin ${ZT_PBZERO_PLUGIN_TARGET})
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}_gen")
  file(MAKE_DIRECTORY "${out_dir}")

  set(abs_protos "")
  set(headers "")
  set(sources "")
  foreach(proto IN LISTS A_PROTOS)
    get_filename_component(abs "${proto}" ABSOLUTE)
    file(RELATIVE_PATH rel "${root}" "${abs}")
    if(rel MATCHES "^\\.\\./" OR IS_ABSOLUTE "${rel}")
      message(FATAL_ERROR
        "zt_cppgen_library(${name}): ${abs} is not under PROTO_ROOT ${root}")
    endif()
    string(REGEX REPLACE "\\.proto$" "" stem "${rel}")
    list(APPEND abs_protos "${abs}")
    list(APPEND headers "${out_dir}/${stem}.gen.h")
    list(APPEND sources "${out_dir}/${stem}.gen.cc")
  endforeach()

  _zt_protoc_inputs("${root}" "${A_IMPORT_DIRS}" "${A_DEPS}" ${plugin} ${protoc}
                    include_args abs_import_dirs command_deps)

  add_custom_command(
    OUTPUT ${headers} ${sources}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${out_dir}"
    COMMAND ${protoc}
            "--plugin=protoc-gen-pbzero=$<TARGET_FILE:${plugin}>"
            "--pbzero_out=${plugin_args}:${out_dir}"
            ${include_args}
            ${abs_protos}
    DEPENDS ${abs_protos} ${command_deps}
    COMMENT "protoc-gen-pbzero (cppgen): generating ${name}"
    VERBATIM)

  # The headers are sources too, so that anything compiled against this
  # library (including other cppgen libraries listing it in DEPS) waits for
  # them to be generated.
  add_library(${name} STATIC ${sources} ${headers})
  target_include_directories(${name} PUBLIC "$<BUILD_INTERFACE:${out_dir}>")
  target_link_libraries(${name} PUBLIC ${ZT_PBZERO_RUNTIME_TARGET} ${A_DEPS})
  if(TARGET zt_warnings)
    target_link_libraries(${name} PRIVATE zt_warnings)
  endif()
  set_target_properties(${name} PROPERTIES
    ZT_CPPGEN_GEN_DIR "${out_dir}"
    ZT_CPPGEN_HEADERS "${headers}"
    ZT_PROTO_ROOT "${root}"
    ZT_PROTO_IMPORT_DIRS "${abs_import_dirs}"
    ZT_PROTO_FILES "${abs_protos}")
endfunction()
