#include "state/compact_map.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <tuple>

namespace sluice::state {
namespace {

constexpr uint64_t kOffsetBits = 24;
constexpr uint64_t kMinBlock = 256;
constexpr uint64_t kMaxBlock = 1 << 20;  // < 2^kOffsetBits

uint64_t TagOf(uint64_t hash) { return hash >> 48; }

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

char* PutVarint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

const char* GetVarint(const char* p, uint64_t* v) {
  uint64_t out = 0;
  for (int shift = 0;; shift += 7) {
    const auto b = static_cast<uint8_t>(*p++);
    out |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) break;
  }
  *v = out;
  return p;
}

}  // namespace

// The first 8 key bytes as a big-endian number: comparing these compares the keys' prefixes.
uint64_t CompactMap::Prefix(std::string_view key) {
  if (key.size() >= 8) {
    uint64_t p;
    std::memcpy(&p, key.data(), 8);
    if constexpr (std::endian::native == std::endian::little) p = __builtin_bswap64(p);
    return p;
  }
  uint64_t p = 0;
  for (size_t i = 0; i < 8; ++i) p = (p << 8) | (i < key.size() ? static_cast<uint8_t>(key[i]) : 0);
  return p;
}

uint64_t CompactMap::HashOf(std::string_view key) { return std::hash<std::string_view>{}(key); }

CompactMap::CompactMap(const CompactMap& other)
    : slots_(other.slots_),
      changed_(other.changed_),
      live_(other.live_),
      tombstones_(other.tombstones_),
      changed_live_(other.changed_live_),
      live_bytes_(other.live_bytes_),
      dead_bytes_(other.dead_bytes_),
      least_word_(other.least_word_) {
  blocks_.reserve(other.blocks_.size());
  for (const Block& b : other.blocks_) {
    Block copy;
    copy.data = std::make_unique_for_overwrite<char[]>(b.capacity);
    std::memcpy(copy.data.get(), b.data.get(), b.used);
    copy.capacity = b.capacity;
    copy.used = b.used;
    blocks_.push_back(std::move(copy));
  }
}

CompactMap& CompactMap::operator=(const CompactMap& other) {
  if (this != &other) *this = CompactMap(other);
  return *this;
}

int64_t CompactMap::memory_bytes() const {
  uint64_t bytes = (slots_.capacity() + changed_.capacity()) * sizeof(uint64_t) + blocks_.capacity() * sizeof(Block);
  for (const Block& b : blocks_) bytes += b.capacity;
  return static_cast<int64_t>(bytes);
}

CompactMap::Entry CompactMap::Decode(uint64_t ref) const {
  const Block& b = blocks_[ref >> kOffsetBits];
  char* p = b.data.get() + (ref & ((uint64_t{1} << kOffsetBits) - 1));
  Entry e;
  e.header = p;
  uint64_t first = 0;
  const char* q = GetVarint(p, &first);
  e.key_len = first >> 2;
  q = GetVarint(q, &e.value_len);
  e.key = q;
  e.value = const_cast<char*>(q + e.key_len);
  return e;
}

void CompactMap::Prefetch(uint64_t ref) const {
  __builtin_prefetch(blocks_[ref >> kOffsetBits].data.get() + (ref & ((uint64_t{1} << kOffsetBits) - 1)));
}

std::string_view CompactMap::KeyOf(uint64_t ref) const {
  Entry e = Decode(ref);
  return {e.key, e.key_len};
}

std::string_view CompactMap::ValueOf(uint64_t ref) const {
  Entry e = Decode(ref);
  return {e.value, e.value_len};
}

size_t CompactMap::Probe(std::string_view key, uint64_t hash, bool* found) const {
  const size_t mask = slots_.size() - 1;
  const uint64_t tag = TagOf(hash);
  size_t first_tombstone = SIZE_MAX;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint64_t s = slots_[i];
    if (s == kEmpty) {
      *found = false;
      return first_tombstone != SIZE_MAX ? first_tombstone : i;
    }
    if (s == kTombstone) {
      if (first_tombstone == SIZE_MAX) first_tombstone = i;
      continue;
    }
    if ((s >> 48) == tag && KeyOf((s & kRefMask) - 2) == key) {
      *found = true;
      return i;
    }
  }
}

