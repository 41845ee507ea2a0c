# Locates Arrow C++ (with compute and Parquet) and defines the imported targets
#   sluice::arrow, sluice::arrow_compute, sluice::parquet
# Order: the system's Arrow (find_package(Arrow)), else the headers and libraries that ship
# inside the pinned pyarrow wheel of the repo's .venv (same C++11 ABI as g++ 12).

find_package(Arrow CONFIG QUIET)
find_package(Parquet CONFIG QUIET)
if(Arrow_FOUND AND Parquet_FOUND)
  message(STATUS "sluice: using system Arrow ${Arrow_VERSION}")
  add_library(sluice::arrow INTERFACE IMPORTED)
  target_link_libraries(sluice::arrow INTERFACE Arrow::arrow_shared)
  add_library(sluice::arrow_compute INTERFACE IMPORTED)
  if(TARGET ArrowCompute::arrow_compute_shared)
    target_link_libraries(sluice::arrow_compute INTERFACE ArrowCompute::arrow_compute_shared)
  endif()
  add_library(sluice::parquet INTERFACE IMPORTED)
  target_link_libraries(sluice::parquet INTERFACE Parquet::parquet_shared)
  return()
endif()

set(SLUICE_PYTHON "${CMAKE_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH "Python of the venv holding pyarrow")
execute_process(
  COMMAND "${SLUICE_PYTHON}" -c "import pyarrow; print(pyarrow.get_include()); print(pyarrow.get_library_dirs()[0]); print(pyarrow.__version__)"
  OUTPUT_VARIABLE _pa_out RESULT_VARIABLE _pa_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _pa_rc EQUAL 0)
  message(FATAL_ERROR "sluice: no system Arrow C++ and no pyarrow in ${SLUICE_PYTHON}. Run scripts/setup.sh (or `make build`) first.")
endif()
string(REPLACE "\n" ";" _pa_lines "${_pa_out}")
list(GET _pa_lines 0 PYARROW_INCLUDE_DIR)
list(GET _pa_lines 1 PYARROW_LIB_DIR)
list(GET _pa_lines 2 PYARROW_VERSION)
message(STATUS "sluice: using Arrow C++ from pyarrow ${PYARROW_VERSION} (${PYARROW_LIB_DIR})")

function(_sluice_pyarrow_lib target stem)
  file(GLOB _cands "${PYARROW_LIB_DIR}/lib${stem}.so.[0-9]*")
  list(FILTER _cands EXCLUDE REGEX "\\.so\\.[0-9]+\\.[0-9]")
  if(NOT _cands)
    message(FATAL_ERROR "sluice: lib${stem}.so.* not found in ${PYARROW_LIB_DIR}")
  endif()
  list(GET _cands 0 _lib)
  add_library(${target} SHARED IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES
    IMPORTED_LOCATION "${_lib}"
    INTERFACE_INCLUDE_DIRECTORIES "${PYARROW_INCLUDE_DIR}")
endfunction()

_sluice_pyarrow_lib(sluice::arrow arrow)
_sluice_pyarrow_lib(sluice::arrow_compute arrow_compute)
_sluice_pyarrow_lib(sluice::parquet parquet)
