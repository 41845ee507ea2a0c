// Shared by the crash-test tools (tests/tools/*.cc): "--name value" arguments and the filesystem
// seam with an optional injected fault (--fault, io::FaultSpec's text).
#pragma once

#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/fault_injection.h"
#include "io/file_system.h"

namespace sluice::tools {

using Args = std::map<std::string, std::string>;

/// `defaults` overlaid with argv's "--name value" pairs. False (after naming the first missing
/// one on stderr as "<tool>: missing --x") when a `required` name is absent.
inline bool ParseArgs(int argc, char** argv, const char* tool, const std::vector<const char*>& required, Args* args) {
  for (int i = 1; i + 1 < argc; i += 2) (*args)[argv[i]] = argv[i + 1];
  for (const char* name : required) {
    if (!args->count(name)) {
      std::cerr << tool << ": missing " << name << std::endl;
      return false;
    }
  }
  return true;
}

/// The local filesystem, wrapped in a FaultInjectingFileSystem when --fault is given.
inline arrow::Result<std::shared_ptr<io::FileSystem>> FileSystemFor(const Args& args) {
  std::shared_ptr<io::FileSystem> fs = io::LocalFileSystem();
  auto fault = args.find("--fault");
  if (fault == args.end()) return fs;
  ARROW_ASSIGN_OR_RAISE(auto spec, io::FaultSpec::Parse(fault->second));
  return std::make_shared<io::FaultInjectingFileSystem>(fs, spec);
}

}  // namespace sluice::tools
