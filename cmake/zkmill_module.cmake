# SPDX-License-Identifier: MIT
# zkmill_module(NAME DIR [DEPS ...]): one library per source folder.
# A folder with .cpp files becomes a static library; a header-only folder an INTERFACE one.
# Keeping one target per layer lets each layer (and its tests) build without the others.
function(zkmill_module name dir)
  cmake_parse_arguments(M "" "" "DEPS" ${ARGN})
  file(GLOB _srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(_srcs)
    add_library(${name} STATIC ${_srcs})
    # Unity batches of up to 8 files (ZKMILL_UNITY_BUILD, as for app/ and the tests): names at
    # namespace scope, anonymous namespaces included, must be unique across a folder's files.
    set_target_properties(${name} PROPERTIES UNITY_BUILD ${ZKMILL_UNITY_BUILD} UNITY_BUILD_BATCH_SIZE 8)
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} PUBLIC ${M_DEPS})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${M_DEPS})
  endif()
endfunction()

# zkmill_test(NAME DIR DEPS...): one GoogleTest executable per test folder.
function(zkmill_test name dir)
  file(GLOB _srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(NOT _srcs)
    return()
  endif()
  add_executable(${name} ${_srcs})
  # Unity batches of up to 8 files (ZKMILL_UNITY_BUILD): a folder's tests include the same heavy
  # headers (gtest, the farm's fixtures, the algebra templates of both curves), which compiled
  # one file at a time cost most of each file's CPU time: test_coordinator's 6 files took 196 CPU
  # s one by one and 54 as one unit. Names at namespace scope, anonymous namespaces included,
  # must therefore be unique across a test folder's files.
  set_target_properties(${name} PROPERTIES UNITY_BUILD ${ZKMILL_UNITY_BUILD} UNITY_BUILD_BATCH_SIZE 8)
  target_link_libraries(${name} PRIVATE ${ARGN} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE ZKMILL_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                             ZKMILL_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)
endfunction()
