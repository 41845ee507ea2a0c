// Iceberg partition specs (spec "Partitioning", "Partition Transforms"): the terms a writer asks
// for (`day(ts)`, `bucket(16, id)`), the spec they bind to in table metadata (field ids from
// 1000, names as Iceberg Java gives them), and what a writer derives from a spec: each row's
// partition tuple, the data-file directory of a tuple, the Avro record (r102) a manifest stores
// the tuple in, and the manifest list's per-field summaries (r508).
//
// Transforms and their results (spec "Partition Transforms"):
//   identity     any supported column but decimal    -> the source value
//   year/month   date, timestamp, timestamptz       -> int, years / months since 1970-01
//   day          date, timestamp, timestamptz       -> date (days since 1970-01-01)
//   hour         timestamp, timestamptz             -> int, hours since 1970-01-01 00:00 UTC
//   bucket[N]    int, long, date, timestamp(tz), string, decimal
//                -> int, (murmur3_x86_32(single-value bytes) & INT_MAX) % N; ints and dates are
//                   hashed as 8-byte longs (so a column promoted from int to long keeps its buckets)
//   truncate[W]  int, long -> v - (v mod W) (floored); string -> its first W code points
// Tuple values use the Avro value model of iceberg/avro.h (int/long as integers, strings, null).
#pragma once

#include <arrow/type_fwd.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "iceberg/schema.h"

namespace sluice::iceberg {

enum class Transform { kIdentity, kYear, kMonth, kDay, kHour, kBucket, kTruncate };

/// One requested term, as PARTITIONED BY / partitionBy write it.
struct PartitionTerm {
  Transform transform = Transform::kIdentity;
  int64_t parameter = 0;  // bucket count or truncate width
  std::string column{};

  /// Canonical spelling: "country", "day(ts)", "bucket(16, id)".
  std::string ToString() const;
};

/// Parses one term: a column (`country`, `"odd name"`), `identity(c)`, Spark's `years/months/
/// days/hours(ts)` and their `year/month/day/hour` aliases, `bucket(N, c)`, `truncate(W, c)`
/// (Spark's argument order; `truncate(c, W)` is accepted too). Errors quote the term.
Result<PartitionTerm> ParsePartitionTerm(const std::string& text);

/// The terms of a comma-separated option value ("days(ts), bucket(16, id), country"); commas
/// inside parentheses belong to the term. Empty value: no terms. A term given twice is refused.
Result<std::vector<PartitionTerm>> ParsePartitionTerms(const std::string& option);

struct PartitionField {
  int source_id = 0;
  int field_id = 0;
  std::string name{};
  Transform transform = Transform::kIdentity;
  int64_t parameter = 0;

  /// The transform as table metadata spells it: identity, year, day, bucket[16], truncate[4].
  std::string TransformName() const;
};

struct PartitionSpec {
  int spec_id = 0;
  std::vector<PartitionField> fields{};

  bool unpartitioned() const { return fields.empty(); }
  /// {"spec-id": N, "fields": [...]}.
  nlohmann::json ToJson() const;
  /// The "fields" array alone (a manifest's `partition-spec` header key).
  nlohmann::json FieldsJson() const;
  static Result<PartitionSpec> FromJson(const nlohmann::json& j);
  /// The highest field id, 999 when unpartitioned (metadata's last-partition-id).
  int LastFieldId() const;
  /// "day(ts), bucket(16, id)" with the schema's column names; "(unpartitioned)" when empty.
  std::string Describe(const Schema& schema) const;
  /// Same transforms of the same source columns in the same order (names and ids not compared).
  bool SameTerms(const PartitionSpec& other) const;
};

/// Binds `terms` to `schema`: field ids 1000, 1001, ...; names as Iceberg Java: identity keeps
/// the column name, others `<column>_year|_month|_day|_hour|_bucket|_trunc`. Errors name the
/// term and the column (missing, or a type the transform does not take).
Result<PartitionSpec> BindPartitionSpec(const std::vector<PartitionTerm>& terms, const Schema& schema, int spec_id = 0);

/// The Iceberg type of a field's values ("int", "date", "string", ...).
Result<std::string> PartitionResultType(const PartitionField& field, const Schema& schema);

/// The Avro schema of data_file.partition: record r102, one optional field per partition field
/// (field-id = the partition field id); an empty record when unpartitioned.
Result<nlohmann::json> PartitionAvroType(const PartitionSpec& spec, const Schema& schema);

/// The rows of one partition of a batch.
struct PartitionedRows {
  nlohmann::json partition = nlohmann::json::object();  // field name -> value (null for null)
  std::string dir{};  // relative directory as Iceberg Java names it: "ts_day=2024-05-01/id_bucket=3"
  std::shared_ptr<arrow::Table> rows{};
};

/// Splits `rows` (conformed to `schema`, see ConformToSchema) by their partition tuple under
/// `spec`, each part in input order, parts sorted by tuple (every attempt of a batch writes the
/// same split). An unpartitioned spec gives one part with an empty directory.
Result<std::vector<PartitionedRows>> SplitByPartitionSpec(const arrow::Table& rows, const PartitionSpec& spec,
                                                          const Schema& schema);

/// The manifest list's `partitions` summaries (r508 records as Avro JSON values) of the
/// partition tuples of a manifest's entries: contains_null, contains_nan, lower/upper bound in
/// single-value serialization.
Result<nlohmann::json> PartitionSummaries(const PartitionSpec& spec, const Schema& schema,
                                          const std::vector<nlohmann::json>& tuples);

/// Iceberg's murmur3_x86_32 (seed 0) of `bytes`, as a signed 32-bit value.
int32_t Murmur3Hash32(const std::string& bytes);

}  // namespace sluice::iceberg
