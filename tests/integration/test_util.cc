#include "integration/test_util.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace sluice::testing {

void WriteInputFile(const std::string& dir, const std::string& name, const std::string& content) {
  std::filesystem::create_directories(dir);
  std::string tmp = dir + "/." + name + ".tmp";
  {
    std::ofstream out(tmp);
    out << content;
  }
  std::filesystem::rename(tmp, dir + "/" + name);
}

std::string JsonRows(int64_t first, int64_t count) {
  std::string out;
  for (int64_t i = first; i < first + count; ++i) {
    out += "{\"id\":" + std::to_string(i) + ",\"name\":\"n" + std::to_string(i) + "\",\"price\":" +
           std::to_string(i * 1.5) + "}\n";
  }
  return out;
}

int RunCommand(const std::string& command_line) {
  int rc = std::system(command_line.c_str());
  if (rc == -1) return -1;
  if (WIFEXITED(rc)) return WEXITSTATUS(rc);
  if (WIFSIGNALED(rc)) return 128 + WTERMSIG(rc);
  return rc;
}

std::string ToolPath(const std::string& name) { return std::string(SLUICE_BIN_DIR) + "/" + name; }

int KillsFromEnv(const char* name, int default_count) {
  const char* v = std::getenv(name);
  const int n = v ? std::atoi(v) : 0;
  return n > 0 ? std::min(n, default_count) : default_count;
}

std::vector<int64_t> SortedInts(const std::shared_ptr<arrow::Table>& table, const std::string& column) {
  std::vector<int64_t> out;
  auto chunked = table->GetColumnByName(column);
  if (!chunked) return out;
  for (const auto& chunk : chunked->chunks()) {
    auto ints = std::static_pointer_cast<arrow::Int64Array>(chunk);
    for (int64_t i = 0; i < ints->length(); ++i) out.push_back(ints->Value(i));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> Range(int64_t first, int64_t last) {
  std::vector<int64_t> out;
  for (int64_t i = first; i < last; ++i) out.push_back(i);
  return out;
}

std::shared_ptr<arrow::Table> ReadSinkDir(const std::string& dir, const std::string& format) {
  auto session = Session::Make();
  auto df = session->read().format(format).load(dir);
  if (!df.ok()) {
    ADD_FAILURE() << "reading " << dir << ": " << df.status().ToString();
    return nullptr;
  }
  auto rows = df->collect();
  if (!rows.ok()) {
    ADD_FAILURE() << "reading " << dir << ": " << rows.status().ToString();
    return nullptr;
  }
  return *rows;
}

std::string WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace sluice::testing
