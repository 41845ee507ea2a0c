#include "source/parquet_pruning.h"

#include <arrow/api.h>
#include <parquet/arrow/schema.h>
#include <parquet/metadata.h>
#include <parquet/statistics.h>

#include <optional>
#include <string>

namespace sluice::source {
namespace {

// One conjunct `column <op> value` (op as if the column is on the left).
struct Bound {
  int leaf = -1;  // the Parquet leaf column
  std::string op;
  int64_t value = 0;
};

bool IsSignedInteger(arrow::Type::type id) {
  return id == arrow::Type::INT8 || id == arrow::Type::INT16 || id == arrow::Type::INT32 || id == arrow::Type::INT64;
}

std::optional<int64_t> IntegerLiteral(const plan::Expr& e) {
  if (e.kind != plan::Expr::Kind::kLiteral || !e.value || !e.value->is_valid) return std::nullopt;
  if (!IsSignedInteger(e.value->type->id())) return std::nullopt;
  auto wide = e.value->CastTo(arrow::int64());
  if (!wide.ok()) return std::nullopt;
  return static_cast<const arrow::Int64Scalar&>(**wide).value;
}

std::string Flipped(const std::string& op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op;  // =
}

void CollectBounds(const plan::Expr& e, parquet::arrow::FileReader* reader, const arrow::Schema& file_schema,
                   const arrow::Schema& declared, std::vector<Bound>* out) {
  if (e.kind != plan::Expr::Kind::kCall) return;
  if (e.name == "and") {
    for (const auto& a : e.args) {
      if (a) CollectBounds(*a, reader, file_schema, declared, out);
    }
    return;
  }
  if (e.args.size() != 2 || !e.args[0] || !e.args[1]) return;
  if (e.name != "=" && e.name != "<" && e.name != "<=" && e.name != ">" && e.name != ">=") return;
  const plan::Expr* column = e.args[0].get();
  const plan::Expr* literal = e.args[1].get();
  std::string op = e.name;
  if (column->kind != plan::Expr::Kind::kColumn) {
    std::swap(column, literal);
    op = Flipped(op);
  }
  if (column->kind != plan::Expr::Kind::kColumn) return;
  const auto value = IntegerLiteral(*literal);
  if (!value) return;
  const int i = file_schema.GetFieldIndex(column->name);
  const auto want = declared.GetFieldByName(column->name);
  if (i < 0 || !want || !IsSignedInteger(want->type()->id())) return;
  if (!file_schema.field(i)->type()->Equals(*want->type())) return;  // read with a cast: not judged
  const auto& fields = reader->manifest().schema_fields;
  if (static_cast<size_t>(i) >= fields.size() || fields[static_cast<size_t>(i)].column_index < 0) return;
  out->push_back(Bound{fields[static_cast<size_t>(i)].column_index, op, *value});
}

// The chunk's min and max as int64, when its statistics hold them.
std::optional<std::pair<int64_t, int64_t>> MinMax(const parquet::ColumnChunkMetaData& chunk) {
  if (!chunk.is_stats_set()) return std::nullopt;
  const auto stats = chunk.statistics();
  if (!stats || !stats->HasMinMax()) return std::nullopt;
  switch (stats->physical_type()) {
    case parquet::Type::INT32: {
      const auto& typed = static_cast<const parquet::Int32Statistics&>(*stats);
      return std::pair<int64_t, int64_t>(typed.min(), typed.max());
    }
    case parquet::Type::INT64: {
      const auto& typed = static_cast<const parquet::Int64Statistics&>(*stats);
      return std::pair<int64_t, int64_t>(typed.min(), typed.max());
    }
    default:
      return std::nullopt;
  }
}

// Whether no value in [min, max] satisfies `column <op> value`.
bool RulesOut(const Bound& b, int64_t min, int64_t max) {
  if (b.op == "=") return b.value < min || b.value > max;
  if (b.op == "<") return min >= b.value;
  if (b.op == "<=") return min > b.value;
  if (b.op == ">") return max <= b.value;
  if (b.op == ">=") return max < b.value;
  return false;
}

}  // namespace

std::vector<int> RowGroupsToRead(parquet::arrow::FileReader* reader, const arrow::Schema& file_schema,
                                 const arrow::Schema& declared, const ScanFilter& filter) {
  const auto metadata = reader->parquet_reader()->metadata();
  std::vector<int> out;
  std::vector<Bound> bounds;
  if (filter.predicate) CollectBounds(*filter.predicate, reader, file_schema, declared, &bounds);
  for (int rg = 0; rg < metadata->num_row_groups(); ++rg) {
    bool skip = false;
    const auto group = metadata->RowGroup(rg);
    for (const auto& b : bounds) {
      if (b.leaf >= group->num_columns()) continue;
      const auto mm = MinMax(*group->ColumnChunk(b.leaf));
      if (mm && RulesOut(b, mm->first, mm->second)) {
        skip = true;
        break;
      }
    }
    if (!skip) out.push_back(rg);
  }
  return out;
}

}  // namespace sluice::source
