// Avro binary encoding and object container files (Avro 1.11 specification, "Binary Encoding"
// and "Object Container Files"), for the value model described in avro.h.
#include "iceberg/avro.h"

#include <arrow/util/compression.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "util/json_guard.h"

namespace sluice::iceberg::avro {
namespace {

constexpr char kMagic[4] = {'O', 'b', 'j', 1};
constexpr size_t kSyncSize = 16;

using Named = std::map<std::string, TypePtr>;

Result<TypePtr> Parse(const json& s, Named* named);

Result<TypePtr> ParsePrimitive(const std::string& name, Named* named) {
  auto t = std::make_shared<Type>();
  using K = Type::Kind;
  static const std::map<std::string, K> kinds = {{"null", K::kNull},     {"boolean", K::kBoolean}, {"int", K::kInt},
                                                 {"long", K::kLong},     {"float", K::kFloat},     {"double", K::kDouble},
                                                 {"bytes", K::kBytes},   {"string", K::kString}};
  auto it = kinds.find(name);
  if (it != kinds.end()) {
    t->kind = it->second;
    return TypePtr(t);
  }
  auto ref = named->find(name);
  if (ref != named->end()) return ref->second;
  return Status::Invalid("Avro schema: unknown type '", name, "'");
}

Result<TypePtr> Parse(const json& s, Named* named) {
  if (s.is_string()) return ParsePrimitive(s.get<std::string>(), named);
  if (s.is_array()) {
    auto t = std::make_shared<Type>();
    t->kind = Type::Kind::kUnion;
    for (const auto& b : s) {
      ARROW_ASSIGN_OR_RAISE(auto bt, Parse(b, named));
      t->branches.push_back(bt);
    }
    return TypePtr(t);
  }
  if (!s.is_object() || !s.contains("type")) return Status::Invalid("Avro schema: not a type: ", s.dump());
  const json& type = s["type"];
  if (!type.is_string()) return Parse(type, named);
  const std::string kind = type.get<std::string>();
  auto t = std::make_shared<Type>();
  if (kind == "record" || kind == "error") {
    t->kind = Type::Kind::kRecord;
    t->name = s.value("name", "");
    (*named)[t->name] = t;  // referenced by name later (recursive references are not supported)
    for (const auto& f : s.value("fields", json::array())) {
      ARROW_ASSIGN_OR_RAISE(auto ft, Parse(f.at("type"), named));
      t->fields.emplace_back(f.at("name").get<std::string>(), ft);
    }
  } else if (kind == "array") {
    t->kind = Type::Kind::kArray;
    ARROW_ASSIGN_OR_RAISE(t->items, Parse(s.at("items"), named));
  } else if (kind == "map") {
    t->kind = Type::Kind::kMap;
    ARROW_ASSIGN_OR_RAISE(t->items, Parse(s.at("values"), named));
  } else if (kind == "fixed") {
    t->kind = Type::Kind::kFixed;
    t->name = s.value("name", "");
    t->size = s.at("size").get<int64_t>();
    (*named)[t->name] = t;
  } else if (kind == "enum") {
    return Status::NotImplemented("Avro enum types are not supported");
  } else {
    return ParsePrimitive(kind, named);  // {"type": "long", "logicalType": ...}
  }
  return TypePtr(t);
}

void WriteBytes(const std::string& b, std::string* out) {
  WriteLong(static_cast<int64_t>(b.size()), out);
  out->append(b);
}

template <typename T>
void WriteLittleEndian(T v, std::string* out) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));  // x86-64 and aarch64 Linux are little-endian
  out->append(buf, sizeof(T));
}

bool Fits(const Type& t, const json& v) {
  using K = Type::Kind;
  switch (t.kind) {
    case K::kNull: return v.is_null();
    case K::kBoolean: return v.is_boolean();
    case K::kInt: case K::kLong: return v.is_number_integer();
    case K::kFloat: case K::kDouble: return v.is_number();
    case K::kBytes: case K::kFixed: return v.is_binary() || v.is_string();
    case K::kString: return v.is_string();
    case K::kRecord: case K::kMap: return v.is_object();
    case K::kArray: return v.is_array();
    case K::kUnion: return false;
  }
  return false;
}

