// infer_op_shape: the shape rules of univk_ops, under the reference's name.
#include "univk/ops/torch_ops.h"
#include "univk/reference/shape_rules.h"

namespace univk::reference {

Result<Shape> infer_op_shape(std::string_view op, const Attributes& attrs, std::span<const Shape> inputs) {
  return ops::infer_shape(op, attrs, inputs);
}

}  // namespace univk::reference
