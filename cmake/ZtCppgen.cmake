# zt_cppgen_library(<name>
#     PROTOS <file.proto>...
#     [PROTO_ROOT <dir>]             # default: CMAKE_CURRENT_SOURCE_DIR
#     [IMPORT_DIRS <dir>...]         # extra -I paths for imports
#     [WRAPPER_NAMESPACE <ns>]       # default: gen
#     [DEPS <target>...]             # other zt_cppgen_library targets whose
#                                    # protos these import
#     [UNITY_BATCH <n>])             # with ZT_UNITY_BUILD off, compile the
#                                    # files n at a time all the same
#
# Runs protoc with protoc-gen-pbzero (generator=cppgen) at build time,
# writing X.gen.h, X.gen.cc and X.gen_parse.cc (the parsers, their own
# object) for every PROTOS entry into
# ${CMAKE_CURRENT_BINARY_DIR}/<name>_gen/<path of X relative to PROTO_ROOT>,
# and defines <name>, a STATIC library of the .gen.cc files whose include
# directory is that folder: code linking <name> does
#   #include "<path relative to PROTO_ROOT>/x.gen.h"
# and uses the value classes in namespace <package>::<ns>
# (docs/design/cppgen.md). <name> links the protozero runtime and DEPS.
# GetSchema() is defined by zt_cppgen_schema_library() (below): link one
# covering these protos where it is called.
#
# Included by ZtProtozero.cmake, so it works wherever zt_protozero_library()
# does: in the zerotrace tree and downstream after find_package(zerotrace).

# Runs protoc-gen-pbzero with generator=<generator> over PROTOS and sets, in
# the caller's scope: <prefix>_OUT_DIR, <prefix>_OUTPUTS (the files
# <stems><suffixes>), <prefix>_ROOT, <prefix>_IMPORT_DIRS, <prefix>_FILES.
function(_zt_cppgen_run fn name generator prefix)
  cmake_parse_arguments(PARSE_ARGV 4 A
    ""
    "PROTO_ROOT;WRAPPER_NAMESPACE;UNITY_BATCH"
    "PROTOS;IMPORT_DIRS;DEPS;SUFFIXES")
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}(${name}): unknown arguments ${A_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT A_PROTOS)
    message(FATAL_ERROR "${fn}(${name}): PROTOS is empty")
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
  set(plugin_args "generator=${generator}")
  if(wrapper)
    string(APPEND plugin_args ",wrapper_namespace=${wrapper}")
  endif()

  _zt_pbzero_find_protoc(protoc)
  set(plugin ${ZT_PBZERO_PLUGIN_TARGET})
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}_gen")
  file(MAKE_DIRECTORY "${out_dir}")

  set(abs_protos "")
  set(outputs "")
  foreach(proto IN LISTS A_PROTOS)
    get_filename_component(abs "${proto}" ABSOLUTE)
    file(RELATIVE_PATH rel "${root}" "${abs}")
    if(rel MATCHES "^\\.\\./" OR IS_ABSOLUTE "${rel}")
      message(FATAL_ERROR
        "${fn}(${name}): ${abs} is not under PROTO_ROOT ${root}")
    endif()
    string(REGEX REPLACE "\\.proto$" "" stem "${rel}")
    list(APPEND abs_protos "${abs}")
    foreach(suffix IN LISTS A_SUFFIXES)
      list(APPEND outputs "${out_dir}/${stem}${suffix}")
    endforeach()
  endforeach()

  _zt_protoc_inputs("${root}" "${A_IMPORT_DIRS}" "${A_DEPS}" ${plugin} ${protoc}
                    include_args abs_import_dirs command_deps)

  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${out_dir}"
    COMMAND ${protoc}
            "--plugin=protoc-gen-pbzero=$<TARGET_FILE:${plugin}>"
            "--pbzero_out=${plugin_args}:${out_dir}"
            ${include_args}
            ${abs_protos}
    DEPENDS ${abs_protos} ${command_deps}
    COMMENT "protoc-gen-pbzero (${generator}): generating ${name}"
    VERBATIM)
  set(${prefix}_OUT_DIR "${out_dir}" PARENT_SCOPE)
  set(${prefix}_OUTPUTS "${outputs}" PARENT_SCOPE)
  set(${prefix}_ROOT "${root}" PARENT_SCOPE)
  set(${prefix}_IMPORT_DIRS "${abs_import_dirs}" PARENT_SCOPE)
  set(${prefix}_FILES "${abs_protos}" PARENT_SCOPE)
