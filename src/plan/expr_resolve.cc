// Resolution: names -> fields, types of every node, errors before execution.
#include "plan/expr_resolve.h"

#include "plan/aggregate.h"
#include "plan/function_registry.h"
#include "plan/generate.h"

#include <arrow/api.h>
#include <arrow/compute/cast.h>

#include <algorithm>

namespace sluice::plan {
namespace {

using DataTypePtr = std::shared_ptr<arrow::DataType>;

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

int IntRank(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::INT8: case arrow::Type::UINT8: return 1;
    case arrow::Type::INT16: case arrow::Type::UINT16: return 2;
    case arrow::Type::INT32: case arrow::Type::UINT32: return 3;
    default: return 4;
  }
}

DataTypePtr SignedIntOfRank(int rank) {
  switch (rank) {
    case 1: return arrow::int8();
    case 2: return arrow::int16();
    case 3: return arrow::int32();
    default: return arrow::int64();
  }
}

bool IsFloating(const arrow::DataType& t) {
  return t.id() == arrow::Type::FLOAT || t.id() == arrow::Type::DOUBLE || t.id() == arrow::Type::HALF_FLOAT;
}
bool IsDecimal(const arrow::DataType& t) {
  return t.id() == arrow::Type::DECIMAL128 || t.id() == arrow::Type::DECIMAL256;
}
bool IsNull(const arrow::DataType& t) { return t.id() == arrow::Type::NA; }

// The decimal an integer fits in without loss, as Spark: int -> decimal(10,0), bigint -> decimal(20,0).
DataTypePtr AsDecimal(const DataTypePtr& t) {
  if (IsDecimal(*t)) return t;
  static const int kDigits[] = {0, 3, 5, 10, 20};
  return arrow::decimal128(kDigits[IntRank(t->id())], 0);
}

DataTypePtr Decimal(int precision, int scale) {
  precision = std::min(precision, 38);
  return arrow::decimal128(std::max(precision, 1), std::min(scale, precision));
}

// The common type of two numbers (either may be NULL).
DataTypePtr NumericCommon(const DataTypePtr& a, const DataTypePtr& b) {
  if (IsNull(*a)) return IsIntegerType(*b) ? SignedIntOfRank(IntRank(b->id())) : b;
  if (IsNull(*b)) return NumericCommon(b, a);
  if (IsIntegerType(*a) && IsIntegerType(*b)) {
    int rank = std::max(IntRank(a->id()), IntRank(b->id()));
    bool has_unsigned = arrow::is_unsigned_integer(a->id()) || arrow::is_unsigned_integer(b->id());
    if (has_unsigned && (!arrow::is_unsigned_integer(a->id()) || !arrow::is_unsigned_integer(b->id()))) {
      rank = std::min(rank + 1, 4);  // uint32 meets int32 as bigint
    }
    return SignedIntOfRank(rank);
  }
  if (IsFloating(*a) || IsFloating(*b)) {
    bool all_float32 = (a->id() == arrow::Type::FLOAT || !IsFloating(*a)) && (b->id() == arrow::Type::FLOAT || !IsFloating(*b));
    if (all_float32 && !IsDecimal(*a) && !IsDecimal(*b)) return arrow::float32();
    return arrow::float64();
  }
  // The shared_ptrs are held: AsDecimal may create the type, and a reference into a temporary
  // would dangle.
  const DataTypePtr a_decimal = AsDecimal(a);
  const DataTypePtr b_decimal = AsDecimal(b);
  const auto& da = static_cast<const arrow::DecimalType&>(*a_decimal);
  const auto& db = static_cast<const arrow::DecimalType&>(*b_decimal);
  int scale = std::max(da.scale(), db.scale());
  int int_digits = std::max(da.precision() - da.scale(), db.precision() - db.scale());
  return Decimal(int_digits + scale, scale);
}

DataTypePtr TemporalCommon(const DataTypePtr& a, const DataTypePtr& b) {
  if (a->Equals(*b)) return a;
  if (a->id() != arrow::Type::TIMESTAMP && b->id() != arrow::Type::TIMESTAMP) return arrow::date32();
  std::string tz;
  for (const auto& t : {a, b}) {
    if (t->id() == arrow::Type::TIMESTAMP && tz.empty()) tz = static_cast<const arrow::TimestampType&>(*t).timezone();
  }
  return arrow::timestamp(arrow::TimeUnit::MICRO, tz);
}

Status Arity(const Expr& call, const arrow::FieldVector& args, size_t min, size_t max) {
  if (args.size() < min || args.size() > max) {
    return Status::Invalid("function ", call.name, " takes ", min == max ? std::to_string(min) : std::to_string(min) + ".." + std::to_string(max),
                           " argument(s) but got ", args.size(), " in ", call.ToString());
  }
  return Status::OK();
}

bool IsTimeInput(const arrow::DataType& t) { return IsTemporalType(t) || IsStringType(t) || IsNull(t); }

Result<CallSignature> ResolveArithmetic(const Expr& call, const arrow::FieldVector& args) {
  const std::string& op = call.name;
  if (op == "negative") {
    ARROW_RETURN_NOT_OK(Arity(call, args, 1, 1));
    if (!IsNumericType(*args[0]->type()) && !IsNull(*args[0]->type())) return TypeMismatch("-", call, args);
    DataTypePtr t = IsNull(*args[0]->type()) ? arrow::int32() : NumericCommon(args[0]->type(), arrow::null());
    return CallSignature{{t}, t, args[0]->nullable()};
  }
  ARROW_RETURN_NOT_OK(Arity(call, args, 2, 2));
  const DataTypePtr& a = args[0]->type();
  const DataTypePtr& b = args[1]->type();
  bool ok = (IsNumericType(*a) || IsNull(*a)) && (IsNumericType(*b) || IsNull(*b));
  if (!ok) return TypeMismatch(op, call, args);
  if (op == "/") return CallSignature{{arrow::float64(), arrow::float64()}, arrow::float64(), true};
  DataTypePtr common = NumericCommon(a, b);
  if (IsNull(*common)) common = arrow::int32();
  bool nullable = AnyNullable(args) || op == "%";  // x % 0 is NULL, as in Spark
  if (!IsDecimal(*common)) return CallSignature{{common, common}, common, nullable};
  // Decimal arithmetic follows Spark's (and Arrow's) precision rules; each side keeps its scale.
  if (op == "%") return CallSignature{{arrow::float64(), arrow::float64()}, arrow::float64(), true};
  DataTypePtr da = AsDecimal(IsNull(*a) ? common : a), db = AsDecimal(IsNull(*b) ? common : b);
  const auto& x = static_cast<const arrow::DecimalType&>(*da);
  const auto& y = static_cast<const arrow::DecimalType&>(*db);
  DataTypePtr out;
  if (op == "*") {
    out = Decimal(x.precision() + y.precision() + 1, x.scale() + y.scale());
  } else {
    int scale = std::max(x.scale(), y.scale());
    out = Decimal(std::max(x.precision() - x.scale(), y.precision() - y.scale()) + scale + 1, scale);
  }
  return CallSignature{{da, db}, out, nullable};
}

// The common type of args[from..] (every `step`-th), or a type error.
Result<DataTypePtr> CommonOf(const Expr& call, const std::string& op, const arrow::FieldVector& args, size_t from,
                             size_t step = 1) {
  DataTypePtr common = arrow::null();
  arrow::FieldVector used;
  for (size_t i = from; i < args.size(); i += step) {
    used.push_back(args[i]);
    common = CommonType(common, args[i]->type());
    if (!common) return TypeMismatch(op, call, used);
  }
  return common;
}

Result<CallSignature> ResolveStringFunction(const Expr& call, const arrow::FieldVector& args) {
  const std::string& fn = call.name;
  if (fn == "concat") {
    if (args.empty()) return Status::Invalid("concat needs at least one argument in ", call.ToString());
    CallSignature sig{{}, arrow::utf8(), AnyNullable(args)};
    for (const auto& a : args) {
      const auto& t = *a->type();
      bool castable = IsStringType(t) || IsNumericType(t) || t.id() == arrow::Type::BOOL || IsNull(t) ||
                      t.id() == arrow::Type::DATE32;
      if (!castable) return TypeMismatch(fn, call, args);
      sig.arg_types.push_back(arrow::utf8());
    }
    return sig;
  }
  ARROW_RETURN_NOT_OK(Arity(call, args, fn == "substring" ? 3 : 1, fn == "substring" ? 3 : 1));
  const DataTypePtr& s = args[0]->type();
  if (!IsStringType(*s) && !IsNull(*s)) return TypeMismatch(fn, call, {args[0]});
  DataTypePtr st = IsNull(*s) ? arrow::utf8() : s;
  if (fn == "length") return CallSignature{{st}, arrow::int32(), args[0]->nullable()};
  if (fn == "substring") {
    // Position and length may be columns (then a NULL one gives NULL), as Spark's.
    ARROW_RETURN_NOT_OK(IntegerArg(call, args, 1));
    ARROW_RETURN_NOT_OK(IntegerArg(call, args, 2));
    return CallSignature{{st, arrow::int64(), arrow::int64()}, st, AnyNullable(args)};
  }
  return CallSignature{{st}, st, args[0]->nullable()};  // upper, lower, trim
}

Result<CallSignature> ResolveTimeFunction(const Expr& call, const arrow::FieldVector& args) {
  const std::string& fn = call.name;
  if (fn == "to_timestamp") {
    ARROW_RETURN_NOT_OK(Arity(call, args, 1, 2));
    if (!IsTimeInput(*args[0]->type())) return TypeMismatch(fn, call, {args[0]});
    CallSignature sig{{args[0]->type()}, DefaultTimestampType(), true};
    if (args.size() == 2) {
      ARROW_ASSIGN_OR_RAISE(auto format, LiteralArg(call, 1, IsStringType, "string"));
      ARROW_RETURN_NOT_OK(SparkPatternToStrptime(format->ToString()).status());
      if (!IsStringType(*args[0]->type()) && !IsNull(*args[0]->type())) return TypeMismatch(fn, call, {args[0]});
      sig.arg_types.push_back(args[1]->type());
    }
    if (IsNull(*args[0]->type())) sig.arg_types[0] = arrow::utf8();
    return sig;
  }
  if (fn == "date_trunc") {
    ARROW_RETURN_NOT_OK(Arity(call, args, 2, 2));
    ARROW_ASSIGN_OR_RAISE(auto unit, LiteralArg(call, 0, IsStringType, "string"));
    ARROW_RETURN_NOT_OK(NormalizeTruncUnit(unit->ToString()).status());
    const DataTypePtr& t = args[1]->type();
    if (!IsTimeInput(*t)) return TypeMismatch(fn, call, {args[1]});
    DataTypePtr out = t->id() == arrow::Type::TIMESTAMP ? t : DefaultTimestampType();
    return CallSignature{{args[0]->type(), out}, out, args[1]->nullable() || !IsTemporalType(*t)};
  }
  // year, month, dayofmonth, hour, minute, second, dayofweek
  ARROW_RETURN_NOT_OK(Arity(call, args, 1, 1));
  const DataTypePtr& t = args[0]->type();
  if (!IsTimeInput(*t)) return TypeMismatch(fn, call, args);
  DataTypePtr in = IsTemporalType(*t) ? t : DefaultTimestampType();
  // EXTRACT(SECOND FROM ts): seconds with microseconds, DECIMAL(8,6) as Spark's SecondWithFraction.
  DataTypePtr out = fn == "second_with_fraction" ? arrow::decimal128(8, 6) : arrow::int32();
  return CallSignature{{in}, out, args[0]->nullable() || !IsTemporalType(*t)};
}

bool IsBoolOrNull(const arrow::DataType& t) { return t.id() == arrow::Type::BOOL || IsNull(t); }

}  // namespace

