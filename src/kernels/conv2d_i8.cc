#include "univk/kernels/conv2d_i8.h"

#include <string>

#include "tiling.h"

namespace univk::kernels {

using detail::u32;

namespace {

constexpr int64_t kTableWords = 256 / 4;  // Requantize::table

Status check_int8(int64_t v, const char* what) {
  if (v < -128 || v > 127)
    return invalid_argument(std::string("int8 conv2d ") + what + " " + std::to_string(v) + " is not an int8 value");
  return ok_status();
}

Status check_scale(const RescaleScale& s, const char* what) {
  if (s.multiplier < 0 || s.shift < 2 || s.shift > 62) {
    return invalid_argument(std::string("int8 conv2d residual ") + what + " scale needs multiplier >= 0 and shift in " +
                            "2..62, not " + std::to_string(s.multiplier) + " >> " + std::to_string(s.shift));
  }
  return ok_status();
}

Status check_residual(const Residual& r, const Conv2dProblem& p) {
  UNIVK_RETURN_IF_ERROR(check_scale(r.y_scale, "result"));
  UNIVK_RETURN_IF_ERROR(check_scale(r.skip_scale, "skip"));
  UNIVK_RETURN_IF_ERROR(check_scale(r.sum_scale, "sum"));
  UNIVK_RETURN_IF_ERROR(check_int8(r.y_zp, "residual result zero point"));
  UNIVK_RETURN_IF_ERROR(check_int8(r.skip_zp, "residual skip zero point"));
  UNIVK_RETURN_IF_ERROR(check_int8(r.output_zp, "residual output zero point"));
  UNIVK_RETURN_IF_ERROR(check_int8(r.lo, "residual output clamp"));
  UNIVK_RETURN_IF_ERROR(check_int8(r.hi, "residual output clamp"));
  if (r.lo > r.hi) return invalid_argument("int8 conv2d residual output clamp has lo > hi");
  if (r.sum_lo > r.sum_hi) return invalid_argument("int8 conv2d residual sum clamp has lo > hi");
  const ActivationStrides& s = r.skip;
  return detail::check_addressable(
      r.skip_offset, {{p.batch, s.n}, {p.out_channels, s.c}, {p.out_h, s.h}, {p.out_w, s.w}}, "int8 conv2d skip");
}

}  // namespace

std::array<int32_t, kResidualWords> residual_words(const Residual& r) {
  auto i8 = [](int32_t v) { return u32(v) & 0xffu; };
  const uint32_t zero_points = i8(r.y_zp) | i8(r.skip_zp) << 8 | i8(r.output_zp) << 16 |
                               u32(r.y_scale.double_round) << 24 | u32(r.skip_scale.double_round) << 25 |
                               u32(r.sum_scale.double_round) << 26;
  return {r.y_scale.multiplier,
          r.y_scale.shift,
          r.skip_scale.multiplier,
          r.skip_scale.shift,
          r.sum_scale.multiplier,
          r.sum_scale.shift,
          static_cast<int32_t>(zero_points),
          static_cast<int32_t>(i8(r.lo) | i8(r.hi) << 8),
          r.sum_lo,
          r.sum_hi,
          static_cast<int32_t>(r.skip_offset),
          static_cast<int32_t>(r.skip.n),
          static_cast<int32_t>(r.skip.c),
          static_cast<int32_t>(r.skip.h),
          static_cast<int32_t>(r.skip.w)};
}

Result<KernelDispatch> plan_conv2d_i8(const Conv2dI8Problem& problem, const DeviceTraits& device,
                                      std::optional<bool> dot_product) {
  if (!dot_product && prefers_conv2d_i8_coopmat(problem, device)) {
    // A limit of the cooperative-matrix kernel (its grid) leaves the problem to the plain one.
    Result<KernelDispatch> coopmat = plan_conv2d_i8_coopmat(problem, device);
    if (coopmat.ok() || coopmat.status().code() != StatusCode::kUnsupported) return coopmat;
  }
  if (!dot_product && takes_depthwise_i8(problem)) {
    // Likewise its grid limit.
    Result<KernelDispatch> depthwise = plan_depthwise_i8(problem, device);
    if (depthwise.ok() || depthwise.status().code() != StatusCode::kUnsupported) return depthwise;
  }
  const Conv2dProblem& p = problem.conv;
  if (p.epilogue.residual || p.epilogue.activation != Activation::kNone || p.split_k > 1) {
    return invalid_argument("int8 conv2d takes no residual, float activation or split-K");
  }
  UNIVK_RETURN_IF_ERROR(check_conv2d(p));
  UNIVK_RETURN_IF_ERROR(check_int8(problem.input_zp, "input zero point"));
  UNIVK_RETURN_IF_ERROR(check_int8(problem.weight_zp, "weight zero point"));
  if (problem.acc_lo > problem.acc_hi) return invalid_argument("int8 conv2d accumulator clamp has lo > hi");
  const int64_t icg = p.in_channels / p.groups, ocg = p.out_channels / p.groups;
  const int64_t m = p.batch * p.out_h * p.out_w, k = icg * p.kernel_h * p.kernel_w;
  uint32_t flags = 0;
  if (p.epilogue.bias) flags |= kI8FlagBias | (p.bias_broadcast ? kI8FlagBiasBroadcast : 0);
  uint32_t out_quant = 0;
  uint64_t q_offset = 0;
  if (const auto& r = problem.requantize) {
    UNIVK_RETURN_IF_ERROR(check_int8(r->output_zp, "output zero point"));
    UNIVK_RETURN_IF_ERROR(check_int8(r->lo, "output clamp"));
    UNIVK_RETURN_IF_ERROR(check_int8(r->hi, "output clamp"));
    if (r->lo > r->hi) return invalid_argument("int8 conv2d output clamp has lo > hi");
    const int64_t channels = r->per_channel ? p.out_channels : 1;
    if (r->residual) UNIVK_RETURN_IF_ERROR(check_residual(*r->residual, p));
    const int64_t words = 2 * channels + (r->table ? kTableWords : 0) + (r->residual ? kResidualWords : 0);
    UNIVK_RETURN_IF_ERROR(detail::check_addressable(r->offset, {{words, 1}}, "int8 conv2d requantization"));
    flags |= kI8FlagRequant | (r->per_channel ? kI8FlagPerChannel : 0) | (r->double_round ? kI8FlagDoubleRound : 0) |
             (r->table ? kI8FlagTable : 0) | (r->residual ? kI8FlagResidual : 0);
    out_quant = (u32(r->output_zp) & 0xffu) | (u32(r->lo) & 0xffu) << 8 | (u32(r->hi) & 0xffu) << 16;
    q_offset = r->offset;
  }
  KernelDispatch d;
  d.kernel = dot_product.value_or(device.integer_dot_product) ? Kernel::kConv2dI8Dot : Kernel::kConv2dI8;
  // Chunks of 4 input channels of one tap (32-bit loads where contiguous and word-aligned).
  if (icg % 4 == 0) {
    flags |= kI8FlagAlignedK;
    if (detail::int8_input_words(p)) {
      flags |= kI8FlagWordsIn;
      d.vector_access.push_back({0b1u, kI8FlagsConstant, kI8FlagWordsIn});
    }
    if (p.weight.ic == 1 && detail::aligned4({int64_t(p.weight_offset), p.weight.oc, p.weight.tap})) {
      flags |= kI8FlagWordsWeight;
      d.vector_access.push_back({0b10u, kI8FlagsConstant, kI8FlagWordsWeight});
    }
  }
  // 4 positions x 4 channels per invocation; one channel when groups hold fewer (depthwise).
  const uint32_t tm = 4, tn = ocg >= 4 ? 4 : 1;
  constexpr uint32_t kInvocations = 64;  // conv2d_i8.glsl's local_size_x
  const int64_t gx = ((m + tm - 1) / tm + kInvocations - 1) / kInvocations, gy = (ocg + tn - 1) / tn;
  if (gx > device.max_group_count[0] || gy > device.max_group_count[1] || p.groups > device.max_group_count[2]) {
    return unsupported("int8 conv2d grid " + std::to_string(gx) + " x " + std::to_string(gy) + " x " +
                       std::to_string(p.groups) + " exceeds the device's workgroup counts");
  }
  d.groups = {u32(gx), u32(gy), u32(p.groups)};
  d.specialization = {{kI8FlagsConstant, flags}, {kI8TmConstant, tm}, {kI8TnConstant, tn}};
  d.push.assign(kI8PushWords, 0);
  detail::set_binding_offsets(d.push, {p.input_offset, p.weight_offset, p.bias_offset, p.output_offset, q_offset});
  detail::set_conv_geometry(d.push, p, m, ocg, k, icg);
  d.push[kI8ZeroPoints] = (u32(problem.input_zp) & 0xffffu) | (u32(problem.weight_zp) & 0xffffu) << 16;
  d.push[kI8AccLo] = u32(problem.acc_lo);
  d.push[kI8AccHi] = u32(problem.acc_hi);
  d.push[kI8OutQuant] = out_quant;
  d.used_bindings = 0b1011u | (p.epilogue.bias ? 0b100u : 0u) | (problem.requantize ? 0b10000u : 0u);
  d.output_binding = 3;
  if (problem.requantize && problem.requantize->residual) {
    d.used_bindings |= 0b100000u;
    d.last_binding_offset = KernelDispatch::PackedOffset{kI8OutQuant, kI8SkipBaseShift};
  }
  d.flops = 2 * uint64_t(m) * uint64_t(p.out_channels) * uint64_t(k);
  return d;
}

}  // namespace univk::kernels