std::optional<std::string_view> CompactMap::Find(std::string_view key) const {
  if (live_ == 0) return std::nullopt;
  bool found = false;
  const size_t i = Probe(key, HashOf(key), &found);
  if (!found) return std::nullopt;
  return ValueOf(RefAt(i));
}

uint64_t CompactMap::Append(std::string_view key, std::string_view value, uint8_t flags) {
  const uint64_t first = (static_cast<uint64_t>(key.size()) << 2) | flags;
  const uint64_t size = VarintSize(first) + VarintSize(value.size()) + key.size() + value.size();
  if (blocks_.empty() || blocks_.back().capacity - blocks_.back().used < size) {
    if (!blocks_.empty()) dead_bytes_ += blocks_.back().capacity - blocks_.back().used;
    uint64_t cap = blocks_.empty() ? kMinBlock : std::min<uint64_t>(kMaxBlock, uint64_t{blocks_.back().capacity} * 2);
    cap = std::max(cap, size);  // a large entry gets a block of its own, addressed at offset 0
    Block b;
    b.data = std::make_unique_for_overwrite<char[]>(cap);
    b.capacity = static_cast<uint32_t>(cap);
    blocks_.push_back(std::move(b));
  }
  Block& b = blocks_.back();
  const uint64_t ref = (static_cast<uint64_t>(blocks_.size() - 1) << kOffsetBits) | b.used;
  char* p = PutVarint(b.data.get() + b.used, first);
  p = PutVarint(p, value.size());
  if (!key.empty()) std::memcpy(p, key.data(), key.size());
  if (!value.empty()) std::memcpy(p + key.size(), value.data(), value.size());
  b.used += static_cast<uint32_t>(size);
  live_bytes_ += size;
  least_word_ = std::min(least_word_, Prefix(key));
  if (flags & kChanged) changed_.push_back(ref);
  return ref;
}

void CompactMap::Kill(uint64_t ref) {
  Entry e = Decode(ref);
  const uint64_t size = static_cast<uint64_t>(e.value + e.value_len - e.header);
  if (*e.header & kChanged) --changed_live_;
  *e.header = static_cast<char>(*e.header | kDead);
  live_bytes_ -= size;
  dead_bytes_ += size;
}

bool CompactMap::Put(std::string_view key, std::string_view value, bool mark_changed) {
  MaybeGrow();
  const uint64_t hash = HashOf(key);
  bool found = false;
  const size_t i = Probe(key, hash, &found);
  return PutAt(i, found, hash, key, value, mark_changed);
}

bool CompactMap::PutAt(size_t i, bool found, uint64_t hash, std::string_view key, std::string_view value,
                       bool mark_changed) {
  if (found) {
    const uint64_t ref = RefAt(i);
    Entry e = Decode(ref);
    const bool was_changed = (*e.header & kChanged) != 0;
    if (e.value_len == value.size()) {
      if (!value.empty()) std::memcpy(e.value, value.data(), value.size());
      if (mark_changed && !was_changed) {
        *e.header = static_cast<char>(*e.header | kChanged);
        changed_.push_back(ref);
        ++changed_live_;
      }
      return false;
    }
    Kill(ref);  // a value of another length: a new entry replaces this one
    const bool changed = was_changed || mark_changed;
    slots_[i] = (TagOf(hash) << 48) | (Append(key, value, changed ? kChanged : 0) + 2);
    if (changed) ++changed_live_;
    MaybeCompactArena();
    return false;
  }
  if (slots_[i] == kTombstone) --tombstones_;
  slots_[i] = (TagOf(hash) << 48) | (Append(key, value, mark_changed ? kChanged : 0) + 2);
  ++live_;
  if (mark_changed) ++changed_live_;
  return true;
}

bool CompactMap::Erase(std::string_view key) {
  if (live_ == 0) return false;
  bool found = false;
  const size_t i = Probe(key, HashOf(key), &found);
  if (!found) return false;
  EraseSlot(i);
  MaybeCompactArena();
  return true;
}