Status EncodeAt(const Type& t, const json& v, const std::string& where, std::string* out) {
  using K = Type::Kind;
  auto wrong = [&]() { return Status::Invalid("Avro encode: ", where, " does not fit its schema: ", v.dump()); };
  if (t.kind != K::kUnion && !Fits(t, v)) return wrong();
  switch (t.kind) {
    case K::kNull: return Status::OK();
    case K::kBoolean: out->push_back(v.get<bool>() ? 1 : 0); return Status::OK();
    case K::kInt: {
      int64_t n = v.get<int64_t>();
      if (n < INT32_MIN || n > INT32_MAX) return Status::Invalid("Avro encode: ", where, " out of int range: ", n);
      WriteLong(n, out);
      return Status::OK();
    }
    case K::kLong: WriteLong(v.get<int64_t>(), out); return Status::OK();
    case K::kFloat: WriteLittleEndian(v.get<float>(), out); return Status::OK();
    case K::kDouble: WriteLittleEndian(v.get<double>(), out); return Status::OK();
    case K::kString: WriteBytes(v.get<std::string>(), out); return Status::OK();
    case K::kBytes:
    case K::kFixed: {
      std::string b = v.is_binary() ? std::string(v.get_binary().begin(), v.get_binary().end()) : v.get<std::string>();
      if (t.kind == K::kBytes) {
        WriteBytes(b, out);
      } else {
        if (static_cast<int64_t>(b.size()) != t.size) return wrong();
        out->append(b);
      }
      return Status::OK();
    }
    case K::kRecord:
      for (const auto& [name, ft] : t.fields) {
        auto it = v.find(name);
        ARROW_RETURN_NOT_OK(EncodeAt(*ft, it == v.end() ? json() : *it, where + "." + name, out));
      }
      return Status::OK();
    case K::kArray:
      if (!v.empty()) {
        WriteLong(static_cast<int64_t>(v.size()), out);
        for (size_t i = 0; i < v.size(); ++i) {
          ARROW_RETURN_NOT_OK(EncodeAt(*t.items, v[i], where + "[" + std::to_string(i) + "]", out));
        }
      }
      WriteLong(0, out);
      return Status::OK();
    case K::kMap:
      if (!v.empty()) {
        WriteLong(static_cast<int64_t>(v.size()), out);
        for (const auto& [k, item] : v.items()) {
          WriteBytes(k, out);
          ARROW_RETURN_NOT_OK(EncodeAt(*t.items, item, where + "[" + k + "]", out));
        }
      }
      WriteLong(0, out);
      return Status::OK();
    case K::kUnion:
      for (size_t i = 0; i < t.branches.size(); ++i) {
        if (Fits(*t.branches[i], v)) {
          WriteLong(static_cast<int64_t>(i), out);
          return EncodeAt(*t.branches[i], v, where, out);
        }
      }
      return wrong();
  }
  return wrong();
}

Status Need(const std::string& data, size_t pos, size_t n) {
  if (pos + n > data.size()) return Status::Invalid("Avro decode: unexpected end of data at byte ", pos);
  return Status::OK();
}

Result<std::string> ReadBytes(const std::string& data, size_t* pos) {
  ARROW_ASSIGN_OR_RAISE(int64_t n, ReadLong(data, pos));
  if (n < 0) return Status::Invalid("Avro decode: negative length at byte ", *pos);
  ARROW_RETURN_NOT_OK(Need(data, *pos, static_cast<size_t>(n)));
  std::string s = data.substr(*pos, static_cast<size_t>(n));
  *pos += static_cast<size_t>(n);
  return s;
}

template <typename T>
Result<T> ReadLittleEndian(const std::string& data, size_t* pos) {
  ARROW_RETURN_NOT_OK(Need(data, *pos, sizeof(T)));
  T v;
  std::memcpy(&v, data.data() + *pos, sizeof(T));
  *pos += sizeof(T);
  return v;
}

json Binary(const std::string& b) { return json::binary(std::vector<std::uint8_t>(b.begin(), b.end())); }

// Reads block-encoded items (arrays and maps): count, [byte size if count < 0], items..., 0.
template <typename F>
Status ReadBlocks(const std::string& data, size_t* pos, F&& item) {
  while (true) {
    ARROW_ASSIGN_OR_RAISE(int64_t count, ReadLong(data, pos));
    if (count == 0) return Status::OK();
    if (count < 0) {
      if (count == INT64_MIN) return Status::Invalid("Avro decode: block count out of range at byte ", *pos);
      count = -count;
      ARROW_RETURN_NOT_OK(ReadLong(data, pos).status());  // block size in bytes
    }
    // Every item a manifest holds takes at least one byte: a larger count is damage (and would
    // make items of no bytes, such as nulls, grow without bound).
    if (count > static_cast<int64_t>(data.size() - *pos)) {
      return Status::Invalid("Avro decode: a block of ", count, " items at byte ", *pos, " is longer than the ",
                             data.size() - *pos, " bytes left");
    }
    for (int64_t i = 0; i < count; ++i) ARROW_RETURN_NOT_OK(item());
  }
}

