// PyTorch avg_pool2d, max_pool2d, adaptive_avg_pool2d and adaptive_max_pool2d on NCHW (or
// unbatched CHW) fp32.
#include <algorithm>
#include <cmath>
#include <limits>

#include "common.h"

namespace univk::reference::detail {
namespace {

// Window geometry of a resolved pool, in the short names the loops use.
struct Window {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};
Window window_of(const ops::Pool2d& p) {
  return {p.kernel[0], p.kernel[1], p.stride[0], p.stride[1], p.padding[0], p.padding[1], p.dilation[0], p.dilation[1]};
}

Result<Tensors> avg_pool2d(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Pool2d pool, ops::pool2d(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const Window p = window_of(pool);
  const bool include_pad = pool.count_include_pad;
  const int64_t divisor_override = pool.divisor_override;
  const ops::Planes& pl = pool.in;
  const int64_t oh = pool.out_h, ow = pool.out_w;
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, pool.output.dims()));
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

Result<Tensors> max_pool2d(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Pool2d pool, ops::pool2d(op, attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const Window p = window_of(pool);
  const ops::Planes& pl = pool.in;
  const int64_t oh = pool.out_h, ow = pool.out_w;
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, pool.output.dims()));
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

// Averages, or for adaptive_max_pool2d takes the maximum (NaN wins), over each window.
Result<Tensors> adaptive_pool2d(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::AdaptiveAvgPool2d pool, ops::adaptive_avg_pool2d(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const ops::Planes& pl = pool.in;
  const int64_t oh = pool.out_h, ow = pool.out_w;
  const bool is_max = op == "adaptive_max_pool2d";
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, pool.output.dims()));
  const float* x = inputs[0].data<float>().data();
  float* o = out.data<float>().data();
  for (int64_t c = 0; c < pl.count; ++c) {
    const float* plane = x + c * pl.h * pl.w;
    for (int64_t y = 0; y < oh; ++y) {
      const int64_t h0 = y * pl.h / oh, h1 = ((y + 1) * pl.h + oh - 1) / oh;
      for (int64_t xo = 0; xo < ow; ++xo) {
        const int64_t w0 = xo * pl.w / ow, w1 = ((xo + 1) * pl.w + ow - 1) / ow;
        float acc = is_max ? -std::numeric_limits<float>::infinity() : 0.0f;
        for (int64_t i = h0; i < h1; ++i) {
          for (int64_t j = w0; j < w1; ++j) {
            const float v = plane[i * pl.w + j];
            if (!is_max) {
              acc += v;
            } else if (v > acc || std::isnan(v)) {
              acc = v;
            }
          }
        }
        o[(c * oh + y) * ow + xo] = is_max ? acc : acc / static_cast<float>((h1 - h0) * (w1 - w0));
      }
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable pooling_ops() {
  return {{"avg_pool2d", avg_pool2d},
          {"max_pool2d", max_pool2d},
          {"adaptive_avg_pool2d", adaptive_pool2d},
          {"adaptive_max_pool2d", adaptive_pool2d}};
}

}  // namespace univk::reference::detail
