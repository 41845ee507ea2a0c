// An unbuffered stream buffer that keeps each write it is handed as one chunk, so a test can
// check that a line reached a stream in one write (on an unbuffered stream such as stderr, a line
// written in pieces can be cut by another thread's output).
#pragma once

#include <streambuf>
#include <string>
#include <vector>

namespace sluice::testing {

class WriteRecorder : public std::streambuf {
 public:
  const std::vector<std::string>& chunks() const { return chunks_; }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    chunks_.emplace_back(s, static_cast<size_t>(n));
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) chunks_.emplace_back(1, traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }

 private:
  std::vector<std::string> chunks_;
};

}  // namespace sluice::testing
