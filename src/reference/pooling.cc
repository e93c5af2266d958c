// PyTorch avg_pool2d, max_pool2d and adaptive_avg_pool2d on NCHW (or unbatched CHW) fp32.
#include <algorithm>
#include <cmath>

#include "common.h"

namespace univk::reference::detail {
namespace {

struct PoolParams {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
  bool ceil_mode = false;
};

// Input as [N*C, H, W] plus the output dims prefix (N,C or C).
struct Planes {
  int64_t count, h, w;
  std::vector<int64_t> prefix;
};

Result<Planes> planes_of(const HostTensor& x) {
  const Shape& s = x.shape();
  if (s.rank() != 3 && s.rank() != 4) {
    return invalid_argument("input shape " + s.to_string() + " must be 3-d (C,H,W) or 4-d (N,C,H,W)");
  }
  Planes p;
  p.prefix.assign(s.dims().begin(), s.dims().end() - 2);
  p.count = 1;
  for (int64_t d : p.prefix) p.count *= d;
  p.h = s[s.rank() - 2];
  p.w = s[s.rank() - 1];
  return p;
}

Result<PoolParams> pool_params(const Attributes& attrs, bool with_dilation) {
  PoolParams p;
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> k, attrs.ints_expanded("kernel_size", 2, {}));
  std::vector<int64_t> s = k;
  if (attrs.has("stride")) {
    UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> given, attrs.get_ints("stride"));
    if (!given.empty()) {  // PyTorch: stride=[] or None means stride = kernel_size
      UNIVK_ASSIGN_OR_RETURN(s, attrs.ints_expanded("stride", 2, {}));
    }
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, attrs.ints_expanded("padding", 2, {0}));
  std::vector<int64_t> dil = {1, 1};
  if (with_dilation) {
    UNIVK_ASSIGN_OR_RETURN(dil, attrs.ints_expanded("dilation", 2, {1}));
  } else if (attrs.has("dilation")) {
    return invalid_argument("attribute 'dilation' is not valid for this op");
  }
  UNIVK_ASSIGN_OR_RETURN(p.ceil_mode, attrs.get_bool_or("ceil_mode", false));
  p.kh = k[0], p.kw = k[1], p.sh = s[0], p.sw = s[1], p.ph = pad[0], p.pw = pad[1], p.dh = dil[0], p.dw = dil[1];
  for (int64_t v : {p.kh, p.kw, p.sh, p.sw, p.ph, p.pw, p.dh, p.dw}) {
    if (v > kMaxWindowAttr) return invalid_argument("window attribute value " + std::to_string(v) + " is above 2^31");
  }
  if (p.kh <= 0 || p.kw <= 0) return invalid_argument("attribute 'kernel_size' must be positive");
  if (p.sh <= 0 || p.sw <= 0) return invalid_argument("attribute 'stride' must be positive");
  if (p.dh <= 0 || p.dw <= 0) return invalid_argument("attribute 'dilation' must be positive");
  if (p.ph < 0 || p.pw < 0) return invalid_argument("attribute 'padding' must be non-negative");
  // PyTorch: pad should be at most half of the (effective) kernel size.
  if (p.ph > ((p.kh - 1) * p.dh + 1) / 2 || p.pw > ((p.kw - 1) * p.dw + 1) / 2) {
    return invalid_argument("attribute 'padding' must be at most half of the kernel size");
  }
  return p;
}

Result<Tensors> avg_pool2d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  UNIVK_ASSIGN_OR_RETURN(PoolParams p, pool_params(attrs, false));
  UNIVK_ASSIGN_OR_RETURN(bool include_pad, attrs.get_bool_or("count_include_pad", true));
  UNIVK_ASSIGN_OR_RETURN(int64_t divisor_override, attrs.get_int_or("divisor_override", 0));
  if (divisor_override < 0) return invalid_argument("attribute 'divisor_override' must be positive");
  UNIVK_ASSIGN_OR_RETURN(Planes pl, planes_of(inputs[0]));
  UNIVK_ASSIGN_OR_RETURN(int64_t oh, pooled_size(pl.h, p.kh, p.sh, p.ph, 1, p.ceil_mode));
  UNIVK_ASSIGN_OR_RETURN(int64_t ow, pooled_size(pl.w, p.kw, p.sw, p.pw, 1, p.ceil_mode));
  std::vector<int64_t> dims = pl.prefix;
  dims.push_back(oh);
  dims.push_back(ow);
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, dims));
  const float* x = inputs[0].data<float>().data();
  float* o = out.data<float>().data();
  for (int64_t c = 0; c < pl.count; ++c) {
    const float* plane = x + c * pl.h * pl.w;
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t xo = 0; xo < ow; ++xo) {
        // Window clipped first to the padded input (for the count_include_pad divisor), then
        // to the real input (for the sum).
        int64_t h0 = y * p.sh - p.ph, w0 = xo * p.sw - p.pw;
        int64_t h1 = std::min(h0 + p.kh, pl.h + p.ph), w1 = std::min(w0 + p.kw, pl.w + p.pw);
        const int64_t padded_count = (h1 - h0) * (w1 - w0);
        h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
        h1 = std::min(h1, pl.h), w1 = std::min(w1, pl.w);
        float& dst = o[(c * oh + y) * ow + xo];
        if (h0 >= h1 || w0 >= w1) {
          dst = 0.0f;
          continue;
        }
        float sum = 0.0f;
        for (int64_t i = h0; i < h1; ++i)
          for (int64_t j = w0; j < w1; ++j) sum += plane[i * pl.w + j];
        const int64_t divisor =
            divisor_override != 0 ? divisor_override : (include_pad ? padded_count : (h1 - h0) * (w1 - w0));
        dst = sum / static_cast<float>(divisor);
      }
    }
  }
  return single(std::move(out));
}

