#include "source/json_line_documents.h"

#include <algorithm>

namespace sluice::source {
namespace {

// Lines are parsed by a document stream in batches of this many bytes; stretches shorter than
// kMinStreamBytes, and the kLinesAlone bytes after a line the stream did not give exactly, are
// parsed line by line.
constexpr size_t kStreamBatch = 256 << 10;
constexpr int64_t kMinStreamBytes = 16 << 10;
constexpr int64_t kLinesAlone = 64 << 10;

}  // namespace

LineDocuments::LineDocuments() {
#ifdef SIMDJSON_THREADS_ENABLED
  parser_.threaded = false;  // no stage-1 thread per stream
#endif
}

bool LineDocuments::Next(const char* file, int64_t file_size, int64_t range_end, int64_t b, int64_t e,
                         simdjson::dom::element* out) {
  if (active_ && advance_) ++it_;
  advance_ = false;
  if (active_ && !(it_ != stream_.end())) active_ = false;
  if (!active_ && !Start(file, file_size, range_end, b)) return false;
  simdjson::dom::element doc;
  // (A document starting elsewhere than the line's first byte is one the line did not hold.)
  const int64_t at = base_ + static_cast<int64_t>(it_.current_index());
  if ((*it_).get(doc) != simdjson::SUCCESS || at != b || !doc.is_object()) return Miss(e);
  const int64_t doc_end = at + static_cast<int64_t>(it_.source().size());
  if (doc_end > e) return Miss(e);
  for (int64_t i = doc_end; i < e; ++i) {
    const char c = file[i];
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return Miss(e);
  }
  advance_ = true;
  *out = doc;
  return true;
}

bool LineDocuments::Start(const char* file, int64_t file_size, int64_t range_end, int64_t b) {
  if (b < resume_at_) return false;
  // The stream reads up to SIMDJSON_PADDING bytes past its end: lines nearer the end of the file
  // are parsed alone (each with its own padded copy).
  const int64_t stop = std::min<int64_t>(range_end, file_size - static_cast<int64_t>(simdjson::SIMDJSON_PADDING));
  if (stop - b < kMinStreamBytes) {
    resume_at_ = range_end;
    return false;
  }
  if (parser_.parse_many(file + b, static_cast<size_t>(stop - b), kStreamBatch).get(stream_) != simdjson::SUCCESS) {
    resume_at_ = b + kLinesAlone;
    return false;
  }
  it_ = stream_.begin();
  base_ = b;
  active_ = it_ != stream_.end();
  if (!active_) resume_at_ = b + kLinesAlone;
  return active_;
}

bool LineDocuments::Miss(int64_t e) {
  active_ = false;
  resume_at_ = e + kLinesAlone;
  return false;
}

}  // namespace sluice::source
