# One-line declarations of zerotrace's own libraries and tests, so that each
# folder's CMakeLists.txt says what a target is made of and nothing else.
#
# zt_cc_library(NAME <name> SRCS <files>... [PUBLIC_DEPS <t>...] [DEPS <t>...]
#               [INSTALL])
#   A static library zt_<name>, aliased zerotrace::<name> (the name it is
#   exported under, too). Its users get include/ (installed: include/);
#   the library itself also sees the repository root, for private headers
#   ("src/..."), which no user does. Our warnings apply to its sources only
#   and never reach the export set. INSTALL adds it to the installed package
#   (cmake/ZtInstall.cmake). With ZT_UNITY_BUILD (the default) its sources
#   compile as one unit: headers are parsed once per library, not per file.
#
# zt_cc_test(NAME <exe> SRCS <files>... [DEPS <t>...] [LABELS <l>...]
#            [TIMEOUT <s>])
#   A GoogleTest binary whose cases ctest discovers one by one; it sees the
#   repository root (tests read private headers) and links gtest_main.

function(zt_cc_library)
  cmake_parse_arguments(PARSE_ARGV 0 A "INSTALL" "NAME" "SRCS;PUBLIC_DEPS;DEPS")
  if(A_UNPARSED_ARGUMENTS OR NOT A_NAME OR NOT A_SRCS)
    message(FATAL_ERROR "zt_cc_library: NAME and SRCS are required "
                        "(unparsed: ${A_UNPARSED_ARGUMENTS})")
  endif()
  set(target zt_${A_NAME})
  add_library(${target} STATIC ${A_SRCS})
  add_library(zerotrace::${A_NAME} ALIAS ${target})
  target_include_directories(${target}
    PUBLIC "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>"
           "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>"
    PRIVATE "${PROJECT_SOURCE_DIR}")
  target_link_libraries(${target}
    PUBLIC ${A_PUBLIC_DEPS}
    PRIVATE ${A_DEPS} "$<BUILD_INTERFACE:zt_warnings>")
  # One section per function and object, so that a program linked with
  # -Wl,--gc-sections keeps only what it calls (docs/benchmarks.md).
  target_compile_options(${target} PRIVATE -ffunction-sections -fdata-sections)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${A_NAME})
  if(ZT_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  endif()
  if(A_INSTALL)
    set_property(GLOBAL APPEND PROPERTY ZT_INSTALLED_TARGETS ${target})
  endif()
endfunction()

function(zt_cc_test)
  cmake_parse_arguments(PARSE_ARGV 0 A "" "NAME;TIMEOUT" "SRCS;DEPS;LABELS")
  if(A_UNPARSED_ARGUMENTS OR NOT A_NAME OR NOT A_SRCS)
    message(FATAL_ERROR "zt_cc_test: NAME and SRCS are required "
                        "(unparsed: ${A_UNPARSED_ARGUMENTS})")
  endif()
  add_executable(${A_NAME} ${A_SRCS})
  target_include_directories(${A_NAME} PRIVATE "${PROJECT_SOURCE_DIR}")
  target_link_libraries(${A_NAME} PRIVATE ${A_DEPS} zt_warnings GTest::gtest_main)
  set(properties "")
  if(A_LABELS)
    list(APPEND properties LABELS "${A_LABELS}")
  endif()
  if(A_TIMEOUT)
    list(APPEND properties TIMEOUT ${A_TIMEOUT})
  endif()
  include(GoogleTest)
  if(properties)
    gtest_discover_tests(${A_NAME} DISCOVERY_MODE PRE_TEST PROPERTIES ${properties})
  else()
    gtest_discover_tests(${A_NAME} DISCOVERY_MODE PRE_TEST)
  endif()
endfunction()
