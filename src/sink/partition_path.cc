#include "sink/partition_path.h"

#include <arrow/api.h>
#include <arrow/compute/api_vector.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "util/value_text.h"
#include "util/strings.h"

namespace sluice::sink {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n\r");
  return s.substr(b, e - b + 1);
}

bool NeedsEscaping(unsigned char c) {
  if (c >= 0x01 && c <= 0x1F) return true;
  switch (c) {
    case '"': case '#': case '%': case '\'': case '*': case '/': case ':': case '=': case '?': case '\\':
    case 0x7F: case '{': case '[': case ']': case '^':
      return true;
    default:
      return false;
  }
}

// The index of `name` in `schema`, matched case-insensitively (Spark's default resolution), or -1.
int FindColumn(const arrow::Schema& schema, const std::string& name) {
  for (int i = 0; i < schema.num_fields(); ++i) {
    if (util::ToLower(schema.field(i)->name()) == util::ToLower(name)) return i;
  }
  return -1;
}

std::string ColumnList(const arrow::Schema& schema) {
  std::string out;
  for (const auto& f : schema.fields()) out += (out.empty() ? "" : ", ") + f->name();
  return out;
}

}  // namespace

std::string EscapePartitionPathName(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (unsigned char c : name) {
    if (NeedsEscaping(c)) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Result<std::vector<std::string>> PartitionColumnsOption(const plan::Options& options) {
  std::vector<std::string> columns;
  auto v = options.Get(kPartitionByOption);
  if (!v) return columns;
  size_t start = 0;
  while (true) {
    size_t comma = v->find(',', start);
    std::string name = Trim(v->substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (name.empty()) {
      return Status::Invalid("Option '", kPartitionByOption, "' = '", *v,
                             "' has an empty column name; give the partition columns separated by commas, e.g. 'dt,country'");
    }
    if (name.find('(') != std::string::npos) {
      const std::string term = v->substr(start, v->find(')', start) == std::string::npos
                                                    ? std::string::npos
                                                    : v->find(')', start) + 1 - start);
      return Status::Invalid("Option '", kPartitionByOption, "' = '", *v, "': ", Trim(term),
                             " is an Iceberg partition transform; file output is partitioned by columns "
                             "(Hive-style directories): compute the value in the query (e.g. to_date(ts) AS dt) "
                             "and partition by that column");
    }
    for (const auto& seen : columns) {
      if (util::ToLower(seen) == util::ToLower(name)) {
        return Status::Invalid("Option '", kPartitionByOption, "' names partition column '", name, "' twice");
      }
    }
    columns.push_back(std::move(name));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return columns;
}

Status CheckPartitionColumns(const std::vector<std::string>& columns, const arrow::Schema& schema) {
  for (const auto& name : columns) {
    int i = FindColumn(schema, name);
    if (i < 0) {
      return Status::Invalid("Partition column '", name, "' not found in the query's columns (", ColumnList(schema),
                             "); fix partitionBy / PARTITIONED BY");
    }
    const auto& type = schema.field(i)->type();
    const arrow::Type::type id = type->id();
    const bool binary = id == arrow::Type::BINARY || id == arrow::Type::LARGE_BINARY ||
                        id == arrow::Type::FIXED_SIZE_BINARY || id == arrow::Type::BINARY_VIEW;
    if (arrow::is_nested(id) || binary || id == arrow::Type::NA) {
      return Status::Invalid("Cannot use ", type->ToString(), " column '", schema.field(i)->name(),
                             "' as a partition column: only atomic types (numbers, strings, booleans, dates, "
                             "timestamps) can name a directory");
    }
  }
  if (!columns.empty() && static_cast<int>(columns.size()) >= schema.num_fields()) {
    return Status::Invalid("Cannot use all columns (", ColumnList(schema),
                           ") as partition columns: the data files need at least one column");
  }
  return Status::OK();
}

Result<std::vector<PartitionSlice>> SplitByPartition(const arrow::Table& rows, const std::vector<std::string>& columns) {
  ARROW_RETURN_NOT_OK(CheckPartitionColumns(columns, *rows.schema()));
  std::vector<PartitionSlice> slices;
  if (rows.num_rows() == 0) return slices;
  ARROW_ASSIGN_OR_RAISE(auto combined, rows.CombineChunks());
  std::vector<int> indices;
  for (const auto& name : columns) indices.push_back(FindColumn(*combined->schema(), name));

  // Directory -> row numbers, in input order.
  std::map<std::string, std::vector<int64_t>> groups;
  std::string dir;
  for (int64_t r = 0; r < combined->num_rows(); ++r) {
    dir.clear();
    for (int c : indices) {
      const auto& array = *combined->column(c)->chunk(0);
      std::string value;
      if (!array.IsNull(r)) {
        ARROW_ASSIGN_OR_RAISE(value, util::FormatShowCell(array, r));
      }
      if (!dir.empty()) dir += '/';
      dir += EscapePartitionPathName(combined->schema()->field(c)->name()) + "=" +
             (value.empty() ? std::string(kHiveDefaultPartition) : EscapePartitionPathName(value));
    }
    groups[dir].push_back(r);
  }

  std::shared_ptr<arrow::Table> data = combined;
  std::vector<int> descending = indices;
  std::sort(descending.rbegin(), descending.rend());
  for (int c : descending) {
    ARROW_ASSIGN_OR_RAISE(data, data->RemoveColumn(c));
  }

  for (auto& [path, row_numbers] : groups) {
    arrow::Int64Builder b;
    ARROW_RETURN_NOT_OK(b.AppendValues(row_numbers));
    ARROW_ASSIGN_OR_RAISE(auto take, b.Finish());
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(data, take));
    slices.push_back(PartitionSlice{path, taken.table()});
  }
  return slices;
}

}  // namespace sluice::sink
