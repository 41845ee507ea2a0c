// A fresh directory under the system temp dir for one test, removed when the test ends
// (kept when SLUICE_KEEP_TEST_DIRS is set, for debugging).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace sluice::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sluice-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    if (!path_.empty() && !::getenv("SLUICE_KEEP_TEST_DIRS")) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace sluice::testing
