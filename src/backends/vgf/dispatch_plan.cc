#include "dispatch_plan.h"

#include <algorithm>

#include "univk/tensor/shape.h"

namespace univk::backends::vgf {

bool TensorView::contiguous() const {
  if (offset != 0 || strides.size() != shape.size()) return false;
  const std::vector<int64_t> packed = Shape(shape).contiguous_strides();
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && strides[d] != packed[d]) return false;
  return true;
}

std::vector<int64_t> TensorView::padded_shape() const {
  std::vector<int64_t> out(kMaxRank - std::min(kMaxRank, shape.size()), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

std::vector<int64_t> TensorView::padded_strides() const {
  std::vector<int64_t> out(kMaxRank - std::min(kMaxRank, strides.size()), 0);
  out.insert(out.end(), strides.begin(), strides.end());
  return out;
}

ByteSpan view_byte_span(const TensorView& view) {
  const uint64_t elem = dtype_size(view.dtype);
  uint64_t last = static_cast<uint64_t>(view.offset);
  bool empty = false;
  for (size_t d = 0; d < view.shape.size(); ++d) {
    if (view.shape[d] <= 0)
      empty = true;
    else
      last += static_cast<uint64_t>(view.shape[d] - 1) * static_cast<uint64_t>(view.strides[d]);
  }
  if (empty) last = static_cast<uint64_t>(view.offset);
  return {static_cast<uint64_t>(view.offset) * elem, (last + 1) * elem};
}

uint64_t view_binding_bytes(const TensorView& view, uint64_t storage_offset, uint64_t offset_alignment) {
  const ByteSpan span = view_byte_span(view);
  const uint64_t start = storage_offset + span.begin;
  return storage_offset + span.end - start / offset_alignment * offset_alignment;
}

bool views_fit(const std::vector<TensorView>& views, const BindingLimit& limit) {
  for (const TensorView& v : views)
    if (view_binding_bytes(v, 0, limit.offset_alignment) > limit.max_bytes) return false;
  return true;
}

std::array<uint32_t, 2> dispatch_grid(uint64_t work_items, uint32_t max_x, uint32_t max_y) {
  const uint64_t groups = std::max<uint64_t>(1, (work_items + kLocalSize - 1) / kLocalSize);
  const uint64_t cap_x = std::min<uint32_t>(max_x, 65535);
  // The fewest rows, then the narrowest rows that hold every group: fewer than one row's worth
  // of idle groups (65535 x 2 groups for 65536 would leave 65534 idle; lavapipe pays ~1 us each).
  const uint64_t gy = std::min<uint64_t>((groups + cap_x - 1) / cap_x, std::min<uint32_t>(max_y, 65535));
  const uint64_t gx = std::min<uint64_t>((groups + gy - 1) / gy, cap_x);
  return {static_cast<uint32_t>(gx), static_cast<uint32_t>(gy)};
}

const char* shader_name(Shader id) {
  switch (id) {
    case Shader::kElementwiseF32:
      return "ew_f32";
    case Shader::kElementwiseI32:
      return "ew_i32";
    case Shader::kPoolF32:
      return "pool_f32";
    case Shader::kCopy32:
      return "copy32";
    case Shader::kCopy16:
      return "copy16";
    case Shader::kCopy8:
      return "copy8";
    case Shader::kReduceF32:
      return "reduce_f32";
    case Shader::kReduceBool:
      return "reduce_bool";
    case Shader::kCast:
      return "cast";
    case Shader::kRescale:
      return "rescale";
    case Shader::kTableI8:
      return "table_i8";
    case Shader::kPoolI8:
      return "pool_i8";
    case Shader::kElementwiseF16:
      return "ew_f16";
    case Shader::kPoolF16:
      return "pool_f16";
    case Shader::kCast16:
      return "cast16";
    case Shader::kResizeF32:
      return "resize_f32";
    case Shader::kLogic:
      return "logic";
    case Shader::kGather:
      return "gather";
    case Shader::kScatter:
      return "scatter";
    case Shader::kConv3dF32:
      return "conv3d_f32";
    case Shader::kDftF32:
      return "dft_f32";
  }
  return "?";
}

uint32_t shader_tensor_bindings(Shader id) {
  switch (id) {
    case Shader::kElementwiseF32:
    case Shader::kElementwiseI32:
    case Shader::kPoolF32:
    case Shader::kElementwiseF16:
    case Shader::kPoolF16:
      return 5;  // output + 4 inputs
    case Shader::kCopy32:
    case Shader::kCopy16:
    case Shader::kCopy8:
    case Shader::kReduceF32:
    case Shader::kReduceBool:
    case Shader::kCast:
    case Shader::kRescale:
    case Shader::kPoolI8:
    case Shader::kCast16:
    case Shader::kResizeF32:
      return 2;
    case Shader::kTableI8:
    case Shader::kGather:
    case Shader::kScatter:
      return 3;
    case Shader::kConv3dF32:
    case Shader::kDftF32:
      return 4;
    case Shader::kLogic:
      return 4;
  }
  return 0;
}

}  // namespace univk::backends::vgf
