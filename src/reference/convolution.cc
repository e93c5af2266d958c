// PyTorch conv2d (NCHW, weight [OC, C/groups, KH, KW], optional bias) with stride, padding
// (ints or "valid"/"same"), dilation and groups (depthwise = groups == C).
#include <algorithm>

#include "common.h"

namespace univk::reference::detail {
namespace {

Result<Tensors> conv2d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 3));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  const HostTensor& x = inputs[0];
  const HostTensor& w = inputs[1];
  const bool batched = x.shape().rank() == 4;
  if (x.shape().rank() != 3 && !batched) {
    return invalid_argument("input shape " + x.shape().to_string() + " must be 3-d (C,H,W) or 4-d (N,C,H,W)");
  }
  if (w.shape().rank() != 4) return invalid_argument("weight shape " + w.shape().to_string() + " must be 4-d");
  const int64_t n = batched ? x.shape()[0] : 1;
  const size_t b = batched ? 1 : 0;
  const int64_t c = x.shape()[b], h = x.shape()[b + 1], wd = x.shape()[b + 2];
  const int64_t oc = w.shape()[0], icg = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  UNIVK_ASSIGN_OR_RETURN(int64_t groups, attrs.get_int_or("groups", 1));
  if (groups <= 0 || c % groups != 0 || oc % groups != 0) {
    return invalid_argument("attribute 'groups'=" + std::to_string(groups) + " must divide in_channels " +
                            std::to_string(c) + " and out_channels " + std::to_string(oc));
  }
  if (icg != c / groups) {
    return invalid_argument("weight shape " + w.shape().to_string() + " expects " + std::to_string(icg * groups) +
                            " input channels, input has " + std::to_string(c));
  }
  if (inputs.size() == 3 && inputs[2].shape() != Shape{oc}) {
    return invalid_argument("bias shape " + inputs[2].shape().to_string() + " must be [" + std::to_string(oc) + "]");
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> stride, attrs.ints_expanded("stride", 2, {1}));
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> dil, attrs.ints_expanded("dilation", 2, {1}));
  if (stride[0] <= 0 || stride[1] <= 0) return invalid_argument("attribute 'stride' must be positive");
  if (dil[0] <= 0 || dil[1] <= 0) return invalid_argument("attribute 'dilation' must be positive");
  if (std::max({stride[0], stride[1], dil[0], dil[1]}) > kMaxWindowAttr) {
    return invalid_argument("attribute 'stride' or 'dilation' is above 2^31");
  }
  // Padding before (top/left); "same" may pad one more after than before, as in PyTorch.
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  auto padding_mode = attrs.get_string("padding");
  if (padding_mode.ok()) {
    if (*padding_mode == "same") {
      if (stride[0] != 1 || stride[1] != 1) return invalid_argument("padding='same' needs stride 1");
      const int64_t th = dil[0] * (kh - 1), tw = dil[1] * (kw - 1);
      pt = th / 2, pb = th - pt, pl = tw / 2, pr = tw - pl;
    } else if (*padding_mode != "valid") {
      return invalid_argument("attribute 'padding'='" + *padding_mode + "' must be ints, \"valid\" or \"same\"");
    }
  } else {
    UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> pad, attrs.ints_expanded("padding", 2, {0}));
    if (pad[0] < 0 || pad[1] < 0) return invalid_argument("attribute 'padding' must be non-negative");
    pt = pb = pad[0];
    pl = pr = pad[1];
  }
  if (std::max({pt, pb, pl, pr}) > kMaxWindowAttr) return invalid_argument("attribute 'padding' is above 2^31");
  const int64_t oh = (h + pt + pb - dil[0] * (kh - 1) - 1) / stride[0] + 1;
  const int64_t ow = (wd + pl + pr - dil[1] * (kw - 1) - 1) / stride[1] + 1;
  if (h + pt + pb < dil[0] * (kh - 1) + 1 || wd + pl + pr < dil[1] * (kw - 1) + 1) {
    return invalid_argument("kernel " + w.shape().to_string() + " is larger than the padded input " +
                            x.shape().to_string());
  }
  std::vector<int64_t> dims = batched ? std::vector<int64_t>{n, oc, oh, ow} : std::vector<int64_t>{oc, oh, ow};
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, dims));
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

}  // namespace

OpTable convolution_ops() { return {{"conv2d", conv2d}}; }

}  // namespace univk::reference::detail
