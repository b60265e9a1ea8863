# zt_libprotobuf_library(NAME [FAST_BUILD] PROTOS <files...> PROTO_ROOT <dir>)
#
# Test- and benchmark-only: compiles .proto files with protoc's own C++
# generator into a static library linked against libprotobuf, so that tests
# can check protozero's bytes against the reference implementation. Nothing
# that ships links this.
#
# ZT_PREBUILT_LIBPROTOBUF_DIR: another build directory of this same source
# tree (tools/test passes its release build's to the sanitizer builds). A
# library it has built already is used from there, its archive and
# generated headers, instead of being generated and compiled again: these
# are test oracles, not our code, and libprotobuf itself is not
# instrumented either; they were about a tenth of each sanitizer build. A
# library that build has not made is built here as usual.
find_package(Protobuf REQUIRED)
set(ZT_PREBUILT_LIBPROTOBUF_DIR "" CACHE PATH
    "A build directory of this source tree whose libprotobuf test libraries to reuse")

function(zt_libprotobuf_library name)
  cmake_parse_arguments(A "FAST_BUILD" "PROTO_ROOT" "PROTOS" ${ARGN})
  if(ZT_PREBUILT_LIBPROTOBUF_DIR)
    file(RELATIVE_PATH rel_dir ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR})
    set(prebuilt ${ZT_PREBUILT_LIBPROTOBUF_DIR}/${rel_dir})
    # The same protobuf (headers, library) as this build, else the archive's
    # classes would not match the headers these tests compile against.
    set(same_protobuf FALSE)
    set(prebuilt_cache ${ZT_PREBUILT_LIBPROTOBUF_DIR}/CMakeCache.txt)
    if(EXISTS ${prebuilt_cache})
      file(STRINGS ${prebuilt_cache} prebuilt_include REGEX "^Protobuf_INCLUDE_DIR:")
      if(prebuilt_include STREQUAL "Protobuf_INCLUDE_DIR:PATH=${Protobuf_INCLUDE_DIR}")
        set(same_protobuf TRUE)
      endif()
    endif()
    if(same_protobuf AND EXISTS ${prebuilt}/lib${name}.a AND IS_DIRECTORY ${prebuilt}/${name}_gen)
      message(STATUS "${name}: reusing ${prebuilt}/lib${name}.a")
      # Brought up to date in that build first (a .proto edited since), so
      # that building here alone never links a stale archive. (A byproduct
      # here, so that ninja looks at it again after; `ninja -t clean` here
      # would remove it there too.)
      add_custom_target(${name}_refresh
        COMMAND ${CMAKE_COMMAND} --build ${ZT_PREBUILT_LIBPROTOBUF_DIR} --target ${name}
        BYPRODUCTS ${prebuilt}/lib${name}.a
        COMMENT "Bringing ${name} up to date in ${ZT_PREBUILT_LIBPROTOBUF_DIR}"
        VERBATIM)
      add_library(${name} STATIC IMPORTED GLOBAL)
      set_target_properties(${name} PROPERTIES IMPORTED_LOCATION ${prebuilt}/lib${name}.a)
      target_include_directories(${name} SYSTEM INTERFACE ${prebuilt}/${name}_gen)
      target_link_libraries(${name} INTERFACE protobuf::libprotobuf)
      add_dependencies(${name} ${name}_refresh)
      # One at a time: two builds at once in that directory would race.
      get_property(previous GLOBAL PROPERTY ZT_LAST_LIBPROTOBUF_REFRESH)
      if(previous)
        add_dependencies(${name}_refresh ${previous})
      endif()
      set_property(GLOBAL PROPERTY ZT_LAST_LIBPROTOBUF_REFRESH ${name}_refresh)
      return()
    endif()
    message(STATUS "${name}: not built in ${ZT_PREBUILT_LIBPROTOBUF_DIR} "
                   "(or with another protobuf), building it here")
  endif()
  if(NOT A_PROTO_ROOT)
    set(A_PROTO_ROOT ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/${name}_gen)
  file(MAKE_DIRECTORY ${out_dir})
  set(srcs "")
  foreach(proto ${A_PROTOS})
    get_filename_component(abs ${proto} ABSOLUTE)
    file(RELATIVE_PATH rel ${A_PROTO_ROOT} ${abs})
    string(REGEX REPLACE "\\.proto$" "" stem ${rel})
    set(cc ${out_dir}/${stem}.pb.cc)
    set(h ${out_dir}/${stem}.pb.h)
    add_custom_command(
      OUTPUT ${cc} ${h}
      COMMAND protobuf::protoc --cpp_out=${out_dir} -I ${A_PROTO_ROOT} ${abs}
      DEPENDS ${abs} protobuf::protoc
      COMMENT "libprotobuf C++ for ${rel}"
      VERBATIM)
    list(APPEND srcs ${cc})
  endforeach()
  add_library(${name} STATIC ${srcs})
  # Generated code is not ours: no -Werror, no warnings.
  target_compile_options(${name} PRIVATE -w)
  # FAST_BUILD: a test oracle that no benchmark times, compiled in every CI
  # build: -O1 (-O0 under the sanitizers, whose instrumentation makes
  # optimizing it slow) and no debug information. It is about a tenth of
  # each build's compile time otherwise.
  if(A_FAST_BUILD)
    if(ZT_SANITIZE)
      target_compile_options(${name} PRIVATE -O0 -g0)
    else()
      target_compile_options(${name} PRIVATE -O1 -g0)
    endif()
  endif()
  target_include_directories(${name} SYSTEM PUBLIC ${out_dir})
  target_link_libraries(${name} PUBLIC protobuf::libprotobuf)
endfunction()
