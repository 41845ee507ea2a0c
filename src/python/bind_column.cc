// Columns and the functions of include/sluice/column.h. python/sluice/sql/column.py and
// functions.py give them PySpark's names and accept Python literals.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <functional>
#include <map>

#include "python/bindings.h"
#include "python/expr_parse.h"

namespace sluice::python {
namespace {

using Unary = std::function<Column(const Column&)>;
using Binary = std::function<Column(const Column&, const Column&)>;

const std::map<std::string, Unary>& UnaryFunctions() {
  static const std::map<std::string, Unary> kFns = {
      {"upper", [](const Column& c) { return upper(c); }},
      {"lower", [](const Column& c) { return lower(c); }},
      {"length", [](const Column& c) { return length(c); }},
      {"trim", [](const Column& c) { return trim(c); }},
      {"to_timestamp", [](const Column& c) { return to_timestamp(c); }},
      {"year", [](const Column& c) { return year(c); }},
      {"month", [](const Column& c) { return month(c); }},
      {"dayofmonth", [](const Column& c) { return dayofmonth(c); }},
      {"hour", [](const Column& c) { return hour(c); }},
      {"minute", [](const Column& c) { return minute(c); }},
      {"second", [](const Column& c) { return second(c); }},
      {"dayofweek", [](const Column& c) { return dayofweek(c); }},
      {"count", [](const Column& c) { return count(c); }},
      {"count_distinct", [](const Column& c) { return countDistinct(c); }},
      {"sum", [](const Column& c) { return sum(c); }},
      {"avg", [](const Column& c) { return avg(c); }},
      {"min", [](const Column& c) { return min(c); }},
      {"max", [](const Column& c) { return max(c); }},
      {"first", [](const Column& c) { return first(c); }},
      {"last", [](const Column& c) { return last(c); }},
      {"negative", [](const Column& c) { return -c; }},
      {"not", [](const Column& c) { return !c; }},
  };
  return kFns;
}

const std::map<std::string, Binary>& BinaryOperators() {
  static const std::map<std::string, Binary> kOps = {
      {"+", [](const Column& a, const Column& b) { return a + b; }},
      {"-", [](const Column& a, const Column& b) { return a - b; }},
      {"*", [](const Column& a, const Column& b) { return a * b; }},
      {"/", [](const Column& a, const Column& b) { return a / b; }},
      {"%", [](const Column& a, const Column& b) { return a % b; }},
      {"=", [](const Column& a, const Column& b) { return a == b; }},
      {"!=", [](const Column& a, const Column& b) { return a != b; }},
      {"<", [](const Column& a, const Column& b) { return a < b; }},
      {"<=", [](const Column& a, const Column& b) { return a <= b; }},
      {">", [](const Column& a, const Column& b) { return a > b; }},
      {">=", [](const Column& a, const Column& b) { return a >= b; }},
      {"and", [](const Column& a, const Column& b) { return a && b; }},
      {"or", [](const Column& a, const Column& b) { return a || b; }},
  };
  return kOps;
}

template <typename Map>
const typename Map::mapped_type& Lookup(const Map& map, const std::string& name, const char* what) {
  auto it = map.find(name);
  if (it == map.end()) throw nb::value_error(("unknown " + std::string(what) + " '" + name + "'").c_str());
  return it->second;
}

}  // namespace

void BindColumn(nb::module_& m) {
  nb::class_<Column>(m, "Column")
      .def("alias", &Column::alias)
      .def("cast", nb::overload_cast<const std::string&>(&Column::cast, nb::const_))
      .def("is_null", &Column::isNull)
      .def("is_not_null", &Column::isNotNull)
      .def("isin", &Column::isin)
      .def("like", &Column::like)
      .def("when", &Column::when)
      .def("otherwise", &Column::otherwise)
      .def("__str__", &Column::toString);

  m.def("col", &col);
  m.def("lit_int", [](int64_t v) { return lit(v); });
  m.def("lit_float", [](double v) { return lit(v); });
  m.def("lit_bool", [](bool v) { return lit(v); });
  m.def("lit_str", [](const std::string& v) { return lit(v); });
  m.def("lit_null", &litNull);
  m.def("unary", [](const std::string& name, const Column& c) { return Lookup(UnaryFunctions(), name, "function")(c); });
  m.def("binary", [](const std::string& op, const Column& a, const Column& b) {
    return Lookup(BinaryOperators(), op, "operator")(a, b);
  });
  m.def("unary_names", [] {
    std::vector<std::string> names;
    for (const auto& [name, fn] : UnaryFunctions()) names.push_back(name);
    return names;
  });
  m.def("coalesce", &coalesce);
  m.def("concat", &concat);
  m.def("when", nb::overload_cast<const Column&, const Column&>(&when));
  m.def("substring", &substring);
  m.def("to_timestamp_format", nb::overload_cast<const Column&, const std::string&>(&to_timestamp));
  m.def("date_trunc", &date_trunc);
  m.def("window", nb::overload_cast<const Column&, const std::string&>(&window));
  m.def("sliding_window", nb::overload_cast<const Column&, const std::string&, const std::string&>(&window));
  m.def("session_window", &session_window);
  m.def("call", [](const std::string& name, const std::vector<Column>& args) {
    return Unwrap(CallSqlFunction(name, args));
  }, "The SQL function `name` over columns, as in a SQL pipeline (functions.py's wrappers).");
  m.def("sql_function_names", &SqlFunctionNames);
  m.def("expr", [](const std::string& sql) { return Unwrap(ParseColumnExpression(sql, nullptr)); },
        "A column from a SQL expression (Spark's expr()): \"price * 2 AS doubled\".");
}

}  // namespace sluice::python
