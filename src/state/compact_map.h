// The file state store's in-memory table: byte-string keys and values packed into an arena,
// indexed by an open-addressing hash table, with a compact record of the keys changed since
// the last ClearChanges() (what a version's delta file needs).
//
// Layout (about 20 + key + value bytes per entry for small entries, against ~180 for a
// std::map<std::string, std::string> plus a change log):
// - Arena: blocks growing from 256 B to 1 MiB (an entry larger than that gets a block of its
//   own). An entry is varint((key_len << 2) | flags), varint(value_len), key, value; flags are
//   bit 0 "changed" and bit 1 "dead". An entry never moves while it is live except when the
//   arena is compacted (dead bytes > live bytes); a value of another length is written as a
//   new entry and the old one is marked dead.
// - Slots: a power-of-two array of u64, linear probing, load <= 0.8 counting tombstones. A slot
//   holds 0 (empty), 1 (tombstone) or (16-bit hash tag << 48) | (entry reference + 2).
// - Changes: references of entries that became "changed"; entries since marked dead are
//   skipped when read, so the list costs 8 bytes per changed key.
//
// Iteration in key order sorts references on the fly (O(n log n), 40 bytes per key of
// temporary memory: the first 32 key bytes as four integers and the reference, plus 32 per
// key of the largest group of keys sharing their first 32 bytes), collected by reading the
// arena front to back rather than through the slots (which would reach the entries at random);
// nothing else depends on order. Thread-compatible; copyable.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::state {

class CompactMap {
 public:
  CompactMap() = default;
  CompactMap(const CompactMap& other);
  CompactMap& operator=(const CompactMap& other);
  CompactMap(CompactMap&&) noexcept = default;
  CompactMap& operator=(CompactMap&&) noexcept = default;

  /// Number of live keys.
  int64_t size() const { return live_; }
  /// Bytes held: arena blocks plus slots plus the change list.
  int64_t memory_bytes() const;

  /// The value of `key`; the view is valid until the next change of the map.
  std::optional<std::string_view> Find(std::string_view key) const;
  /// Inserts or replaces. `mark_changed` records the key as changed (see ChangedKeys).
  /// Returns true if the key was new.
  bool Put(std::string_view key, std::string_view value, bool mark_changed);
  /// Removes `key`; returns whether it was present.
  bool Erase(std::string_view key);
  /// Put(key, the value fn(old value or nullopt, &value) gives, mark_changed) in one lookup.
  /// If fn returns a failed status, the map is unchanged and that status is returned.
  template <typename Fn>
  auto Upsert(std::string_view key, bool mark_changed, std::string* value, Fn&& fn) {
    MaybeGrow();
    const uint64_t hash = HashOf(key);
    bool found = false;
    const size_t i = Probe(key, hash, &found);
    std::optional<std::string_view> old;
    if (found) old = ValueOf(RefAt(i));
    value->clear();  // a buffer the caller reuses: fn starts from nothing, as with a new string
    auto st = fn(old, value);
    if (st.ok()) PutAt(i, found, hash, key, *value, mark_changed);
    return st;
  }

  /// Number of live keys marked changed.
  int64_t num_changed() const { return changed_live_; }
  /// Calls fn(key, value) for every live changed key, in bytewise key order.
  template <typename Fn>
  void ForEachChangedSorted(Fn&& fn) const {
    InOrder(SortedRefs(/*changed_only=*/true), [&](const SortItem& it) {
      const Entry e = Decode(it.ref);
      fn(std::string_view(e.key, e.key_len), std::string_view(e.value, e.value_len));
      return true;
    });
  }
  /// Forgets which keys changed (after a commit).
  void ClearChanges();

  /// Calls fn(key, value) for every live key in bytewise key order; stops at the first
  /// fn that returns false.
  template <typename Fn>
  void ForEachSorted(Fn&& fn) const {
    InOrder(SortedRefs(/*changed_only=*/false), [&](const SortItem& it) {
      const Entry e = Decode(it.ref);
      return static_cast<bool>(fn(std::string_view(e.key, e.key_len), std::string_view(e.value, e.value_len)));
    });
  }

  /// As ForEachSorted, over the keys that begin with `prefix`; only those are ordered.
  template <typename Fn>
  void ForEachSortedWithPrefix(std::string_view prefix, Fn&& fn) const {
    const uint64_t first = Prefix(prefix);  // the prefix's first 8 bytes, zero-padded
    const uint64_t last = first | (prefix.size() >= 8 ? 0 : ~uint64_t{0} >> (8 * prefix.size()));
    if (last < least_word_) return;  // no key can have the prefix: the table is not read
    InOrder(SortedRefs(/*changed_only=*/false, last, first), [&](const SortItem& it) {
      const Entry e = Decode(it.ref);
      const std::string_view key(e.key, e.key_len);
      if (key.substr(0, prefix.size()) != prefix) return true;  // a prefix longer than 8 bytes, or a shorter key
      return static_cast<bool>(fn(key, std::string_view(e.value, e.value_len)));
    });
  }

