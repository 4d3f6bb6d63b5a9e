# Tests of driver/build and driver/run (engineer "buildrun"), included by CMakeLists.txt here.

find_package(fmt REQUIRED)

# Pure parts, plus ELF hashing of tiny programs compiled on the spot.
add_executable(buildrun_unit_test build_unit_test.cc run_unit_test.cc)
target_link_libraries(buildrun_unit_test PRIVATE looprace_build GTest::gtest_main fmt::fmt)
gtest_discover_tests(buildrun_unit_test TEST_PREFIX "buildrun_unit_test." PROPERTIES LABELS unit)

# Real processes: time limits, signals, pinning, runs linked with the runtime.
add_executable(run_process_test run_process_test.cc)
target_link_libraries(run_process_test PRIVATE looprace_run GTest::gtest_main)
target_compile_definitions(run_process_test PRIVATE
  LOOPRACE_RT_ARCHIVE="$<TARGET_FILE:looprace_rt>"
  LOOPRACE_RT_INCLUDE="${PROJECT_SOURCE_DIR}/runtime")
add_dependencies(run_process_test looprace_rt)
gtest_discover_tests(run_process_test TEST_PREFIX "run_process_test." PROPERTIES LABELS integration)

# Builds with the real plugin and runtime, found next to the test binary (build/bin/../lib).
add_executable(build_plugin_test build_plugin_test.cc)
target_link_libraries(build_plugin_test PRIVATE looprace_build GTest::gtest_main fmt::fmt)
target_compile_definitions(build_plugin_test PRIVATE
  LOOPRACE_TEST_PROJECT="${CMAKE_CURRENT_SOURCE_DIR}/build_project")
add_dependencies(build_plugin_test looprace_plugin looprace_rt)
gtest_discover_tests(build_plugin_test TEST_PREFIX "build_plugin_test." PROPERTIES LABELS integration)

foreach(test buildrun_unit_test run_process_test build_plugin_test)
  target_compile_features(${test} PRIVATE cxx_std_20)
endforeach()

# Not a test: the figure of benchmarks/results/buildrun-incremental.md.
add_executable(build_incremental_bench build_incremental_bench.cc)
target_link_libraries(build_incremental_bench PRIVATE looprace_build fmt::fmt)
target_compile_features(build_incremental_bench PRIVATE cxx_std_20)
