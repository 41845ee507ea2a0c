// The fuzz targets: one function per reader or parser that takes bytes from disk or from a user.
// Both fuzzers call these same functions: the deterministic mutation runner of `make test`
// (tests/unit/fuzz_parsers_test.cc) and the libFuzzer executables of `make fuzz`
// (tests/fuzz/libfuzzer_main.cc, built with -DSLUICE_LIBFUZZER=ON).
//
// Contract of a target: it feeds `input` to its parser(s) and returns the empty string when
// every property holds, else a description of the violated property. Properties: no crash, leak
// or undefined behaviour (the sanitizers check these), every input gives a result or an error
// Status (no exception escapes), decoded tables are valid Arrow data with valid UTF-8 strings,
// and checkpoint errors never carry a raw control byte (damaged files are described, not echoed).
// Thread-compatible: call from one thread at a time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sluice::fuzz {

struct Target {
  const char* name;  // also the seed corpus folder: tests/fuzz/corpus/<name>/
  std::string (*run)(std::string_view input);
};

/// Every target, in a fixed order: json, csv, checkpoint, avro_manifest, sql.
const std::vector<Target>& Targets();
/// The target called `name`; null when there is none.
const Target* FindTarget(std::string_view name);

}  // namespace sluice::fuzz