  enum class Walk { kKeep, kErase, kStop };
  /// Calls fn(key, value) for live keys in bytewise key order until it returns kStop, erasing
  /// each key it returns kErase for (no lookup by key: see DropErased). The views passed to
  /// fn are valid during the call only. With `up_to`, the walk ends before the first key whose
  /// first up_to.size() bytes are greater than `up_to`; it starts at the first key at or after
  /// `from`; only the keys between are sorted.
  template <typename Fn>
  void ForEachSortedErasing(Fn&& fn, std::optional<std::string_view> up_to = std::nullopt, std::string_view from = {}) {
    std::vector<uint64_t> erased;
    uint64_t max_word = ~uint64_t{0};  // no first word of a key within `up_to` is greater
    if (up_to) max_word = Prefix(*up_to) | (up_to->size() >= 8 ? 0 : ~uint64_t{0} >> (8 * up_to->size()));
    // Eviction with a bound no key has reached (most batches of a slow watermark) reads nothing.
    if (max_word < least_word_) return;
    // The least first word of the keys that stay: of those outside the walk's range (from the
    // pass over the table), and of those it keeps or does not reach (items come in order, so
    // the one it stops at is the least of the rest).
    uint64_t least = ~uint64_t{0};
    InOrder(SortedRefs(/*changed_only=*/false, max_word, Prefix(from), &least), [&](const SortItem& it) {
      const Entry e = Decode(it.ref);
      const Walk w = up_to && std::string_view(e.key, std::min<size_t>(e.key_len, up_to->size())) > *up_to ? Walk::kStop
                     : std::string_view(e.key, e.key_len) < from  // shares `from`'s first 8 bytes only
                         ? Walk::kKeep
                         : fn(std::string_view(e.key, e.key_len), std::string_view(e.value, e.value_len));
      if (w == Walk::kErase) {
        Kill(it.ref);
        erased.push_back(it.ref);
        return true;
      }
      least = std::min(least, it.words[0]);
      return w != Walk::kStop;
    });
    least_word_ = least;
    DropErased(erased);
    MaybeCompactArena();
  }

  /// Makes room for `keys` live keys without growing the table again.
  void Reserve(int64_t keys);

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    uint32_t capacity = 0;
    uint32_t used = 0;
  };
  struct Entry {
    char* header;   // first byte of the entry (holds the flags in its low bits)
    uint64_t key_len;
    const char* key;
    uint64_t value_len;
    char* value;
  };

  static constexpr uint64_t kEmpty = 0;
  static constexpr uint64_t kTombstone = 1;
  static constexpr uint8_t kChanged = 1;
  static constexpr uint8_t kDead = 2;
  static constexpr uint64_t kRefMask = (uint64_t{1} << 48) - 1;

  Entry Decode(uint64_t ref) const;
  /// Starts loading the entry at `ref` into the cache (a walk in key order reads the arena at
  /// random: the entry a few items ahead is requested while the current one is used).
  void Prefetch(uint64_t ref) const;
  static constexpr size_t kPrefetchAhead = 8;
  std::string_view KeyOf(uint64_t ref) const;
  std::string_view ValueOf(uint64_t ref) const;
  static uint64_t HashOf(std::string_view key);
  // The slot index holding `key`, or the slot to insert it at (*found false).
  size_t Probe(std::string_view key, uint64_t hash, bool* found) const;
  // Put's second half: `i` and `found` as Probe gave them for `key` (of hash `hash`).
  bool PutAt(size_t i, bool found, uint64_t hash, std::string_view key, std::string_view value, bool mark_changed);
  uint64_t Append(std::string_view key, std::string_view value, uint8_t flags);
  void Kill(uint64_t ref);
  void MaybeGrow();
  void Rehash(size_t capacity);
  void MaybeCompactArena();
  uint64_t RefAt(size_t slot) const { return (slots_[slot] & kRefMask) - 2; }
  void EraseSlot(size_t slot);
  // Frees the slots of entries just killed (dead, still in the arena): one by one, each found
  // by its reference without comparing keys, or, when more were erased than remain, by
  // rebuilding the slots from the survivors (no probe per erased key).
  void DropErased(const std::vector<uint64_t>& refs);

  // A live entry's first 32 key bytes as big-endian integers (zero-padded), and the entry: a
  // windowed key (window end, window start, then a group value of 9 bytes) fits.
  static constexpr size_t kSortWords = 4;
  struct SortItem {
    uint64_t words[kSortWords];
    uint64_t ref;
  };
  // The live (changed) entries in key order.
  // Only entries whose first 8 key bytes, as a big-endian integer, are within [min_word, max_word];
  // *least_outside (a pass over every live entry: !changed_only) lowered to the least first word
  // of the others.
  std::vector<SortItem> SortedRefs(bool changed_only, uint64_t max_word = ~uint64_t{0}, uint64_t min_word = 0,
                                   uint64_t* least_outside = nullptr) const;
  /// Calls fn(item) for each item in order, until it returns false, prefetching ahead.
  template <typename Fn>
  void InOrder(const std::vector<SortItem>& items, Fn&& fn) const {
    for (size_t i = 0; i < items.size(); ++i) {
      if (i + kPrefetchAhead < items.size()) Prefetch(items[i + kPrefetchAhead].ref);
      if (!fn(items[i])) return;
    }
  }
  // The first 8 bytes of `key` as a big-endian integer (zero-padded).
  static uint64_t Prefix(std::string_view key);
  // Sorts items by the referenced keys.
  void SortByKey(std::vector<SortItem>* items) const;

  std::vector<Block> blocks_;
  std::vector<uint64_t> slots_;
  std::vector<uint64_t> changed_;  // references; some may be dead
  int64_t live_ = 0;
  int64_t tombstones_ = 0;
  int64_t changed_live_ = 0;
  uint64_t live_bytes_ = 0;  // bytes of live entries
  uint64_t dead_bytes_ = 0;  // bytes of dead entries and unused block tails
  // No live key's first 8 bytes (Prefix) are less: lowered by every entry written, raised by an
  // erasing walk (which reads every key's first bytes anyway).
  uint64_t least_word_ = ~uint64_t{0};
};

}  // namespace sluice::state
