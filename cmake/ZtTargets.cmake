# One-line declarations of zerotrace's own libraries and tests, so that each
# folder's CMakeLists.txt says what a target is made of and nothing else.
#
# zt_cc_library(NAME <name> SRCS <files>... [PUBLIC_DEPS <t>...] [DEPS <t>...]
#               [INSTALL | INSTALL_COMPONENT <component>] [EXPORT_NAME <n>]
#               [OPTIMIZE_FOR_SIZE [SPEED_SRCS <files>...]])
#   A static library zt_<name>, aliased zerotrace::<name> (the name it is
#   exported under, too; EXPORT_NAME gives both another name). Its users get include/ (installed: include/);
#   the library itself also sees the repository root, for private headers
#   ("src/..."), which no user does. Our warnings apply to its sources only
#   and never reach the export set. INSTALL adds it to the installed package
#   (cmake/ZtInstall.cmake); INSTALL_COMPONENT puts it in the package's
#   optional component of that name instead (find_package(zerotrace
#   COMPONENTS <component>): libraries with dependencies of their own that
#   SDK users need not have, such as the processor's SQLite). With ZT_UNITY_BUILD (the default) its sources
#   compile as one unit: headers are parsed once per library, not per file.
#   OPTIMIZE_FOR_SIZE: -Os in optimized builds, for control-plane code that
#   runs a few times per session; its SPEED_SRCS (per-packet and per-byte
#   paths) keep the configuration's level, in a unit of their own (each its
#   own object without unity builds).
#   Code most programs never run (a wire codec only a socket transport
#   uses) is a library of its own: a user neither builds nor links it.
#
# zt_cc_test(NAME <exe> SRCS <files>... [DEPS <t>...] [LABELS <l>...]
#            [TIMEOUT <s>])
#   A GoogleTest binary whose cases ctest discovers one by one; it sees the
#   repository root (tests read private headers) and links gtest_main.

# The -O level each optimized configuration compiles with (as a generator
# expression), for sources that must keep it inside an -Os library.
function(_zt_speed_level out)
  set(levels "")
  foreach(config Release RelWithDebInfo MinSizeRel)
    string(TOUPPER ${config} upper)
    string(REGEX MATCH "-O[0-9sgz]" level "${CMAKE_CXX_FLAGS_${upper}}")
    if(level)
      list(APPEND levels "$<$<CONFIG:${config}>:${level}>")
    endif()
  endforeach()
  set(${out} "${levels}" PARENT_SCOPE)
endfunction()

function(zt_cc_library)
  cmake_parse_arguments(PARSE_ARGV 0 A "INSTALL;OPTIMIZE_FOR_SIZE"
                        "NAME;EXPORT_NAME;INSTALL_COMPONENT"
                        "SRCS;SPEED_SRCS;PUBLIC_DEPS;DEPS")
  if(A_UNPARSED_ARGUMENTS OR NOT A_NAME OR NOT A_SRCS)
    message(FATAL_ERROR "zt_cc_library: NAME and SRCS are required "
                        "(unparsed: ${A_UNPARSED_ARGUMENTS})")
  endif()
  set(target zt_${A_NAME})
  if(A_SPEED_SRCS AND NOT A_OPTIMIZE_FOR_SIZE)
    message(FATAL_ERROR "zt_cc_library(${A_NAME}): SPEED_SRCS needs OPTIMIZE_FOR_SIZE")
  endif()
  # With unity builds the speed sources form one unit of their own too (a
  # source with options of its own never joins the main unit): the headers
  # they share are parsed once.
  set(speed_srcs ${A_SPEED_SRCS})
  list(LENGTH A_SPEED_SRCS num_speed_srcs)
  if(ZT_UNITY_BUILD AND num_speed_srcs GREATER 1)
    set(includes "")
    foreach(src IN LISTS A_SPEED_SRCS)
      get_filename_component(abs "${src}" ABSOLUTE)
      string(APPEND includes "#include \"${abs}\"\n")
    endforeach()
    set(speed_unit "${CMAKE_CURRENT_BINARY_DIR}/${target}_speed_unity.cc")
    file(GENERATE OUTPUT "${speed_unit}" CONTENT "${includes}")
    set(speed_srcs "${speed_unit}")
  endif()
  add_library(${target} STATIC ${A_SRCS} ${A_SPEED_SRCS})
  if(NOT speed_srcs STREQUAL A_SPEED_SRCS)
    # Listed (IDEs show them) but compiled through the unit only.
    set_source_files_properties(${A_SPEED_SRCS} TARGET_DIRECTORY ${target}
      PROPERTIES HEADER_FILE_ONLY ON)
    target_sources(${target} PRIVATE ${speed_srcs})
  endif()
  if(NOT A_EXPORT_NAME)
    set(A_EXPORT_NAME ${A_NAME})
  endif()
  add_library(zerotrace::${A_EXPORT_NAME} ALIAS ${target})
  target_include_directories(${target}
    PUBLIC "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>"
           "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>"
    PRIVATE "${PROJECT_SOURCE_DIR}")
  target_link_libraries(${target}
    PUBLIC ${A_PUBLIC_DEPS}
    PRIVATE ${A_DEPS} "$<BUILD_INTERFACE:zt_warnings>"
            "$<BUILD_INTERFACE:zt_library_options>")
  if(A_OPTIMIZE_FOR_SIZE)
    # Target options follow the configuration's -O2/-O3 on the command
    # line, and source options follow them: the last -O wins.
    target_compile_options(${target} PRIVATE $<$<NOT:$<CONFIG:Debug>>:-Os>)
    _zt_speed_level(speed)
    if(speed_srcs)
      # A source with options of its own is never put in the unity unit.
      set_source_files_properties(${speed_srcs} TARGET_DIRECTORY ${target}
        PROPERTIES COMPILE_OPTIONS "${speed}")
    endif()
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${A_EXPORT_NAME})
  if(ZT_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  endif()
  if(A_INSTALL)
    set_property(GLOBAL APPEND PROPERTY ZT_INSTALLED_TARGETS ${target})
  elseif(A_INSTALL_COMPONENT)
    set_property(GLOBAL APPEND PROPERTY ZT_INSTALLED_COMPONENTS ${A_INSTALL_COMPONENT})
    set_property(GLOBAL APPEND PROPERTY ZT_INSTALLED_TARGETS_${A_INSTALL_COMPONENT} ${target})
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
  if(ZT_TEST_OPTIMIZATION)
    # After the build type's flags: the last -O wins.
    target_compile_options(${A_NAME} PRIVATE ${ZT_TEST_OPTIMIZATION})
  endif()
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

# zt_benchmark_smoke(NAME test COMMAND binary args...): a ctest that runs a
# benchmark briefly. Not a measurement: it proves the binary runs and its
# self-checks pass. Google Benchmark exits 0 even when a benchmark calls
# SkipWithError, or when the filter matches nothing: the output is checked
# for both, so neither passes.
function(zt_benchmark_smoke)
  cmake_parse_arguments(PARSE_ARGV 0 A "" "NAME" "COMMAND")
  if(A_UNPARSED_ARGUMENTS OR NOT A_NAME OR NOT A_COMMAND)
    message(FATAL_ERROR "zt_benchmark_smoke: NAME and COMMAND are required")
  endif()
  add_test(NAME ${A_NAME} COMMAND ${A_COMMAND})
  set_tests_properties(${A_NAME} PROPERTIES FAIL_REGULAR_EXPRESSION
    "ERROR OCCURRED;Failed to match any benchmarks;error_occurred\"?: *true")
endfunction()
