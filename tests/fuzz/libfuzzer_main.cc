// The libFuzzer entry point of one target of tests/fuzz/fuzz_targets.h, chosen at compile time
// by SLUICE_FUZZ_TARGET (its name). A violated property aborts, so libFuzzer saves the input as
// a crash artifact (`make fuzz` keeps them in build-fuzz/crashes/<target>/).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const sluice::fuzz::Target* target = sluice::fuzz::FindTarget(SLUICE_FUZZ_TARGET);
  if (target == nullptr) {
    std::fprintf(stderr, "no fuzz target called '%s' in tests/fuzz/fuzz_targets.cc\n", SLUICE_FUZZ_TARGET);
    std::abort();
  }
  const std::string violation = target->run(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!violation.empty()) {
    std::fprintf(stderr, "fuzz target %s: property violated: %s\n", SLUICE_FUZZ_TARGET, violation.c_str());
    std::abort();
  }
  return 0;
}
