# The Python package's native extension, sluice._sluice (bindings in src/python/, the package
# in python/). Built by the normal build when nanobind is importable from the venv's Python, so
# `make build` gives tests an importable package without a second C++ build:
#   PYTHONPATH=<source>/python:<build>/python  (scripts/setup.sh adds both to the repo's .venv)
# `pip install .` builds the same target through scikit-build-core (pyproject.toml), installing
# only the COMPONENT python below.

set(_sluice_py_default OFF)
if(NOT SLUICE_SANITIZE)  # an instrumented extension cannot load into a plain Python
  execute_process(COMMAND "${SLUICE_PYTHON}" -c "import nanobind; print(nanobind.cmake_dir())"
    OUTPUT_VARIABLE _nb_dir RESULT_VARIABLE _nb_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_nb_rc EQUAL 0)
    set(_sluice_py_default ON)
  endif()
endif()
option(SLUICE_PYTHON_PACKAGE "Build the Python extension sluice._sluice (needs nanobind in ${SLUICE_PYTHON})"
       ${_sluice_py_default})
if(NOT SLUICE_PYTHON_PACKAGE)
  return()
endif()
if(NOT _nb_dir)
  execute_process(COMMAND "${SLUICE_PYTHON}" -c "import nanobind; print(nanobind.cmake_dir())"
    OUTPUT_VARIABLE _nb_dir RESULT_VARIABLE _nb_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _nb_rc EQUAL 0)
    message(FATAL_ERROR "SLUICE_PYTHON_PACKAGE=ON but ${SLUICE_PYTHON} cannot import nanobind (requirements.txt)")
  endif()
endif()

set(Python_EXECUTABLE "${SLUICE_PYTHON}")
find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
find_package(nanobind CONFIG REQUIRED PATHS "${_nb_dir}" NO_DEFAULT_PATH)

file(GLOB SLUICE_PYTHON_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/python/*.cc)
nanobind_add_module(_sluice NB_STATIC NB_SUPPRESS_WARNINGS ${SLUICE_PYTHON_SOURCES})
target_include_directories(_sluice PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_include_directories(_sluice SYSTEM PRIVATE ${PG_QUERY_INCLUDE})
target_link_libraries(_sluice PRIVATE sluice_core nlohmann_json::nlohmann_json)
# The build tree's half of the package: <build>/python/sluice/_sluice*.so (the pure-Python
# half stays in <source>/python/sluice; the package's __path__ spans both). Installed, the
# extension sits next to pyarrow's libraries' package: site-packages/{sluice,pyarrow}.
set_target_properties(_sluice PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/python/sluice
  INSTALL_RPATH "$ORIGIN/../pyarrow")
if(SKBUILD)
  install(TARGETS _sluice LIBRARY DESTINATION sluice COMPONENT python)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/sluice/ DESTINATION sluice COMPONENT python
          FILES_MATCHING PATTERN "*.py")
endif()