std::string RandomSync() {
  std::random_device rd;
  std::string s(kSyncSize, '\0');
  for (auto& c : s) c = static_cast<char>(rd() & 0xff);
  return s;
}

Result<std::string> InflateRaw(const std::string& in, const std::string& what) {
  arrow::util::GZipCodecOptions opts;
  opts.gzip_format = arrow::util::GZipFormat::DEFLATE;
  ARROW_ASSIGN_OR_RAISE(auto codec, arrow::util::Codec::Create(arrow::Compression::GZIP, opts));
  ARROW_ASSIGN_OR_RAISE(auto d, codec->MakeDecompressor());
  std::string out;
  size_t read = 0;
  std::string buf(64 * 1024, '\0');
  while (true) {
    ARROW_ASSIGN_OR_RAISE(auto r, d->Decompress(static_cast<int64_t>(in.size() - read),
                                                reinterpret_cast<const uint8_t*>(in.data() + read),
                                                static_cast<int64_t>(buf.size()), reinterpret_cast<uint8_t*>(buf.data())));
    read += static_cast<size_t>(r.bytes_read);
    out.append(buf.data(), static_cast<size_t>(r.bytes_written));
    if (d->IsFinished() || (read >= in.size() && !r.need_more_output && r.bytes_written == 0)) break;
  }
  (void)what;
  return out;
}

}  // namespace

Result<TypePtr> ParseSchema(const json& schema) {
  Named named;
  return Parse(schema, &named);
}

Result<TypePtr> ParseSchema(const std::string& schema_text) {
  json j = json::parse(schema_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Invalid("Avro schema is not valid JSON");
  return util::GuardJson("Avro schema", [&] { return ParseSchema(j); });
}

void WriteLong(int64_t v, std::string* out) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out->push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out->push_back(static_cast<char>(z));
}

Result<int64_t> ReadLong(const std::string& data, size_t* pos) {
  uint64_t z = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    ARROW_RETURN_NOT_OK(Need(data, *pos, 1));
    auto b = static_cast<uint8_t>(data[(*pos)++]);
    z |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  return Status::Invalid("Avro decode: varint longer than 10 bytes at byte ", *pos);
}

Status Encode(const Type& type, const json& value, std::string* out) { return EncodeAt(type, value, "record", out); }

Result<json> Decode(const Type& t, const std::string& data, size_t* pos) {
  using K = Type::Kind;
  switch (t.kind) {
    case K::kNull: return json();
    case K::kBoolean: {
      ARROW_RETURN_NOT_OK(Need(data, *pos, 1));
      return json(data[(*pos)++] != 0);
    }
    case K::kInt:
    case K::kLong: {
      ARROW_ASSIGN_OR_RAISE(int64_t v, ReadLong(data, pos));
      return json(v);
    }
    case K::kFloat: {
      ARROW_ASSIGN_OR_RAISE(float v, ReadLittleEndian<float>(data, pos));
      return json(v);
    }
    case K::kDouble: {
      ARROW_ASSIGN_OR_RAISE(double v, ReadLittleEndian<double>(data, pos));
      return json(v);
    }
    case K::kString: {
      ARROW_ASSIGN_OR_RAISE(auto s, ReadBytes(data, pos));
      return json(std::move(s));
    }
    case K::kBytes: {
      ARROW_ASSIGN_OR_RAISE(auto s, ReadBytes(data, pos));
      return Binary(s);
    }
    case K::kFixed: {
      ARROW_RETURN_NOT_OK(Need(data, *pos, static_cast<size_t>(t.size)));
      std::string s = data.substr(*pos, static_cast<size_t>(t.size));
      *pos += static_cast<size_t>(t.size);
      return Binary(s);
    }
    case K::kRecord: {
      json obj = json::object();
      for (const auto& [name, ft] : t.fields) {
        ARROW_ASSIGN_OR_RAISE(obj[name], Decode(*ft, data, pos));
      }
      return obj;
    }
    case K::kArray: {
      json arr = json::array();
      ARROW_RETURN_NOT_OK(ReadBlocks(data, pos, [&]() -> Status {
        ARROW_ASSIGN_OR_RAISE(auto v, Decode(*t.items, data, pos));
        arr.push_back(std::move(v));
        return Status::OK();
      }));
      return arr;
    }
    case K::kMap: {
      json obj = json::object();
      ARROW_RETURN_NOT_OK(ReadBlocks(data, pos, [&]() -> Status {
        ARROW_ASSIGN_OR_RAISE(auto k, ReadBytes(data, pos));
        ARROW_ASSIGN_OR_RAISE(obj[k], Decode(*t.items, data, pos));
        return Status::OK();
      }));
      return obj;
    }
    case K::kUnion: {
      ARROW_ASSIGN_OR_RAISE(int64_t b, ReadLong(data, pos));
      if (b < 0 || b >= static_cast<int64_t>(t.branches.size())) {
        return Status::Invalid("Avro decode: union branch ", b, " out of range at byte ", *pos);
      }
      return Decode(*t.branches[static_cast<size_t>(b)], data, pos);
    }
  }
  return Status::Invalid("Avro decode: unknown type");
}

