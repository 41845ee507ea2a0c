# `cmake --install`: the sluice CLI, the public headers, and libsluice.so with a CMake package
# (find_package(sluice) -> sluice::sluice) and a pkg-config file (sluice.pc).
#
# libsluice.so holds every object of the static sluice_core; its private dependencies (Avro,
# SQLite, libpq, RocksDB, libpg_query) are shared system libraries it records as its own
# needs, so a consumer links sluice and Arrow only. Arrow is found the way this build found
# it (cmake/ArrowDeps.cmake): the system's Arrow C++, or the pyarrow wheel whose library
# paths are recorded in the package at build time.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The Arrow C++ libraries this build links (the pyarrow wheel's, or the system's).
set(_arrow_libs "")
foreach(_t sluice::arrow sluice::arrow_compute sluice::parquet)
  get_target_property(_type ${_t} TYPE)
  if(_type STREQUAL "SHARED_LIBRARY")
    get_target_property(_loc ${_t} IMPORTED_LOCATION)
    list(APPEND _arrow_libs ${_loc})
  else()
    get_target_property(_deps ${_t} INTERFACE_LINK_LIBRARIES)
    foreach(_d ${_deps})
      if(TARGET ${_d})
        get_target_property(_loc ${_d} LOCATION)
        list(APPEND _arrow_libs ${_loc})
      endif()
    endforeach()
  endif()
endforeach()
# Installed binaries find them where this build found them (unless that is a system directory).
set(_arrow_rpath "")
foreach(_lib ${_arrow_libs})
  get_filename_component(_dir ${_lib} DIRECTORY)
  if(NOT _dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    list(APPEND _arrow_rpath ${_dir})
  endif()
endforeach()
list(REMOVE_DUPLICATES _arrow_rpath)

file(WRITE ${CMAKE_BINARY_DIR}/sluice_shared.cc "// libsluice.so: every object of sluice_core (cmake/Install.cmake)\n")
add_library(sluice_shared SHARED ${CMAKE_BINARY_DIR}/sluice_shared.cc)
set_target_properties(sluice_shared PROPERTIES
  OUTPUT_NAME sluice
  EXPORT_NAME sluice
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
target_link_libraries(sluice_shared
  PRIVATE -Wl,--whole-archive sluice_core -Wl,--no-whole-archive
  PUBLIC sluice::arrow sluice::arrow_compute sluice::parquet Threads::Threads)
target_include_directories(sluice_shared INTERFACE
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(sluice_shared INTERFACE cxx_std_17)
add_library(sluice::sluice ALIAS sluice_shared)

# The CLI and the library find Arrow through their RPATH, in the build tree and installed alike.
# Both are built with the RPATH they are installed with (the Arrow directories above plus the
# directory of every other library they link outside the system's): an RPATH to be rewritten at
# install gets an empty entry appended in the build tree, and the loader reads an empty entry as
# the current directory, so a `libpq.so.5` wherever sluice was started would be loaded.
set_target_properties(sluice sluice_shared PROPERTIES
  INSTALL_RPATH "${_arrow_rpath}"
  INSTALL_RPATH_USE_LINK_PATH ON
  BUILD_WITH_INSTALL_RPATH ON)

install(TARGETS sluice RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS sluice_shared EXPORT sluiceTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/sluice DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/sluice)
install(EXPORT sluiceTargets NAMESPACE sluice:: DESTINATION ${_cmake_dir})

# What the package config and sluice.pc need to know about Arrow.
if(PYARROW_LIB_DIR)
  set(SLUICE_ARROW_SOURCE "pyarrow")
  list(GET _arrow_libs 0 SLUICE_ARROW_LIB)
  list(GET _arrow_libs 1 SLUICE_ARROW_COMPUTE_LIB)
  list(GET _arrow_libs 2 SLUICE_PARQUET_LIB)
  set(SLUICE_ARROW_INCLUDE_DIR ${PYARROW_INCLUDE_DIR})
  set(_pc_requires "")
  set(_pc_arrow_cflags "-I${PYARROW_INCLUDE_DIR}")
  string(REPLACE ";" " " _pc_arrow_libs "${_arrow_libs}")
  set(_pc_arrow_libs "${_pc_arrow_libs} -Wl,-rpath,${PYARROW_LIB_DIR}")
else()
  set(SLUICE_ARROW_SOURCE "system")
  set(_pc_requires "arrow parquet")
  if(TARGET ArrowCompute::arrow_compute_shared)
    set(_pc_requires "arrow arrow-compute parquet")
  endif()
  set(_pc_arrow_cflags "")
  set(_pc_arrow_libs "")
endif()

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/sluiceConfig.cmake.in
  ${CMAKE_BINARY_DIR}/sluiceConfig.cmake INSTALL_DESTINATION ${_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/sluiceConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/sluiceConfig.cmake ${CMAKE_BINARY_DIR}/sluiceConfigVersion.cmake
  DESTINATION ${_cmake_dir})

# sluice.pc: the install prefix is substituted at install time, so --prefix works.
set(_prefix "@_prefix@")  # kept for the install-time pass
configure_file(${CMAKE_SOURCE_DIR}/cmake/sluice.pc.in ${CMAKE_BINARY_DIR}/sluice.pc.in @ONLY)
install(CODE "
  set(_prefix \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${CMAKE_BINARY_DIR}/sluice.pc.in\" \"${CMAKE_BINARY_DIR}/sluice.pc.install\" @ONLY)
")
install(FILES ${CMAKE_BINARY_DIR}/sluice.pc.install DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig RENAME sluice.pc)
