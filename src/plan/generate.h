// Generators: explode(array), explode_outer(array), posexplode(array), posexplode_outer(array)
// turn one input row into one row per array element (Spark's Generate). A generator is not an
// expression with one value per row, so it may only stand as a whole item of a select list
// (optionally aliased); PlanSelectList then plans Generate below a Project.
//
// Rows: explode and posexplode drop a row whose array is NULL or empty; the _outer forms keep
// it once with NULL in the generated columns. posexplode adds the 0-based position `pos`
// (INT) before the element column `col`.
#pragma once

#include <string>
#include <vector>

#include "plan/logical_plan.h"

namespace sluice::plan {

bool IsGeneratorFunction(const std::string& name);

/// The columns `generator` adds to `input`'s (pos for posexplode, then the element), named by
/// `names` (one per column).
Result<arrow::FieldVector> GeneratorFields(const Expr& generator, const arrow::Schema& input,
                                           const std::vector<std::string>& names);

/// Project(input, exprs) when no item is a generator; otherwise Generate for the one generator
/// item, then the Project of every item (the generator's item becomes its generated columns).
/// Errors when several items are generators or an alias list does not fit the generator.
Result<PlanPtr> PlanSelectList(PlanPtr input, std::vector<ExprPtr> exprs);

}  // namespace sluice::plan
