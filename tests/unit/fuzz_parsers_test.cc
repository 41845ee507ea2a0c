// Deterministic mutation fuzzing of the readers and parsers that take bytes from disk or from a
// user: JSON lines, CSV, the checkpoint's offsets / commits / log files, the file sink log, the
// Iceberg manifest reader and the SQL front end. The targets and their properties are those of
// the libFuzzer build (tests/fuzz/fuzz_targets.h); here each seed of tests/fuzz/corpus/<target>/
// is mutated (bit flips, byte overwrites and insertions, cuts, duplicated spans) by a fixed-seed
// generator, so a failure is reproducible from its iteration number, in every build (the ASan
// build checks memory too) and without clang.
//
// SLUICE_FUZZ_ITERATIONS sets the mutations per target (default 300, about a second in all);
// `make fuzz` runs many more, then the libFuzzer targets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"

namespace sluice {
namespace {

int Iterations() {
  const char* env = std::getenv("SLUICE_FUZZ_ITERATIONS");
  const int n = env ? std::atoi(env) : 0;
  return n > 0 ? n : 300;
}

std::string Mutate(const std::string& seed, std::mt19937_64& rng) {
  std::string s = seed;
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 6) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 1:  // overwrite a byte with anything, control bytes and invalid UTF-8 included
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng() % 256);
        break;
      case 2:  // insert a byte
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(pick(s.size() + 1)), static_cast<char>(rng() % 256));
        break;
      case 3:  // cut the tail (a torn write)
        s.resize(pick(s.size() + 1));
        break;
      case 4: {  // duplicate a span
        if (s.empty()) break;
        const size_t at = pick(s.size());
        const size_t len = 1 + pick(std::min<size_t>(16, s.size() - at));
        s.insert(pick(s.size() + 1), s.substr(at, len));
        break;
      }
      default:  // delete a byte
        if (!s.empty()) s.erase(pick(s.size()), 1);
    }
  }
  return s;
}

// The seeds of a target: the files of its corpus (tests/fuzz/corpus/<name>/, shared with the
// libFuzzer targets of `make fuzz`), in name order.
std::vector<std::string> Seeds(const std::string& name) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(SLUICE_SOURCE_DIR) + "/tests/fuzz/corpus/" + name)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> seeds;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return seeds;
}

// Runs target `name` (tests/fuzz/fuzz_targets.h) on its seeds and `Iterations()` mutations of
// them; each violated property fails the test with the iteration that found it.
void Fuzz(const std::string& name, uint64_t seed_value) {
  const fuzz::Target* target = fuzz::FindTarget(name);
  ASSERT_NE(target, nullptr) << name;
  const auto seeds = Seeds(name);
  ASSERT_FALSE(seeds.empty()) << "no seed files in tests/fuzz/corpus/" << name;
  std::mt19937_64 rng(seed_value);
  for (const auto& s : seeds) EXPECT_EQ(target->run(s), "") << "seed of " << name;
  const int n = Iterations();
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(target->run(Mutate(seeds[static_cast<size_t>(i) % seeds.size()], rng)), "")
        << name << ", iteration " << i;
  }
}

TEST(Fuzz, JsonAndCsvReadersNeverCrashAndKeepStringsValidUtf8) {
  Fuzz("json", 1);
  Fuzz("csv", 2);
}

TEST(Fuzz, CheckpointParsersDescribeDamageWithoutEchoingIt) { Fuzz("checkpoint", 3); }

TEST(Fuzz, AvroManifestReaderNeverCrashes) { Fuzz("avro_manifest", 4); }

TEST(Fuzz, SqlFrontEndNeverCrashes) { Fuzz("sql", 5); }

}  // namespace
}  // namespace sluice
