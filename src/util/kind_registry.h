// A list of named kinds (the sink kinds, the source kinds) that code may extend or replace while
// queries run: looked up by name, case-insensitively.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "util/strings.h"

namespace sluice::util {

/// `Kind` has a `std::string name`.
template <typename Kind>
class KindRegistry {
 public:
  explicit KindRegistry(std::vector<Kind> kinds) {
    for (Kind& k : kinds) kinds_.push_back(MakeEntry(std::move(k)));
  }

  /// The kind named `name` (any case), or null. A kind replaced later stays valid.
  const Kind* Find(const std::string& name) const {
    const std::string lower = ToLower(name);
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& e : kinds_) {
      if (e.key == lower) return e.kind.get();
    }
    return nullptr;
  }

  /// The names of the kinds `keep` accepts, in the order they were added.
  template <typename Keep>
  std::vector<std::string> Names(Keep keep) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const auto& e : kinds_) {
      if (keep(*e.kind)) out.push_back(e.kind->name);
    }
    return out;
  }

  /// Adds `kind`, or replaces the kind of the same name (any case) in its place.
  void Register(Kind kind) {
    Entry entry = MakeEntry(std::move(kind));
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& e : kinds_) {
      if (e.key == entry.key) {
        replaced_.push_back(std::move(e.kind));  // kept: Find's callers may hold it
        e = std::move(entry);
        return;
      }
    }
    kinds_.push_back(std::move(entry));
  }

 private:
  struct Entry {
    std::string key;  // the name in lower case, made once (lookups run on every batch)
    std::shared_ptr<const Kind> kind;
  };
  static Entry MakeEntry(Kind kind) {
    std::string key = ToLower(kind.name);
    return Entry{std::move(key), std::make_shared<const Kind>(std::move(kind))};
  }

  mutable std::mutex mu_;
  std::vector<Entry> kinds_;
  std::vector<std::shared_ptr<const Kind>> replaced_;
};

}  // namespace sluice::util