endfunction()

function(zt_cppgen_library name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "UNITY_BATCH" "DEPS")
  _zt_cppgen_run(zt_cppgen_library ${name} cppgen G ${ARGN}
                 SUFFIXES .gen.h .gen.cc .gen_parse.cc)
  set(headers "")
  set(sources "")
  set(parsers "")
  foreach(f IN LISTS G_OUTPUTS)
    if(f MATCHES "\\.h$")
      list(APPEND headers "${f}")
    elseif(f MATCHES "\\.gen_parse\\.cc$")
      list(APPEND parsers "${f}")
    else()
      list(APPEND sources "${f}")
    endif()
  endforeach()
  # The headers are sources too, so that anything compiled against this
  # library (including other cppgen libraries listing it in DEPS) waits for
  # them to be generated.
  add_library(${name} STATIC ${sources} ${parsers} ${headers})
  if(ZT_UNITY_BUILD)
    # Two units (the classes share most of their headers): the classes, and
    # the parsers, whose object a static link takes only into programs that
    # parse.
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
    set_source_files_properties(${sources} TARGET_DIRECTORY ${name}
      PROPERTIES UNITY_GROUP classes)
    set_source_files_properties(${parsers} TARGET_DIRECTORY ${name}
      PROPERTIES UNITY_GROUP parsers)
  elseif(A_UNITY_BATCH)
    # Builds that compile every file on its own (the sanitizer builds, so
    # that a missing include cannot hide) need not for a schema's generated
    # files: the generator's own tests check its includes file by file.
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON
      UNITY_BUILD_BATCH_SIZE ${A_UNITY_BATCH})
  endif()
  target_include_directories(${name} PUBLIC "$<BUILD_INTERFACE:${G_OUT_DIR}>")
  target_link_libraries(${name} PUBLIC ${ZT_PBZERO_RUNTIME_TARGET} ${A_DEPS})
  if(TARGET zt_warnings)
    target_link_libraries(${name} PRIVATE $<BUILD_INTERFACE:zt_warnings>)
  endif()
  set_target_properties(${name} PROPERTIES
    ZT_CPPGEN_GEN_DIR "${G_OUT_DIR}"
    ZT_CPPGEN_HEADERS "${headers}"
    ZT_PROTO_ROOT "${G_ROOT}"
    ZT_PROTO_IMPORT_DIRS "${G_IMPORT_DIRS}"
    ZT_PROTO_FILES "${G_FILES}")
endfunction()

# zt_cppgen_schema_library(<name> PROTOS ... [PROTO_ROOT] [IMPORT_DIRS]
#                          [WRAPPER_NAMESPACE] [DEPS])
# A STATIC library of the run-time schema tables (X.schema.cc,
# generator=cppschema) of PROTOS: the M_Schema()/E_Schema() functions that
# the value classes' GetSchema() returns and the text-format parser walks.
# They need no value class, so it can cover every schema while the value
# classes (zt_cppgen_library) cover a few. Link it wherever GetSchema() is
# called. DEPS: schema libraries of imported files outside PROTOS.
function(zt_cppgen_schema_library name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "" "DEPS")
  _zt_cppgen_run(zt_cppgen_schema_library ${name} cppschema S ${ARGN}
                 SUFFIXES .schema.cc)
  add_library(${name} STATIC ${S_OUTPUTS})
  target_link_libraries(${name} PUBLIC ${ZT_PBZERO_RUNTIME_TARGET} ${A_DEPS})
  set_target_properties(${name} PROPERTIES
    ZT_PROTO_ROOT "${S_ROOT}"
    ZT_PROTO_IMPORT_DIRS "${S_IMPORT_DIRS}"
    ZT_PROTO_FILES "${S_FILES}")
endfunction()
