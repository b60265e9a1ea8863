# zt_protozero_library(<name>
#     PROTOS <file.proto>...
#     [PROTO_ROOT <dir>]             # default: CMAKE_CURRENT_SOURCE_DIR
#     [IMPORT_DIRS <dir>...]         # extra -I paths for imports
#     [WRAPPER_NAMESPACE <ns> | NO_WRAPPER_NAMESPACE]   # default: pbzero
#     [DEPS <target>...])            # other zt_protozero_library targets
#                                    # whose protos these import
#
# Runs protoc with protoc-gen-pbzero at build time, writing X.pbzero.h and
# X.pbzero.cc for every PROTOS entry into
# ${CMAKE_CURRENT_BINARY_DIR}/<name>_gen/<path of X relative to PROTO_ROOT>,
# and defines <name>, a header-only INTERFACE library whose include
# directory is that folder: code linking <name> does
#   #include "<path relative to PROTO_ROOT>/x.pbzero.h"
# <name> links the protozero runtime, and anything linking it waits for the
# headers to be generated. The stubs are regenerated when a .proto file or
# the plugin changes. Protos imported from IMPORT_DIRS are not tracked.
#
# Works in the zerotrace tree (plugin target protoc-gen-pbzero, runtime
# zt_protozero) and, after `find_package(zerotrace)`, downstream (imported
# zerotrace::protoc-gen-pbzero and zerotrace::zt_protozero): the config file
# sets ZT_PBZERO_PLUGIN_TARGET / ZT_PBZERO_RUNTIME_TARGET before including
# this file. protoc comes from FindProtobuf (protobuf::protoc) or, failing
# that, from PATH.

if(NOT DEFINED ZT_PBZERO_PLUGIN_TARGET)
  set(ZT_PBZERO_PLUGIN_TARGET protoc-gen-pbzero)
endif()
if(NOT DEFINED ZT_PBZERO_RUNTIME_TARGET)
  set(ZT_PBZERO_RUNTIME_TARGET zt_protozero)
endif()

# Imported targets are directory-scoped: finding protoc here (the including
# directory) makes it visible to every directory below.
if(NOT TARGET protobuf::protoc AND NOT Protobuf_PROTOC_EXECUTABLE)
  find_package(Protobuf QUIET)
endif()

function(_zt_pbzero_find_protoc out_var)
  if(TARGET protobuf::protoc)
    set(${out_var} protobuf::protoc PARENT_SCOPE)
  elseif(Protobuf_PROTOC_EXECUTABLE)
    set(${out_var} ${Protobuf_PROTOC_EXECUTABLE} PARENT_SCOPE)
  elseif(PROTOBUF_PROTOC_EXECUTABLE)
    set(${out_var} ${PROTOBUF_PROTOC_EXECUTABLE} PARENT_SCOPE)
  else()
    find_program(ZT_PROTOC_EXECUTABLE protoc)
    if(NOT ZT_PROTOC_EXECUTABLE)
      message(FATAL_ERROR
        "zt_protozero_library: protoc not found (install protobuf-compiler "
        "or set Protobuf_PROTOC_EXECUTABLE)")
    endif()
    set(${out_var} ${ZT_PROTOC_EXECUTABLE} PARENT_SCOPE)
  endif()
endfunction()

# For each target in |deps| (libraries made by zt_protozero_library or
# zt_cppgen_library), appends `-I <its proto root and import dirs>` to
# |include_var| and its .proto files to |depends_var|, so that imports across
# libraries with different roots resolve and edits to them regenerate us.
function(_zt_proto_deps_args deps include_var depends_var)
  set(includes ${${include_var}})
  set(depends ${${depends_var}})
  foreach(dep IN LISTS deps)
    if(NOT TARGET ${dep})
      continue()
    endif()
    get_target_property(dep_root ${dep} ZT_PROTO_ROOT)
    get_target_property(dep_dirs ${dep} ZT_PROTO_IMPORT_DIRS)
    get_target_property(dep_files ${dep} ZT_PROTO_FILES)
    foreach(dir IN LISTS dep_root dep_dirs)
      if(dir AND NOT dir MATCHES "-NOTFOUND$" AND NOT "${dir}" IN_LIST includes)
        list(APPEND includes -I "${dir}")
      endif()
    endforeach()
    if(dep_files AND NOT dep_files MATCHES "-NOTFOUND$")
      list(APPEND depends ${dep_files})
    endif()
  endforeach()
  set(${include_var} ${includes} PARENT_SCOPE)
  set(${depends_var} ${depends} PARENT_SCOPE)
endfunction()

