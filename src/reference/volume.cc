// PyTorch flip (any dtype: bytes move) and conv3d (float32, NCDHW, weight [OC, C/groups, KD,
// KH, KW], optional bias; stride, padding, dilation, groups), accumulated in double.
#include <cstring>

#include "common.h"
#include "univk/ops/torch_volume_ops.h"

namespace univk::reference::detail {
namespace {

Result<Tensors> flip(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Flip f, ops::flip(attrs, shapes_of(inputs)));
  const HostTensor& x = inputs[0];
  const Shape& s = x.shape();
  // Read each output element from the input through negated strides of the flipped dims.
  std::vector<int64_t> strides = s.contiguous_strides();
  int64_t base = 0;
  for (int64_t d : f.dims) {
    const size_t ud = static_cast<size_t>(d);
    base += (s[ud] - 1) * strides[ud];
    strides[ud] = -strides[ud];
  }
  HostTensor out(x.dtype(), s);
  const size_t es = dtype_size(x.dtype());
  for_each_broadcast(s, {strides}, [&](int64_t i, const std::vector<int64_t>& off) {
    std::memcpy(out.bytes().data() + static_cast<size_t>(i) * es,
                x.bytes().data() + static_cast<size_t>(base + off[0]) * es, es);
  });
  return single(std::move(out));
}

Result<Tensors> conv3d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_ASSIGN_OR_RETURN(ops::Conv3d cv, ops::conv3d(attrs, shapes_of(inputs)));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(DType::kFloat32, cv.output.dims()));
  const float* xp = inputs[0].data<float>().data();
  const float* wp = inputs[1].data<float>().data();
  const float* bp = cv.has_bias ? inputs[2].data<float>().data() : nullptr;
  const int64_t icg = cv.c / cv.groups, ocg = cv.oc / cv.groups;
  const int64_t(&in)[3] = cv.in;
  const int64_t(&k)[3] = cv.kernel;
  const int64_t(&o)[3] = cv.out;
  const int64_t plane = in[0] * in[1] * in[2], taps = k[0] * k[1] * k[2];
  float* y = out.data<float>().data();
  for (int64_t n = 0; n < cv.n; ++n) {
    for (int64_t f = 0; f < cv.oc; ++f) {
      const int64_t g = f / ocg;
      for (int64_t z = 0; z < o[0]; ++z) {
        for (int64_t r = 0; r < o[1]; ++r) {
          for (int64_t q = 0; q < o[2]; ++q) {
            double acc = bp ? bp[f] : 0.0;
            for (int64_t ci = 0; ci < icg; ++ci) {
              const float* volume = xp + (n * cv.c + g * icg + ci) * plane;
              const float* kern = wp + (f * icg + ci) * taps;
              for (int64_t a = 0; a < k[0]; ++a) {
                const int64_t zz = z * cv.stride[0] - cv.padding[0] + a * cv.dilation[0];
                if (zz < 0 || zz >= in[0]) continue;
                for (int64_t b = 0; b < k[1]; ++b) {
                  const int64_t yy = r * cv.stride[1] - cv.padding[1] + b * cv.dilation[1];
                  if (yy < 0 || yy >= in[1]) continue;
                  for (int64_t c = 0; c < k[2]; ++c) {
                    const int64_t xx = q * cv.stride[2] - cv.padding[2] + c * cv.dilation[2];
                    if (xx < 0 || xx >= in[2]) continue;
                    acc +=
                        static_cast<double>(volume[(zz * in[1] + yy) * in[2] + xx]) * kern[(a * k[1] + b) * k[2] + c];
                  }
                }
              }
            }
            y[(((n * cv.oc + f) * o[0] + z) * o[1] + r) * o[2] + q] = static_cast<float>(acc);
          }
        }
      }
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable volume_ops() { return {{"flip", flip}, {"conv3d", conv3d}}; }

}  // namespace univk::reference::detail