Status TypeMismatch(const std::string& op, const Expr& call, const arrow::FieldVector& args) {
  std::string types;
  for (size_t i = 0; i < args.size(); ++i) types += (i == 0 ? "" : (i + 1 == args.size() ? " and " : ", ")) + TypeName(*args[i]->type());
  return Status::TypeError("cannot apply '", op, "' to ", types, " in ", call.ToString());
}

bool AnyNullable(const arrow::FieldVector& args) {
  return std::any_of(args.begin(), args.end(), [](const auto& f) { return f->nullable(); });
}

// A non-null literal argument of the given kind, or an error naming the call.
Result<std::shared_ptr<arrow::Scalar>> LiteralArg(const Expr& call, size_t i, bool (*accept)(const arrow::DataType&),
                                                  const char* what) {
  if (i >= call.args.size() || call.args[i]->kind != Expr::Kind::kLiteral || !call.args[i]->value ||
      !call.args[i]->value->is_valid || !accept(*call.args[i]->value->type)) {
    return Status::TypeError("argument ", i + 1, " of ", call.name, " must be a non-null ", what, " literal in ",
                             call.ToString());
  }
  return call.args[i]->value;
}

bool IsNullType(const arrow::DataType& t) { return IsNull(t); }

Result<std::shared_ptr<arrow::DataType>> StringArg(const Expr& call, const arrow::FieldVector& args, size_t i) {
  const DataTypePtr& t = args[i]->type();
  if (IsNull(*t)) return arrow::utf8();
  if (!IsStringType(*t)) return TypeMismatch(call.name, call, {args[i]});
  return t;
}

