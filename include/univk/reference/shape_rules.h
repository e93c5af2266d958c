// The result shape of a run_op operator without running it. The rules themselves live in
// univk_ops (include/univk/ops/torch_ops.h), shared by these kernels and the backends'
// lowerings; this is the reference's name for them.
#pragma once

#include <span>
#include <string_view>

#include "univk/base/status.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/shape.h"

namespace univk::reference {

// The result shape of the run_op operator `op` (PyTorch semantics) from its input shapes and
// attributes, without running it: the shape run_op's result has whenever run_op succeeds.
// InvalidArgument (prefixed with the op name) when the shapes or attributes contradict the op;
// Unsupported for an op that has no shape rule (every run_op op has one).
Result<Shape> infer_op_shape(std::string_view op, const Attributes& attrs, std::span<const Shape> inputs);

}  // namespace univk::reference
