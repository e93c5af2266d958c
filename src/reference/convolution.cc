// PyTorch conv2d (NCHW, weight [OC, C/groups, KH, KW], optional bias) with stride, padding
// (ints or "valid"/"same"), dilation and groups (depthwise = groups == C), and conv_transpose2d
// (weight [C, OC/groups, KH, KW]) with stride, padding, output_padding, dilation and groups.
#include "common.h"

namespace univk::reference::detail {
namespace {

Result<Tensors> conv2d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Conv2d cv, ops::conv2d(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const HostTensor& x = inputs[0];
  const HostTensor& w = inputs[1];
  const int64_t n = cv.n, c = cv.c, h = cv.h, wd = cv.w;
  const int64_t oc = cv.oc, icg = cv.icg, kh = cv.kh, kw = cv.kw, groups = cv.groups;
  const int64_t pt = cv.pad_top, pl = cv.pad_left;
  const int64_t* stride = cv.stride;
  const int64_t* dil = cv.dilation;
  const int64_t oh = cv.out_h, ow = cv.out_w;
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, cv.output.dims()));
  const float* xp = x.data<float>().data();
  const float* wp = w.data<float>().data();
  const float* bp = inputs.size() == 3 ? inputs[2].data<float>().data() : nullptr;
  float* o = out.data<float>().data();
  const int64_t ocg = oc / groups;
  for (int64_t ni = 0; ni < n; ++ni) {
    for (int64_t f = 0; f < oc; ++f) {
      const int64_t g = f / ocg;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xo = 0; xo < ow; ++xo) {
          float acc = bp ? bp[f] : 0.0f;
          for (int64_t ci = 0; ci < icg; ++ci) {
            const float* plane = xp + ((ni * c) + g * icg + ci) * h * wd;
            const float* kern = wp + (f * icg + ci) * kh * kw;
            for (int64_t i = 0; i < kh; ++i) {
              const int64_t yy = y * stride[0] - pt + i * dil[0];
              if (yy < 0 || yy >= h) continue;
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t xx = xo * stride[1] - pl + j * dil[1];
                if (xx < 0 || xx >= wd) continue;
                acc += plane[yy * wd + xx] * kern[i * kw + j];
              }
            }
          }
          o[((ni * oc + f) * oh + y) * ow + xo] = acc;
        }
      }
    }
  }
  return single(std::move(out));
}

// Gathers each output from the input pixels that a transposed convolution scatters onto it.
Result<Tensors> conv_transpose2d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::ConvTranspose2d cv, ops::conv_transpose2d(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const int64_t h = cv.h, wd = cv.w, kh = cv.kh, kw = cv.kw, ocg = cv.ocg;
  const int64_t icg = cv.c / cv.groups;
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, cv.output.dims()));
  const float* xp = inputs[0].data<float>().data();
  const float* wp = inputs[1].data<float>().data();
  const float* bp = inputs.size() == 3 ? inputs[2].data<float>().data() : nullptr;
  float* o = out.data<float>().data();
  for (int64_t ni = 0; ni < cv.n; ++ni) {
    for (int64_t f = 0; f < cv.oc; ++f) {
      const int64_t g = f / ocg, fg = f % ocg;
      for (int64_t y = 0; y < cv.out_h; ++y) {
        for (int64_t xo = 0; xo < cv.out_w; ++xo) {
          float acc = bp ? bp[f] : 0.0f;
          for (int64_t ci = g * icg; ci < (g + 1) * icg; ++ci) {
            const float* plane = xp + (ni * cv.c + ci) * h * wd;
            const float* kern = wp + (ci * ocg + fg) * kh * kw;
            for (int64_t i = 0; i < kh; ++i) {
              const int64_t ty = y + cv.padding[0] - i * cv.dilation[0];
              if (ty < 0 || ty % cv.stride[0] != 0 || ty / cv.stride[0] >= h) continue;
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t tx = xo + cv.padding[1] - j * cv.dilation[1];
                if (tx < 0 || tx % cv.stride[1] != 0 || tx / cv.stride[1] >= wd) continue;
                acc += plane[(ty / cv.stride[0]) * wd + tx / cv.stride[1]] * kern[i * kw + j];
              }
            }
          }
          o[((ni * cv.oc + f) * cv.out_h + y) * cv.out_w + xo] = acc;
        }
      }
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable convolution_ops() { return {{"conv2d", conv2d}, {"conv_transpose2d", conv_transpose2d}}; }

}  // namespace univk::reference::detail