Status IntegerArg(const Expr& call, const arrow::FieldVector& args, size_t i) {
  const auto& t = *args[i]->type();
  if (IsIntegerType(t) || IsNull(t)) return Status::OK();
  return Status::TypeError("argument ", i + 1, " of ", call.name, " must be an integer, but it is ", TypeName(t), " in ",
                           call.ToString());
}

bool IsIntegerType(const arrow::DataType& t) { return arrow::is_integer(t.id()); }
bool IsNumericType(const arrow::DataType& t) { return IsIntegerType(t) || IsFloating(t) || IsDecimal(t); }
bool IsStringType(const arrow::DataType& t) {
  return t.id() == arrow::Type::STRING || t.id() == arrow::Type::LARGE_STRING;
}
bool IsTemporalType(const arrow::DataType& t) {
  return t.id() == arrow::Type::TIMESTAMP || t.id() == arrow::Type::DATE32 || t.id() == arrow::Type::DATE64;
}
std::shared_ptr<arrow::DataType> DefaultTimestampType() { return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"); }

std::shared_ptr<arrow::DataType> CommonType(const DataTypePtr& a, const DataTypePtr& b) {
  if (IsNull(*a)) return b;
  if (IsNull(*b)) return a;
  if (IsNumericType(*a) && IsNumericType(*b)) return NumericCommon(a, b);
  if (IsTemporalType(*a) && IsTemporalType(*b)) return TemporalCommon(a, b);
  if (IsTemporalType(*a) && IsStringType(*b)) return a;
  if (IsStringType(*a) && IsTemporalType(*b)) return b;
  if (IsStringType(*a) && IsStringType(*b)) return a->Equals(*b) ? a : arrow::utf8();
  if (a->Equals(*b)) return a;  // boolean, binary, ...
  return nullptr;
}

Result<std::shared_ptr<arrow::Field>> FindColumn(const std::string& name, const arrow::Schema& input) {
  auto indices = input.GetAllFieldIndices(name);
  if (indices.size() == 1) return input.field(indices[0]);
  if (indices.size() > 1) return Status::Invalid("Column '", name, "' is ambiguous: the input has ", indices.size(), " columns with that name");
  std::string available, suggestion;
  size_t best = 3;
  for (int i = 0; i < input.num_fields(); ++i) {
    const std::string& candidate = input.field(i)->name();
    available += (i ? ", " : "") + candidate;
    size_t d = EditDistance(name, candidate);
    if (d < best && d <= std::max<size_t>(1, name.size() / 3)) {
      best = d;
      suggestion = candidate;
    }
  }
  std::string hint = suggestion.empty() ? "" : " Did you mean '" + suggestion + "'?";
  return Status::Invalid("Column '", name, "' does not exist.", hint, " Available columns: [", available, "]");
}

Status CheckCast(const Expr& cast, const arrow::DataType& from) {
  const arrow::DataType& to = *cast.type;
  if (from.Equals(to) || IsNull(from)) return Status::OK();
  if (IsStringType(from) && IsTemporalType(to)) return Status::OK();
  if (IsStringType(to) && from.id() == arrow::Type::BINARY) return Status::OK();
  // Timestamps <-> numbers count seconds (exec/expr_cast.cc), as Spark.
  const bool number_from = IsNumericType(from), number_to = IsNumericType(to);
  if ((from.id() == arrow::Type::TIMESTAMP && number_to) || (number_from && to.id() == arrow::Type::TIMESTAMP)) {
    return Status::OK();
  }
  if (arrow::compute::CanCast(from, to)) return Status::OK();
  return Status::TypeError("cannot cast ", TypeName(from), " to ", TypeName(to), " in ", cast.ToString());
}

Result<CallSignature> ResolveCall(const Expr& call, const arrow::FieldVector& args) {
  const std::string& fn = call.name;
  if (fn == "+" || fn == "-" || fn == "*" || fn == "/" || fn == "%" || fn == "negative") return ResolveArithmetic(call, args);
  if (fn == "=" || fn == "!=" || fn == "<" || fn == "<=" || fn == ">" || fn == ">=") {
    ARROW_RETURN_NOT_OK(Arity(call, args, 2, 2));
    ARROW_ASSIGN_OR_RAISE(auto common, CommonOf(call, fn, args, 0));
    if (IsNull(*common)) common = arrow::boolean();
    return CallSignature{{common, common}, arrow::boolean(), AnyNullable(args)};
  }
  if (fn == "and" || fn == "or" || fn == "not") {
    ARROW_RETURN_NOT_OK(Arity(call, args, fn == "not" ? 1 : 2, fn == "not" ? 1 : 2));
    for (const auto& a : args) {
      if (!IsBoolOrNull(*a->type())) return TypeMismatch(fn == "not" ? "NOT" : fn == "and" ? "AND" : "OR", call, args);
    }
    return CallSignature{std::vector<DataTypePtr>(args.size(), arrow::boolean()), arrow::boolean(), AnyNullable(args)};
  }
  if (fn == "isnull" || fn == "isnotnull") {
    ARROW_RETURN_NOT_OK(Arity(call, args, 1, 1));
    return CallSignature{{args[0]->type()}, arrow::boolean(), false};
  }
  if (fn == "in") {
    if (args.empty()) return Status::Invalid("IN needs a value in ", call.ToString());
    ARROW_ASSIGN_OR_RAISE(auto common, CommonOf(call, "IN", args, 0));
    if (IsNull(*common)) common = arrow::boolean();
    return CallSignature{std::vector<DataTypePtr>(args.size(), common), arrow::boolean(), AnyNullable(args)};
  }
  if (fn == "like" || fn == "ilike") {
    ARROW_RETURN_NOT_OK(Arity(call, args, 2, 2));
    if (!IsStringType(*args[0]->type()) && !IsNull(*args[0]->type())) return TypeMismatch(fn == "like" ? "LIKE" : "ILIKE", call, {args[0]});
    ARROW_RETURN_NOT_OK(LiteralArg(call, 1, IsStringType, "string").status());
    DataTypePtr s = IsNull(*args[0]->type()) ? arrow::utf8() : args[0]->type();
    return CallSignature{{s, args[1]->type()}, arrow::boolean(), args[0]->nullable()};
  }
  if (fn == "coalesce") {
    if (args.empty()) return Status::Invalid("coalesce needs at least one argument");
    ARROW_ASSIGN_OR_RAISE(auto common, CommonOf(call, fn, args, 0));
    bool nullable = std::all_of(args.begin(), args.end(), [](const auto& f) { return f->nullable(); });
    return CallSignature{std::vector<DataTypePtr>(args.size(), common), common, nullable};
  }
  if (fn == "casewhen") {
    if (args.size() < 2) return Status::Invalid("CASE needs at least one WHEN ... THEN ... in ", call.ToString());
    bool has_else = args.size() % 2 == 1;
    ARROW_ASSIGN_OR_RAISE(auto common, CommonOf(call, "CASE", args, 1, 2));
    if (has_else) {
      common = CommonType(common, args.back()->type());
      if (!common) return TypeMismatch("CASE", call, {args[1], args.back()});
    }
    CallSignature sig{{}, common, !has_else};
    for (size_t i = 0; i < args.size(); ++i) {
      bool is_condition = i % 2 == 0 && !(has_else && i + 1 == args.size());
      if (is_condition && !IsBoolOrNull(*args[i]->type())) {
        return Status::TypeError("WHEN condition ", call.args[i]->ToString(), " must be boolean, but it is ",
                                 TypeName(*args[i]->type()), " in ", call.ToString());
      }
      sig.arg_types.push_back(is_condition ? arrow::boolean() : common);
      if (!is_condition && args[i]->nullable()) sig.nullable = true;
    }
    return sig;
  }
  if (fn == "upper" || fn == "lower" || fn == "length" || fn == "trim" || fn == "concat" || fn == "substring") {
    return ResolveStringFunction(call, args);
  }
  if (fn == "to_timestamp" || fn == "date_trunc" || fn == "year" || fn == "month" || fn == "dayofmonth" ||
      fn == "hour" || fn == "minute" || fn == "second" || fn == "second_with_fraction" || fn == "dayofweek") {
    return ResolveTimeFunction(call, args);
  }
  if (const FunctionTyping* f = FindFunctionTyping(fn)) {
    ARROW_RETURN_NOT_OK(Arity(call, args, f->min_args, f->max_args));
    return f->resolve(call, args);
  }
  if (fn == "__error__") {
    return Status::Invalid(call.args.empty() || !call.args[0]->value ? "invalid expression" : call.args[0]->value->ToString());
  }
  std::string names;
  for (const auto& n : kFunctionNames) {
    if (n != "__error__") names += (names.empty() ? "" : ", ") + n;
  }
  for (const auto& f : RegisteredFunctions()) names += ", " + f.name;
  return Status::Invalid("Unknown function '", fn, "' in ", call.ToString(), ". Known functions: ", names);
}

Result<std::shared_ptr<arrow::Field>> ResolveExpr(const Expr& e, const arrow::Schema& input) {
  switch (e.kind) {
    case Expr::Kind::kColumn: {
      if (IsStar(e)) return Status::Invalid("'", e.name, "' can only be used in select(), not inside an expression");
      ARROW_ASSIGN_OR_RAISE(auto f, FindColumn(e.name, input));
      return f;
    }
    case Expr::Kind::kLiteral:
      if (!e.value) return Status::Invalid("literal without a value");
      return arrow::field(OutputName(e), e.value->type, !e.value->is_valid);
    case Expr::Kind::kAlias: {
      if (e.args.size() != 1) return Status::Invalid("alias ", e.name, " needs one argument");
      ARROW_ASSIGN_OR_RAISE(auto f, ResolveExpr(*e.args[0], input));
      return f->WithName(e.name);
    }
    case Expr::Kind::kCast: {
      if (e.args.size() != 1 || !e.type) return Status::Invalid("malformed cast");
      ARROW_ASSIGN_OR_RAISE(auto f, ResolveExpr(*e.args[0], input));
      ARROW_RETURN_NOT_OK(CheckCast(e, *f->type()));
      // A string that does not parse becomes NULL (Spark's non-ANSI cast).
      bool nullable = f->nullable() || (IsStringType(*f->type()) && !IsStringType(*e.type));
      return arrow::field(OutputName(e), e.type, nullable);
    }
    case Expr::Kind::kCall: {
      if (IsAggregateFunction(e.name)) {
        return Status::Invalid("Aggregate function ", e.ToString(),
                               " is not allowed here; use it in groupBy(...).agg(...) or in the SELECT list or "
                               "HAVING clause of an aggregation query");
      }
      if (IsGeneratorFunction(e.name)) {
        return Status::Invalid(e.ToString(), " is a generator (one row per array element): it can only be a whole "
                               "item of a select list, e.g. SELECT ", e.name, "(arr) AS x FROM t, not part of "
                               "another expression or clause");
      }
      if (IsWindowFunction(e.name)) {
        return Status::Invalid(e.name, "() can only be used as a grouping expression (groupBy(window(...)) or "
                               "GROUP BY tumble/hop/session); then select window_start and window_end: ",
                               e.ToString());
      }
      arrow::FieldVector args;
      for (const auto& a : e.args) {
        ARROW_ASSIGN_OR_RAISE(auto f, ResolveExpr(*a, input));
        args.push_back(std::move(f));
      }
      ARROW_ASSIGN_OR_RAISE(auto sig, ResolveCall(e, args));
      return arrow::field(OutputName(e), sig.out, sig.nullable);
    }
  }
  return Status::Invalid("unknown expression kind");
}

Status CheckPredicate(const Expr& predicate, const arrow::Schema& input) {
  ARROW_ASSIGN_OR_RAISE(auto field, ResolveExpr(predicate, input));
  if (!IsBoolOrNull(*field->type())) {
    return Status::TypeError("Filter condition ", predicate.ToString(), " must be boolean, but it is ", TypeName(*field->type()));
  }
  return Status::OK();
}

}  // namespace sluice::plan
