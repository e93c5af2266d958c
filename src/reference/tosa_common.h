// Internal helpers for the TOSA 1.0 kernels: integer element access across dtypes, type
// ranges, TOSA broadcasting (equal ranks) and the spec's scaling helpers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.h"

namespace univk::reference::detail {

bool is_tosa_int(DType t);  // int8, uint8, int16, int32, int64 (int48 is carried as int64)
int64_t int_min(DType t);
int64_t int_max(DType t);
// Reads/writes element i of an integer tensor as int64 (writes truncate to the type's width).
int64_t read_int(const HostTensor& t, int64_t i);
void write_int(HostTensor& t, int64_t i, int64_t v);

// TOSA broadcasting: ranks must be equal and each dim equal or 1. Error names both shapes.
Result<Shape> tosa_broadcast(const Shape& a, const Shape& b);

// Integer attribute with a default, checked to fit `t` (zero points).
Result<int64_t> zero_point(const Attributes& attrs, const std::string& name, DType t);

// The spec's apply_scale_32 / apply_scale_16 (REQUIREs become InvalidArgument; the int32
// range REQUIRE on the result saturates instead).
Result<int64_t> apply_scale_32(int64_t value, int64_t multiplier, int64_t shift, bool double_round);
Result<int64_t> apply_scale_16(int64_t value, int64_t multiplier, int64_t shift);

// The output dtype named by attribute `output_type` (dtype_name spelling, e.g. "int8").
Result<DType> output_type(const Attributes& attrs);

// Attribute `nan_mode`: PROPAGATE = 1 (default), IGNORE = 2. Returns true for IGNORE.
Result<bool> nan_ignore(const Attributes& attrs);

}  // namespace univk::reference::detail