void CompactMap::EraseSlot(size_t slot) {
  Kill(RefAt(slot));
  slots_[slot] = kTombstone;
  ++tombstones_;
  --live_;
}

void CompactMap::DropErased(const std::vector<uint64_t>& refs) {
  if (refs.empty()) return;
  live_ -= static_cast<int64_t>(refs.size());
  if (static_cast<int64_t>(refs.size()) > live_) {
    Rehash(slots_.size());  // drops the slots of dead entries
    return;
  }
  const size_t mask = slots_.size() - 1;
  for (size_t k = 0; k < refs.size(); ++k) {
    if (k + kPrefetchAhead < refs.size()) Prefetch(refs[k + kPrefetchAhead]);
    const uint64_t ref = refs[k];
    const uint64_t hash = HashOf(KeyOf(ref));
    const uint64_t want = (TagOf(hash) << 48) | (ref + 2);
    size_t i = hash & mask;
    while (slots_[i] != want) i = (i + 1) & mask;
    slots_[i] = kTombstone;
    ++tombstones_;
  }
}

void CompactMap::Reserve(int64_t keys) {
  // MaybeGrow's bound: live keys and tombstones at most 80 % of the slots.
  size_t cap = std::max<size_t>(slots_.size(), 8);
  while (static_cast<size_t>(keys + tombstones_ + 1) * 5 > cap * 4) cap *= 2;
  if (cap != slots_.size()) Rehash(cap);
}

void CompactMap::ClearChanges() {
  for (uint64_t ref : changed_) {
    char* h = Decode(ref).header;
    *h = static_cast<char>(*h & ~kChanged);
  }
  changed_.clear();
  changed_.shrink_to_fit();
  changed_live_ = 0;
}

void CompactMap::MaybeGrow() {
  const size_t cap = slots_.size();
  const auto used = static_cast<size_t>(live_ + tombstones_ + 1);
  if (used * 5 <= cap * 4) return;
  // Double when live keys alone would fill more than 40 %; else only drop the tombstones.
  Rehash(cap == 0 ? 8 : static_cast<size_t>(live_ + 1) * 5 > cap * 2 ? cap * 2 : cap);
}