Result<Tensors> max_pool2d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  UNIVK_ASSIGN_OR_RETURN(PoolParams p, pool_params(attrs, true));
  UNIVK_ASSIGN_OR_RETURN(Planes pl, planes_of(inputs[0]));
  UNIVK_ASSIGN_OR_RETURN(int64_t oh, pooled_size(pl.h, p.kh, p.sh, p.ph, p.dh, p.ceil_mode));
  UNIVK_ASSIGN_OR_RETURN(int64_t ow, pooled_size(pl.w, p.kw, p.sw, p.pw, p.dw, p.ceil_mode));
  std::vector<int64_t> dims = pl.prefix;
  dims.push_back(oh);
  dims.push_back(ow);
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, dims));
  const float* x = inputs[0].data<float>().data();
  float* o = out.data<float>().data();
  for (int64_t c = 0; c < pl.count; ++c) {
    const float* plane = x + c * pl.h * pl.w;
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t xo = 0; xo < ow; ++xo) {
        float best = -INFINITY;
        for (int64_t i = 0; i < p.kh; ++i) {
          const int64_t h = y * p.sh - p.ph + i * p.dh;
          if (h < 0 || h >= pl.h) continue;
          for (int64_t j = 0; j < p.kw; ++j) {
            const int64_t w = xo * p.sw - p.pw + j * p.dw;
            if (w < 0 || w >= pl.w) continue;
            const float v = plane[h * pl.w + w];
            if (v > best || std::isnan(v)) best = v;  // NaN wins, as in PyTorch
            if (std::isnan(best)) break;
          }
          if (std::isnan(best)) break;
        }
        o[(c * oh + y) * ow + xo] = best;
      }
    }
  }
  return single(std::move(out));
}

Result<Tensors> adaptive_avg_pool2d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> size, attrs.ints_expanded("output_size", 2, {}));
  UNIVK_ASSIGN_OR_RETURN(Planes pl, planes_of(inputs[0]));
  const int64_t oh = size[0], ow = size[1];
  if (oh <= 0 || ow <= 0) return invalid_argument("attribute 'output_size' must be positive");
  if (pl.h == 0 || pl.w == 0) return invalid_argument("input has an empty spatial dim");
  std::vector<int64_t> dims = pl.prefix;
  dims.push_back(oh);
  dims.push_back(ow);
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, dims));
  const float* x = inputs[0].data<float>().data();
  float* o = out.data<float>().data();
  for (int64_t c = 0; c < pl.count; ++c) {
    const float* plane = x + c * pl.h * pl.w;
    for (int64_t y = 0; y < oh; ++y) {
      const int64_t h0 = y * pl.h / oh, h1 = ((y + 1) * pl.h + oh - 1) / oh;
      for (int64_t xo = 0; xo < ow; ++xo) {
        const int64_t w0 = xo * pl.w / ow, w1 = ((xo + 1) * pl.w + ow - 1) / ow;
        float sum = 0.0f;
        for (int64_t i = h0; i < h1; ++i)
          for (int64_t j = w0; j < w1; ++j) sum += plane[i * pl.w + j];
        o[(c * oh + y) * ow + xo] = sum / static_cast<float>((h1 - h0) * (w1 - w0));
      }
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable pooling_ops() {
  return {{"avg_pool2d", avg_pool2d}, {"max_pool2d", max_pool2d}, {"adaptive_avg_pool2d", adaptive_avg_pool2d}};
}

}  // namespace univk::reference::detail
