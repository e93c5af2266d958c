// TOSA 1.0 FFT2D (complex input as input_real/input_imag [N,H,W], forward or inverse, no
// scaling) and RFFT2D (real input [N,H,W] -> the W/2+1 non-redundant columns), fp32, as the
// spec's direct sums: angle a = sign * 2 pi ((iy*oy mod H)/H + (ix*ox mod W)/W), sign -1 for
// the inverse, each output the sum of (re + i im) * (cos a - i sin a). Accumulated in double.
#include <cmath>
#include <numbers>

#include "tosa_common.h"
#include "univk/ops/tosa_ops.h"

namespace univk::reference::detail {
namespace {

// The two results of `real` (and `imag`, absent for RFFT2D) into [N,H,out_w].
Tensors dft(const HostTensor& real, const HostTensor* imag, bool inverse, int64_t out_w) {
  const int64_t n = real.shape()[0], h = real.shape()[1], w = real.shape()[2];
  const double sign = inverse ? -1.0 : 1.0;
  HostTensor out_real(DType::kFloat32, Shape{n, h, out_w}), out_imag(DType::kFloat32, Shape{n, h, out_w});
  const float* re = real.data<float>().data();
  const float* im = imag ? imag->data<float>().data() : nullptr;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oy = 0; oy < h; ++oy) {
      for (int64_t ox = 0; ox < out_w; ++ox) {
        double sum_real = 0.0, sum_imag = 0.0;
        for (int64_t iy = 0; iy < h; ++iy) {
          for (int64_t ix = 0; ix < w; ++ix) {
            const double a = sign * 2.0 * std::numbers::pi *
                             (static_cast<double>((iy * oy) % h) / static_cast<double>(h) +
                              static_cast<double>((ix * ox) % w) / static_cast<double>(w));
            const size_t at = static_cast<size_t>((b * h + iy) * w + ix);
            const double vr = re[at], vi = im ? im[at] : 0.0;
            sum_real += vr * std::cos(a) + vi * std::sin(a);
            sum_imag += -vr * std::sin(a) + vi * std::cos(a);
          }
        }
        const size_t o = static_cast<size_t>((b * h + oy) * out_w + ox);
        out_real.data<float>()[o] = static_cast<float>(sum_real);
        out_imag.data<float>()[o] = static_cast<float>(sum_imag);
      }
    }
  }
  Tensors out;
  out.push_back(std::move(out_real));
  out.push_back(std::move(out_imag));
  return out;
}

Result<Tensors> fft2d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 2));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  UNIVK_RETURN_IF_ERROR(ops::tosa_fft2d(inputs[0].shape(), inputs[1].shape()).status());
  UNIVK_ASSIGN_OR_RETURN(bool inverse, attrs.get_bool_or("inverse", false));
  return dft(inputs[0], &inputs[1], inverse, inputs[0].shape()[2]);
}

Result<Tensors> rfft2d(std::string_view, const Attributes&, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  UNIVK_RETURN_IF_ERROR(check_all_float(inputs));
  UNIVK_ASSIGN_OR_RETURN(Shape out, ops::tosa_rfft2d(inputs[0].shape()));
  return dft(inputs[0], nullptr, false, out[2]);
}

}  // namespace

OpTable tosa_fft_ops() { return {{"FFT2D", fft2d}, {"RFFT2D", rfft2d}}; }

}  // namespace univk::reference::detail
