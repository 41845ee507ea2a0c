#include "source/socket_source.h"

#include <arrow/api.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

#include "util/log.h"

namespace sluice::source {

std::shared_ptr<arrow::Schema> SocketSourceSchema(bool include_timestamp) {
  arrow::FieldVector fields = {arrow::field("value", arrow::utf8())};
  if (include_timestamp) fields.push_back(arrow::field("timestamp", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")));
  return arrow::schema(fields);
}

namespace {

Result<int> Connect(const std::string& host, const std::string& port) {
  struct addrinfo hints {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0) return Status::IOError("socket source: cannot resolve ", host, ":", port, ": ", gai_strerror(rc));
  int fd = -1;
  int err = 0;
  for (auto* ai = res; ai; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
    err = errno;
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(res);
  if (fd < 0) return Status::IOError("socket source: cannot connect to ", host, ":", port, ": ", std::strerror(err));
  return fd;
}

// The line count an offset of this source holds (offsets are read back from the checkpoint).
Result<int64_t> LineCount(const std::optional<Offset>& offset) {
  if (!offset) return 0;
  if (!offset->is_number_integer()) return Status::Invalid("Invalid socket source offset '", offset->dump(), "'");
  return offset->get<int64_t>();
}

class SocketSource final : public Source {
 public:
  SocketSource(std::string host, std::string port, bool include_timestamp, int fd, std::function<int64_t()> clock)
      : host_(std::move(host)), port_(std::move(port)), include_ts_(include_timestamp), fd_(fd), clock_(std::move(clock)) {
    reader_ = std::thread([this] { ReadLines(); });
  }
  ~SocketSource() override {
    ::shutdown(fd_, SHUT_RDWR);
    if (reader_.joinable()) reader_.join();
    ::close(fd_);
  }

  std::string Description() const override { return "TextSocketV2[host: " + host_ + ", port: " + port_ + "]"; }
  std::shared_ptr<arrow::Schema> schema() const override { return SocketSourceSchema(include_ts_); }

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start, bool /*limited*/) override {
    std::lock_guard<std::mutex> lock(mu_);
    ARROW_ASSIGN_OR_RAISE(int64_t from, LineCount(start));
    if (!base_) base_ = from;  // this run's lines continue the offset count
    int64_t end = *base_ + static_cast<int64_t>(lines_.size());
    if (end <= from) return start;
    return std::optional<Offset>(Offset(end));
  }

  Result<std::shared_ptr<arrow::Table>> GetBatch(const std::optional<Offset>& start, const Offset& end) override {
    std::lock_guard<std::mutex> lock(mu_);
    ARROW_ASSIGN_OR_RAISE(int64_t from, LineCount(start));
    ARROW_ASSIGN_OR_RAISE(int64_t to, LineCount(end));
    if (!base_) base_ = from;
    if (from < *base_ || to > *base_ + static_cast<int64_t>(lines_.size())) {
      return Status::Invalid("The socket source cannot replay lines (", from, ", ", to, "] of ", Description(),
                             ": it keeps lines only in memory, and they were lost when the query stopped. "
                             "Start over with a new checkpoint; the socket source is not fault tolerant.");
    }
    arrow::StringBuilder values;
    arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), arrow::default_memory_pool());
    for (int64_t i = from; i < to; ++i) {
      const auto& line = lines_[static_cast<size_t>(i - *base_)];
      ARROW_RETURN_NOT_OK(values.Append(line.text));
      ARROW_RETURN_NOT_OK(ts.Append(line.arrival_ms * 1000));
    }
    std::vector<std::shared_ptr<arrow::Array>> cols;
    ARROW_ASSIGN_OR_RAISE(auto v, values.Finish());
    cols.push_back(v);
    if (include_ts_) {
      ARROW_ASSIGN_OR_RAISE(auto t, ts.Finish());
      cols.push_back(t);
    }
    return arrow::Table::Make(schema(), cols, to - from);
  }

 private:
  struct Line {
    std::string text;
    int64_t arrival_ms;
  };

  void ReadLines() {
    std::string pending;
    char buf[8192];
    while (true) {
      ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      pending.append(buf, static_cast<size_t>(n));
      size_t pos;
      while ((pos = pending.find('\n')) != std::string::npos) {
        std::string text = pending.substr(0, pos);
        if (!text.empty() && text.back() == '\r') text.pop_back();
        pending.erase(0, pos + 1);
        std::lock_guard<std::mutex> lock(mu_);
        lines_.push_back({std::move(text), clock_()});
      }
    }
  }

  std::string host_, port_;
  bool include_ts_;
  int fd_;
  std::function<int64_t()> clock_;
  std::thread reader_;
  std::mutex mu_;
  std::vector<Line> lines_;
  std::optional<int64_t> base_;
};

}  // namespace

Status ValidateSocketSourceSpec(const plan::SourceSpec& spec) {
  ARROW_RETURN_NOT_OK(spec.options.CheckKnown({"host", "port", "includeTimestamp"}, "socket source"));
  for (const char* required : {"host", "port"}) {
    if (!spec.options.Has(required)) return Status::Invalid("The socket source needs option '", required, "'");
  }
  std::string port = *spec.options.Get("port");
  char* end = nullptr;
  long p = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || p <= 0 || p > 65535) {
    return Status::Invalid("Invalid value '", port, "' for option 'port' of the socket source: must be 1..65535");
  }
  std::string ts = spec.options.GetOr("includeTimestamp", "false");
  if (ts != "true" && ts != "false") {
    return Status::Invalid("Invalid value '", ts, "' for option 'includeTimestamp': must be true or false");
  }
  return Status::OK();
}

Result<std::unique_ptr<Source>> MakeSocketSource(const plan::SourceSpec& spec, const SourceContext& ctx) {
  ARROW_RETURN_NOT_OK(ValidateSocketSourceSpec(spec));
  std::string host = *spec.options.Get("host"), port = *spec.options.Get("port");
  if (!ctx.temporary_checkpoint) {
    util::LogWarning("the socket source (", host, ":", port,
                     ") does not support recovery: lines are kept only in memory, so a restart on this checkpoint "
                     "cannot re-run a batch and lines sent while the query is down are lost. It is not exactly-once; "
                     "use it for demos only.");
  }
  ARROW_ASSIGN_OR_RAISE(int fd, Connect(host, port));
  return std::make_unique<SocketSource>(host, port, spec.options.GetOr("includeTimestamp", "false") == "true", fd,
                                        ctx.clock_ms);
}

}  // namespace sluice::source