Result<std::string> WriteContainer(const std::string& schema_text, const std::map<std::string, std::string>& metadata,
                                   const std::vector<json>& records) {
  ARROW_ASSIGN_OR_RAISE(auto type, ParseSchema(schema_text));
  std::map<std::string, std::string> header = metadata;
  header["avro.schema"] = schema_text;
  header["avro.codec"] = "null";
  std::string out(kMagic, sizeof(kMagic));
  WriteLong(static_cast<int64_t>(header.size()), &out);
  for (const auto& [k, v] : header) {
    WriteBytes(k, &out);
    WriteBytes(v, &out);
  }
  WriteLong(0, &out);
  const std::string sync = RandomSync();
  out += sync;
  if (!records.empty()) {
    std::string block;
    for (const auto& r : records) ARROW_RETURN_NOT_OK(Encode(*type, r, &block));
    WriteLong(static_cast<int64_t>(records.size()), &out);
    WriteBytes(block, &out);
    out += sync;
  }
  return out;
}

Result<FileContents> ReadContainer(const std::string& bytes, const std::string& what) {
  if (bytes.size() < sizeof(kMagic) + kSyncSize || bytes.compare(0, sizeof(kMagic), kMagic, sizeof(kMagic)) != 0) {
    return Status::Invalid("Not an Avro container file: ", what);
  }
  FileContents fc;
  size_t pos = sizeof(kMagic);
  auto fail = [&](const Status& st) { return st.WithMessage("Cannot read Avro file ", what, ": ", st.message()); };
  Status st = ReadBlocks(bytes, &pos, [&]() -> Status {
    ARROW_ASSIGN_OR_RAISE(auto k, ReadBytes(bytes, &pos));
    ARROW_ASSIGN_OR_RAISE(fc.metadata[k], ReadBytes(bytes, &pos));
    return Status::OK();
  });
  if (!st.ok()) return fail(st);
  if (pos + kSyncSize > bytes.size()) return fail(Status::Invalid("truncated header"));
  const std::string sync = bytes.substr(pos, kSyncSize);
  pos += kSyncSize;
  auto schema = ParseSchema(fc.metadata["avro.schema"]);
  if (!schema.ok()) return fail(schema.status());
  std::string codec = fc.metadata.count("avro.codec") ? fc.metadata["avro.codec"] : "null";
  if (codec != "null" && codec != "deflate") return fail(Status::NotImplemented("unsupported codec '", codec, "'"));
  while (pos < bytes.size()) {
    auto count = ReadLong(bytes, &pos);
    if (!count.ok()) return fail(count.status());
    auto block = ReadBytes(bytes, &pos);
    if (!block.ok()) return fail(block.status());
    std::string data = std::move(*block);
    if (codec == "deflate") {
      auto inflated = InflateRaw(data, what);
      if (!inflated.ok()) return fail(inflated.status());
      data = std::move(*inflated);
    }
    size_t bpos = 0;
    for (int64_t i = 0; i < *count; ++i) {
      auto rec = Decode(**schema, data, &bpos);
      if (!rec.ok()) return fail(rec.status());
      fc.records.push_back(std::move(*rec));
    }
    if (bytes.compare(pos, kSyncSize, sync) != 0) return fail(Status::Invalid("sync marker mismatch at byte ", pos));
    pos += kSyncSize;
  }
  return fc;
}

}  // namespace sluice::iceberg::avro
