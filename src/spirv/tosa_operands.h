// Operand tables of the supported TOSA.001000.1 instructions: for each operator, its operands
// in grammar order and how each is encoded (a graph value, or a constant of some shape that
// becomes an Attribute). Used by both the SPIR-V reader and writer so they cannot disagree.
#pragma once

#include <span>

#include "univk/spirv/tosa_graph.h"

namespace univk::spirv::detail {

enum class OperandKind {
  kData,         // a graph value (TosaOperation::inputs)
  kI32,          // scalar int32 constant -> int64 attribute (axis, enums)
  kBool,         // OpConstantTrue/False -> int64 0/1
  kI32List,      // rank-1 int32 tensor constant -> int list (kernel, stride, shape, ...)
  kElemScalar,   // scalar constant of an element type -> int64 / double (CLAMP min_val/max_val)
  kElemTensor1,  // [1] tensor constant of an element type -> int64 / double (zero points, ...)
  kElemList,     // rank-1 tensor constant of an element type -> int list (RESCALE multiplier/shift)
};

// Where the element type of a typed constant operand comes from.
enum class TypeSource { kNone, kInput0, kInput1, kOutput, kInt8, kMultiplier };

struct OperandSpec {
  const char* name;  // lowercase attribute name (grammar name lowercased)
  OperandKind kind;
  TypeSource type = TypeSource::kNone;
};

struct OpSpec {
  TosaOp op;
  std::span<const OperandSpec> operands;
  bool variadic_data = false;  // CONCAT: the data operand repeats (one or more)
  size_t results = 1;          // FFT2D, RFFT2D: 2 (an OpTypeStruct result, see tosa_graph.h)
};

// nullptr for operators univk does not read or write.
const OpSpec* find_op_spec(TosaOp op);

}  // namespace univk::spirv::detail
