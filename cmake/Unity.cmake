# sluice_unity_batches(<target> <batch size>): compiles the target's sources in unity batches, each
# of up to <batch size> files of one folder of src/, the sources the fuzz build compiles
# (cmake/FuzzSources.cmake) in batches of their own. Most of a file's compile time is spent
# instantiating and optimising the templates of the headers it shares with its neighbours (Arrow,
# nlohmann::json, the standard library); a batch does that once for all its files.
#
# Batches follow folders, so adding a file reshuffles only its own folder's batches; keeping the
# fuzz sources apart lets ctest fuzz/sources (scripts/check_fuzz_sources.py) still tell, from the
# objects, whether a fuzz target reaches a source that list lacks. Files of a batch share one
# translation unit: helpers in anonymous namespaces need distinct names within a folder, and a
# helper several files define belongs in a shared header (util/strings.h and the like).
function(sluice_unity_batches target batch_size)
  include(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/FuzzSources.cmake)
  get_target_property(_sources ${target} SOURCES)
  # First pass: each source's group key (folder, fuzz or not) and the files per key.
  set(_keys "")
  foreach(_src ${_sources})
    file(RELATIVE_PATH _rel ${CMAKE_SOURCE_DIR}/src ${_src})
    get_filename_component(_dir ${_rel} DIRECTORY)
    if(_rel IN_LIST SLUICE_FUZZ_SOURCES)
      string(MAKE_C_IDENTIFIER "${_dir}_fuzz" _key)
    else()
      string(MAKE_C_IDENTIFIER "${_dir}" _key)
    endif()
    list(APPEND _keys ${_key})
    if(NOT DEFINED _count_${_key})
      set(_count_${_key} 0)
    endif()
    math(EXPR _count_${_key} "${_count_${_key}} + 1")
  endforeach()
  # Second pass: the files of a key spread evenly over ceil(count / batch size) batches.
  set(_i 0)
  foreach(_src ${_sources})
    list(GET _keys ${_i} _key)
    math(EXPR _i "${_i} + 1")
    if(NOT DEFINED _seen_${_key})
      set(_seen_${_key} 0)
    endif()
    math(EXPR _batches "(${_count_${_key}} + ${batch_size} - 1) / ${batch_size}")
    math(EXPR _batch "${_seen_${_key}} * ${_batches} / ${_count_${_key}}")
    math(EXPR _seen_${_key} "${_seen_${_key}} + 1")
    set_source_files_properties(${_src} TARGET_DIRECTORY ${target} PROPERTIES UNITY_GROUP "${_key}_${_batch}")
  endforeach()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
endfunction()