void CompactMap::Rehash(size_t capacity) {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(capacity, kEmpty);
  const size_t mask = capacity - 1;
  for (size_t k = 0; k < old.size(); ++k) {
    const uint64_t ahead = k + kPrefetchAhead < old.size() ? old[k + kPrefetchAhead] : kEmpty;
    if (ahead != kEmpty && ahead != kTombstone) Prefetch((ahead & kRefMask) - 2);
    const uint64_t s = old[k];
    if (s == kEmpty || s == kTombstone) continue;
    const Entry e = Decode((s & kRefMask) - 2);
    if (*e.header & kDead) continue;  // killed, its slot not yet freed (DropErased)
    const uint64_t hash = HashOf({e.key, e.key_len});
    size_t i = hash & mask;
    while (slots_[i] != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
  tombstones_ = 0;
}

void CompactMap::MaybeCompactArena() {
  if (dead_bytes_ < kMaxBlock || dead_bytes_ < live_bytes_) return;
  // Copy the live entries into fresh blocks (slot order), repointing their slots; the change
  // list is rebuilt from the copied flags.
  std::vector<Block> old = std::move(blocks_);
  std::vector<Block>& fresh = blocks_;
  fresh.clear();
  changed_.clear();
  live_bytes_ = dead_bytes_ = 0;
  for (uint64_t& s : slots_) {
    if (s == kEmpty || s == kTombstone) continue;
    const uint64_t ref = (s & kRefMask) - 2;
    const Block& b = old[ref >> kOffsetBits];
    const char* p = b.data.get() + (ref & ((uint64_t{1} << kOffsetBits) - 1));
    uint64_t first = 0, value_len = 0;
    const char* q = GetVarint(p, &first);
    q = GetVarint(q, &value_len);
    const uint64_t key_len = first >> 2;
    const uint64_t moved = Append({q, key_len}, {q + key_len, value_len}, static_cast<uint8_t>(first & kChanged));
    s = (s & ~kRefMask) | (moved + 2);
  }
}

std::vector<CompactMap::SortItem> CompactMap::SortedRefs(bool changed_only, uint64_t max_word, uint64_t min_word,
                                                         uint64_t* least_outside) const {
  std::vector<SortItem> order;
  uint64_t least = ~uint64_t{0};
  auto add = [&order, &least, max_word, min_word](const Entry& e, uint64_t ref) {
    SortItem item{{}, ref};
    item.words[0] = Prefix({e.key, e.key_len});
    if (item.words[0] > max_word || item.words[0] < min_word) {  // most entries, on a join side
      least = std::min(least, item.words[0]);
      return;
    }
    // The key's next 24 bytes, zero-padded, read as three big-endian words.
    char rest[8 * (kSortWords - 1)] = {};
    if (e.key_len > 8) std::memcpy(rest, e.key + 8, std::min<size_t>(e.key_len - 8, sizeof rest));
    for (size_t w = 1; w < kSortWords; ++w) {
      uint64_t word;
      std::memcpy(&word, rest + 8 * (w - 1), sizeof word);
      if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
      item.words[w] = word;
    }
    order.push_back(item);
  };
  if (changed_only) {
    order.reserve(static_cast<size_t>(changed_live_));
    for (uint64_t ref : changed_) {
      const Entry e = Decode(ref);
      if (!(*e.header & kDead)) add(e, ref);
    }
  } else {
    // The live entries in arena order: block by block, front to back.
    order.reserve(static_cast<size_t>(live_));
    for (uint64_t b = 0; b < blocks_.size(); ++b) {
      for (uint64_t off = 0; off < blocks_[b].used;) {
        const uint64_t ref = (b << kOffsetBits) | off;
        const Entry e = Decode(ref);
        if (!(*e.header & kDead)) add(e, ref);
        off += static_cast<uint64_t>(e.value + e.value_len - e.header);
      }
    }
  }
  if (least_outside && !changed_only) *least_outside = std::min(*least_outside, least);
  SortByKey(&order);
  return order;
}

void CompactMap::SortByKey(std::vector<SortItem>* items) const {
  // Sort by the first 32 key bytes as integers, taken while the entries were read in arena
  // order: structured keys (a window end and start, then an integer group key) are ordered
  // without reading an entry again. Only runs of keys equal in those bytes (longer keys, or
  // keys that differ in length alone) are decoded, each once, and sorted by the next 8 bytes
  // after what all keys of the run share, then by the rest of the key.
  auto& order = *items;
  auto words = [](const SortItem& a) { return std::tie(a.words[0], a.words[1], a.words[2], a.words[3]); };
  static_assert(kSortWords == 4);
  std::sort(order.begin(), order.end(), [&](const SortItem& a, const SortItem& b) { return words(a) < words(b); });
  struct Ranked {
    uint64_t chunk;        // the 8 bytes after the run's common prefix
    std::string_view key;  // the key after its common prefix
    uint64_t ref;
  };
  std::vector<Ranked> run;
  for (size_t i = 0; i < order.size();) {
    size_t j = i + 1;
    while (j < order.size() && words(order[j]) == words(order[i])) ++j;
    if (j - i > 1) {
      run.clear();
      run.reserve(j - i);
      for (size_t k = i; k < j; ++k) run.push_back({0, KeyOf(order[k].ref), order[k].ref});
      const std::string_view first = run[0].key;
      size_t common = first.size();
      for (size_t k = 1; k < run.size() && common > 0; ++k) {
        const std::string_view key = run[k].key;
        const size_t n = std::min(common, key.size());
        size_t c = 0;
        while (c < n && key[c] == first[c]) ++c;
        common = c;
      }
      for (auto& r : run) {
        r.key.remove_prefix(common);
        r.chunk = Prefix(r.key);
      }
      std::sort(run.begin(), run.end(),
                [](const Ranked& a, const Ranked& b) { return a.chunk != b.chunk ? a.chunk < b.chunk : a.key < b.key; });
      for (size_t k = i; k < j; ++k) order[k].ref = run[k - i].ref;
    }
    i = j;
  }
}

}  // namespace sluice::state
