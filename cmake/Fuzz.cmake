# -DSLUICE_LIBFUZZER=ON (`make fuzz`, build directory build-fuzz/, clang): the libFuzzer targets
# of tests/fuzz only, one executable per target (build-fuzz/bin/fuzz_<target>), nothing else.
#
# The code under test is compiled with -fsanitize=fuzzer-no-link,address,undefined (coverage
# feedback plus ASan/UBSan; any UBSan finding aborts, so libFuzzer saves the input); each
# executable links libFuzzer's main with -fsanitize=fuzzer. Arrow is the one the gcc build uses
# (cmake/ArrowDeps.cmake): clang compiles against g++'s libstdc++, so the ABI is the same.
#
# Only the sources the targets reach are compiled (cmake/FuzzSources.cmake; a link error naming an
# undefined sluice symbol means a target now reaches one more file: add it to that list). ctest fuzz/sources
# (scripts/check_fuzz_sources.py) checks the list in the ordinary build.

if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "sluice: SLUICE_LIBFUZZER needs clang (CMAKE_CXX_COMPILER=clang++; `make fuzz` sets it up), "
                      "not ${CMAKE_CXX_COMPILER_ID}")
endif()

add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_link_options(-fsanitize=address,undefined)

include(${CMAKE_CURRENT_LIST_DIR}/FuzzSources.cmake)
set(_fuzz_sources ${SLUICE_FUZZ_SOURCES})
list(TRANSFORM _fuzz_sources PREPEND ${CMAKE_SOURCE_DIR}/src/)
add_library(sluice_fuzz_core STATIC ${_fuzz_sources} ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_targets.cc)
target_include_directories(sluice_fuzz_core
  PUBLIC ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests)
target_include_directories(sluice_fuzz_core SYSTEM PRIVATE ${PG_QUERY_INCLUDE})
target_compile_definitions(sluice_fuzz_core PUBLIC SLUICE_VERSION="${PROJECT_VERSION}")
target_link_libraries(sluice_fuzz_core
  PUBLIC PkgConfig::SIMDJSON sluice::arrow sluice::arrow_compute sluice::parquet Threads::Threads
         nlohmann_json::nlohmann_json OpenSSL::Crypto ${PG_QUERY_LIB})

foreach(_target json csv checkpoint avro_manifest sql)
  add_executable(fuzz_${_target} ${CMAKE_SOURCE_DIR}/tests/fuzz/libfuzzer_main.cc)
  target_compile_definitions(fuzz_${_target} PRIVATE SLUICE_FUZZ_TARGET="${_target}")
  target_link_libraries(fuzz_${_target} PRIVATE sluice_fuzz_core)
  target_link_options(fuzz_${_target} PRIVATE -fsanitize=fuzzer)
endforeach()