# What a protoc run over one library needs besides its own .proto files:
# |include_var| gets the -I arguments (root, IMPORT_DIRS, DEPS' roots),
# |dirs_var| the absolute IMPORT_DIRS, |depends_var| the files and targets
# the command depends on (DEPS' protos, the plugin, protoc).
function(_zt_protoc_inputs root import_dirs deps plugin protoc
                           include_var dirs_var depends_var)
  set(include_args -I "${root}")
  set(abs_dirs "")
  foreach(dir IN LISTS import_dirs)
    get_filename_component(abs_dir "${dir}" ABSOLUTE)
    list(APPEND include_args -I "${abs_dir}")
    list(APPEND abs_dirs "${abs_dir}")
  endforeach()
  set(depends "")
  _zt_proto_deps_args("${deps}" include_args depends)
  # An imported plugin (downstream) is a file dependency; an in-tree one also
  # orders the plugin's build before the command.
  set(plugin_dep "$<TARGET_FILE:${plugin}>")
  if(TARGET ${plugin})
    get_target_property(plugin_imported ${plugin} IMPORTED)
    if(NOT plugin_imported)
      set(plugin_dep ${plugin})
    endif()
  endif()
  list(APPEND depends ${plugin_dep})
  if(TARGET ${protoc})
    list(APPEND depends ${protoc})
  endif()
  set(${include_var} ${include_args} PARENT_SCOPE)
  set(${dirs_var} ${abs_dirs} PARENT_SCOPE)
  set(${depends_var} ${depends} PARENT_SCOPE)
endfunction()

function(zt_protozero_library name)
  cmake_parse_arguments(PARSE_ARGV 1 A
    "NO_WRAPPER_NAMESPACE"
    "PROTO_ROOT;WRAPPER_NAMESPACE"
    "PROTOS;IMPORT_DIRS;DEPS")
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "zt_protozero_library(${name}): unknown arguments ${A_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT A_PROTOS)
    message(FATAL_ERROR "zt_protozero_library(${name}): PROTOS is empty")
  endif()

  if(A_PROTO_ROOT)
    get_filename_component(root "${A_PROTO_ROOT}" ABSOLUTE)
  else()
    set(root "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()

  set(wrapper pbzero)
  if(A_NO_WRAPPER_NAMESPACE OR "WRAPPER_NAMESPACE" IN_LIST A_KEYWORDS_MISSING_VALUES)
    set(wrapper "")
  elseif(DEFINED A_WRAPPER_NAMESPACE)
    set(wrapper "${A_WRAPPER_NAMESPACE}")
  endif()
  set(plugin_args "")
  if(wrapper)
    set(plugin_args "wrapper_namespace=${wrapper}:")
  endif()

  _zt_pbzero_find_protoc(protoc)
  set(plugin ${ZT_PBZERO_PLUGIN_TARGET})

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}_gen")
  file(MAKE_DIRECTORY "${out_dir}")

  set(abs_protos "")
  set(outputs "")
  set(headers "")
  foreach(proto IN LISTS A_PROTOS)
    get_filename_component(abs "${proto}" ABSOLUTE)
    file(RELATIVE_PATH rel "${root}" "${abs}")
    if(rel MATCHES "^\\.\\./" OR IS_ABSOLUTE "${rel}")
      message(FATAL_ERROR
        "zt_protozero_library(${name}): ${abs} is not under PROTO_ROOT ${root}")
    endif()
    string(REGEX REPLACE "\\.proto$" "" stem "${rel}")
    list(APPEND abs_protos "${abs}")
    list(APPEND headers "${out_dir}/${stem}.pbzero.h")
    list(APPEND outputs "${out_dir}/${stem}.pbzero.h" "${out_dir}/${stem}.pbzero.cc")
  endforeach()

  _zt_protoc_inputs("${root}" "${A_IMPORT_DIRS}" "${A_DEPS}" ${plugin} ${protoc}
                    include_args abs_import_dirs command_deps)

  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${out_dir}"
    COMMAND ${protoc}
            "--plugin=protoc-gen-pbzero=$<TARGET_FILE:${plugin}>"
            "--pbzero_out=${plugin_args}${out_dir}"
            ${include_args}
            ${abs_protos}
    DEPENDS ${abs_protos} ${command_deps}
    COMMENT "protoc-gen-pbzero: generating ${name}"
    VERBATIM)
  add_custom_target(${name}_pbzero_gen DEPENDS ${outputs})

  add_library(${name} INTERFACE)
  target_include_directories(${name} INTERFACE "$<BUILD_INTERFACE:${out_dir}>")
  target_link_libraries(${name} INTERFACE ${ZT_PBZERO_RUNTIME_TARGET} ${A_DEPS})
  # Followed transitively: whatever links ${name} is built after the stubs.
  add_dependencies(${name} ${name}_pbzero_gen)
  set_target_properties(${name} PROPERTIES
    ZT_PBZERO_GEN_DIR "${out_dir}"
    ZT_PBZERO_HEADERS "${headers}"
    ZT_PROTO_ROOT "${root}"
    ZT_PROTO_IMPORT_DIRS "${abs_import_dirs}"
    ZT_PROTO_FILES "${abs_protos}")
endfunction()

# zt_cppgen_library(): the .gen.h/.gen.cc value classes, same plugin.
include("${CMAKE_CURRENT_LIST_DIR}/ZtCppgen.cmake")
