// TOSA 1.0 tensor operators on NHWC: AVG_POOL2D, MAX_POOL2D, CONV2D (weight OHWI),
// DEPTHWISE_CONV2D (weight [KH,KW,C,M]), TRANSPOSE_CONV2D (weight OHWI), CONV3D on NDHWC (weight
// [OC,KD,KH,KW,IC]) and MATMUL ([N,H,C] x [N,C,W]). fp32, and int8
// (int16 for pools) with int32 accumulation and zero points.
#include <algorithm>
#include <cmath>

#include "tosa_common.h"
#include "univk/ops/tosa_ops.h"

namespace univk::reference::detail {
namespace {

int64_t clz32(uint32_t v) { return v == 0 ? 32 : __builtin_clz(v); }

Status check_nhwc(const HostTensor& t, const char* what) {
  if (t.shape().rank() != 4) {
    return invalid_argument(std::string(what) + " shape " + t.shape().to_string() + " must be 4-d NHWC");
  }
  return ok_status();
}

Result<Tensors> pool(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 1, 1));
  const HostTensor& x = inputs[0];
  UNIVK_RETURN_IF_ERROR(check_nhwc(x, "input"));
  const DType t = x.dtype();
  if (t != DType::kFloat32 && t != DType::kInt8 && t != DType::kInt16) {
    return unsupported("dtype " + std::string(dtype_name(t)) + " (float32, int8, int16 only)");
  }
  const bool avg = op == "AVG_POOL2D";
  UNIVK_ASSIGN_OR_RETURN(ops::TosaPool2d pw, ops::tosa_pool2d(attrs, x.shape()));
  // Window geometry in the short names the loops use.
  struct {
    int64_t kh, kw, sh, sw, pt, pl;
  } const w = {pw.kernel[0], pw.kernel[1], pw.stride[0], pw.stride[1], pw.pad[0], pw.pad[2]};
  int64_t in_zp = 0, out_zp = 0;
  bool ignore = false;
  if (avg) {
    UNIVK_ASSIGN_OR_RETURN(int64_t acc_type, attrs.get_int_or("acc_type", t == DType::kFloat32 ? 3 : 1));
    if ((t == DType::kFloat32 && acc_type != 3) || (t != DType::kFloat32 && acc_type != 1)) {
      return invalid_argument("attribute 'acc_type'=" + std::to_string(acc_type) + " is not valid for " +
                              std::string(dtype_name(t)) + " (FP32=3 for float32, INT32=1 for integers)");
    }
    UNIVK_ASSIGN_OR_RETURN(in_zp, zero_point(attrs, "input_zp", t));
    UNIVK_ASSIGN_OR_RETURN(out_zp, zero_point(attrs, "output_zp", t));
    if (t == DType::kInt16 && (in_zp != 0 || out_zp != 0)) return invalid_argument("int16 zero points must be 0");
  } else {
    UNIVK_ASSIGN_OR_RETURN(ignore, nan_ignore(attrs));
  }
  const int64_t n = x.shape()[0], ih = x.shape()[1], iw = x.shape()[2], c = x.shape()[3];
  const int64_t oh = pw.out_h, ow = pw.out_w;
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(t, {n, oh, ow, c}));
  const bool is_float = t == DType::kFloat32;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t xo = 0; xo < ow; ++xo) {
        for (int64_t ch = 0; ch < c; ++ch) {
          double fsum = 0.0;
          float fmax = -INFINITY;
          bool any_number = false, any_nan = false;
          int64_t isum = 0, imax = int_min(t), count = 0;
          for (int64_t i = 0; i < w.kh; ++i) {
            const int64_t yy = y * w.sh - w.pt + i;
            if (yy < 0 || yy >= ih) continue;  // padding: not read, not counted
            for (int64_t j = 0; j < w.kw; ++j) {
              const int64_t xx = xo * w.sw - w.pl + j;
              if (xx < 0 || xx >= iw) continue;
              const int64_t idx = ((b * ih + yy) * iw + xx) * c + ch;
              ++count;
              if (is_float) {
                const float v = x.data<float>()[static_cast<size_t>(idx)];
                fsum += v;
                if (std::isnan(v)) {
                  any_nan = true;
                } else if (!any_number || v > fmax) {
                  fmax = v;
                  any_number = true;
                }
              } else {
                const int64_t v = read_int(x, idx);
                isum += v - in_zp;
                imax = std::max(imax, v);
              }
            }
          }
          const int64_t o = ((b * oh + y) * ow + xo) * c + ch;
          if (is_float && avg) {
            out.data<float>()[static_cast<size_t>(o)] = static_cast<float>(fsum / static_cast<double>(count));
          } else if (is_float) {
            // PROPAGATE: NaN if any tap is NaN; IGNORE: NaN only if every tap is.
            out.data<float>()[static_cast<size_t>(o)] = ((any_nan && !ignore) || !any_number) ? NAN : fmax;
          } else if (avg) {
            // Integer division by count through the spec's reciprocal_scale.
            const int64_t k = 32 - clz32(static_cast<uint32_t>(count - 1));
            const int64_t mult = (((int64_t{1} << 30) + 1) << k) / count;
            UNIVK_ASSIGN_OR_RETURN(int64_t v, apply_scale_32(isum, mult, 30 + k, false));
            write_int(out, o, std::clamp(v + out_zp, int_min(t), int_max(t)));
          } else {
            write_int(out, o, imax);
          }
        }
      }
    }
  }
  return single(std::move(out));
}

struct ConvParams {
  int64_t in_zp, w_zp;
  bool is_int;
};

// Dtypes, accumulator and zero points; the window is ops::tosa_conv2d's.
Result<ConvParams> conv_params(const Attributes& attrs, const HostTensor& x, const HostTensor& weight) {
  ConvParams p{};
  if (x.dtype() == DType::kFloat32 && weight.dtype() == DType::kFloat32) {
    p.is_int = false;
  } else if (x.dtype() == DType::kInt8 && weight.dtype() == DType::kInt8) {
    p.is_int = true;
  } else {
    return unsupported("input/weight dtypes " + std::string(dtype_name(x.dtype())) + "/" +
                       std::string(dtype_name(weight.dtype())) + " (float32/float32 or int8/int8 only)");
  }
  UNIVK_ASSIGN_OR_RETURN(int64_t acc_type, attrs.get_int_or("acc_type", p.is_int ? 1 : 3));
  if (acc_type != (p.is_int ? 1 : 3)) {
    return invalid_argument("attribute 'acc_type'=" + std::to_string(acc_type) + " is not valid for these dtypes");
  }
  UNIVK_ASSIGN_OR_RETURN(p.in_zp, zero_point(attrs, "input_zp", x.dtype()));
  UNIVK_ASSIGN_OR_RETURN(p.w_zp, zero_point(attrs, "weight_zp", weight.dtype()));
  return p;
}

// Reads the optional bias (absent = zeros) with BC = out_channels or 1.
Result<std::vector<double>> bias_values(Inputs inputs, int64_t out_channels, bool is_int) {
  std::vector<double> bias(static_cast<size_t>(out_channels), 0.0);
  if (inputs.size() < 3) return bias;
  const HostTensor& b = inputs[2];
  const DType want = is_int ? DType::kInt32 : DType::kFloat32;
  if (b.dtype() != want) return invalid_argument("bias dtype must be " + std::string(dtype_name(want)));
  if (b.shape().rank() != 1 || (b.shape()[0] != out_channels && b.shape()[0] != 1)) {
    return invalid_argument("bias shape " + b.shape().to_string() + " must be [" + std::to_string(out_channels) +
                            "] or [1]");
  }
  for (int64_t i = 0; i < out_channels; ++i) {
    const int64_t src = b.shape()[0] == 1 ? 0 : i;
    bias[static_cast<size_t>(i)] = is_int ? static_cast<double>(read_int(b, src)) : b.data<float>()[src];
  }
  return bias;
}

Result<Tensors> conv(std::string_view op, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 3));
  const HostTensor& x = inputs[0];
  const HostTensor& weight = inputs[1];
  UNIVK_RETURN_IF_ERROR(check_nhwc(x, "input"));
  if (weight.shape().rank() != 4)
    return invalid_argument("weight shape " + weight.shape().to_string() + " must be 4-d");
  UNIVK_ASSIGN_OR_RETURN(ConvParams p, conv_params(attrs, x, weight));
  const bool depthwise = op == "DEPTHWISE_CONV2D";
  const int64_t n = x.shape()[0], ih = x.shape()[1], iw = x.shape()[2], ic = x.shape()[3];
  // CONV2D weight [OC,KH,KW,IC]; DEPTHWISE_CONV2D weight [KH,KW,C,M], out channel = c*M + m.
  const Shape& ws = weight.shape();
  const int64_t kh = depthwise ? ws[0] : ws[1], kw = depthwise ? ws[1] : ws[2];
  const int64_t wc = depthwise ? ws[2] : ws[3];
  const int64_t mult = depthwise ? ws[3] : 1;
  const int64_t oc = depthwise ? ic * mult : ws[0];
  if (wc != ic) {
    return invalid_argument("weight shape " + ws.to_string() + " has " + std::to_string(wc) +
                            " input channels, input has " + std::to_string(ic));
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<double> bias, bias_values(inputs, oc, p.is_int));
  UNIVK_ASSIGN_OR_RETURN(ops::TosaConv2d cw, ops::tosa_conv2d(attrs, x.shape(), kh, kw));
  const int64_t oh = cw.out_h, ow = cw.out_w;
  const int64_t sh = cw.stride[0], sw = cw.stride[1], dh = cw.dilation[0], dw = cw.dilation[1];
  const int64_t pt = cw.pad[0], pl = cw.pad[2];
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(p.is_int ? DType::kInt32 : DType::kFloat32, {n, oh, ow, oc}));
  auto in_at = [&](int64_t b, int64_t yy, int64_t xx, int64_t ch) -> double {
    const int64_t idx = ((b * ih + yy) * iw + xx) * ic + ch;
    return p.is_int ? static_cast<double>(read_int(x, idx) - p.in_zp) : x.data<float>()[static_cast<size_t>(idx)];
  };
  auto w_at = [&](int64_t idx) -> double {
    return p.is_int ? static_cast<double>(read_int(weight, idx) - p.w_zp)
                    : weight.data<float>()[static_cast<size_t>(idx)];
  };
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t xo = 0; xo < ow; ++xo) {
        for (int64_t f = 0; f < oc; ++f) {
          // int8 products summed in double are exact for any realistic tensor (< 2^53).
          double acc = 0.0;
          for (int64_t i = 0; i < kh; ++i) {
            const int64_t yy = y * sh - pt + i * dh;
            if (yy < 0 || yy >= ih) continue;
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t xx = xo * sw - pl + j * dw;
              if (xx < 0 || xx >= iw) continue;
              if (depthwise) {
                const int64_t ch = f / mult, m = f % mult;
                acc += in_at(b, yy, xx, ch) * w_at(((i * kw + j) * ic + ch) * mult + m);
              } else {
                for (int64_t ch = 0; ch < ic; ++ch)
                  acc += in_at(b, yy, xx, ch) * w_at(((f * kh + i) * kw + j) * ic + ch);
              }
            }
          }
          acc += bias[static_cast<size_t>(f)];
          const int64_t o = ((b * oh + y) * ow + xo) * oc + f;
          if (p.is_int)
            write_int(out, o, static_cast<int64_t>(acc));
          else
            out.data<float>()[static_cast<size_t>(o)] = static_cast<float>(acc);
        }
      }
    }
  }
  return single(std::move(out));
}

// TRANSPOSE_CONV2D (weight [OC,KH,KW,IC]): every input pixel scatters onto the output pixels its
// taps reach (iy * stride + out_pad_top + ky), as the spec's pseudocode; outside the output it is
// dropped. Accumulated in double from the bias (exact for int8).
Result<Tensors> transpose_conv(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 3));
  const HostTensor& x = inputs[0];
  const HostTensor& weight = inputs[1];
  UNIVK_RETURN_IF_ERROR(check_nhwc(x, "input"));
  if (weight.shape().rank() != 4)
    return invalid_argument("weight shape " + weight.shape().to_string() + " must be 4-d");
  UNIVK_ASSIGN_OR_RETURN(ConvParams p, conv_params(attrs, x, weight));
  const int64_t n = x.shape()[0], ih = x.shape()[1], iw = x.shape()[2], ic = x.shape()[3];
  const Shape& ws = weight.shape();
  const int64_t oc = ws[0], kh = ws[1], kw = ws[2];
  if (ws[3] != ic) {
    return invalid_argument("weight shape " + ws.to_string() + " has " + std::to_string(ws[3]) +
                            " input channels, input has " + std::to_string(ic));
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<double> bias, bias_values(inputs, oc, p.is_int));
  UNIVK_ASSIGN_OR_RETURN(ops::TosaTransposeConv2d tc, ops::tosa_transpose_conv2d(attrs, x.shape(), kh, kw));
  const int64_t oh = tc.out_h, ow = tc.out_w;
  std::vector<double> acc(static_cast<size_t>(n * oh * ow * oc));
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = bias[i % static_cast<size_t>(oc)];
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t iy = 0; iy < ih; ++iy) {
      for (int64_t ix = 0; ix < iw; ++ix) {
        for (int64_t ky = 0; ky < kh; ++ky) {
          const int64_t oy = iy * tc.stride[0] + tc.out_pad[0] + ky;
          if (oy < 0 || oy >= oh) continue;
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int64_t ox = ix * tc.stride[1] + tc.out_pad[2] + kx;
            if (ox < 0 || ox >= ow) continue;
            for (int64_t f = 0; f < oc; ++f) {
              double sum = 0.0;
              for (int64_t ch = 0; ch < ic; ++ch) {
                const int64_t xi = ((b * ih + iy) * iw + ix) * ic + ch;
                const int64_t wi = ((f * kh + ky) * kw + kx) * ic + ch;
                const double xv = p.is_int ? static_cast<double>(read_int(x, xi) - p.in_zp) : x.data<float>()[xi];
                const double wv =
                    p.is_int ? static_cast<double>(read_int(weight, wi) - p.w_zp) : weight.data<float>()[wi];
                sum += xv * wv;
              }
              acc[static_cast<size_t>(((b * oh + oy) * ow + ox) * oc + f)] += sum;
            }
          }
        }
      }
    }
  }
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(p.is_int ? DType::kInt32 : DType::kFloat32, {n, oh, ow, oc}));
  for (size_t i = 0; i < acc.size(); ++i) {
    if (p.is_int)
      write_int(out, static_cast<int64_t>(i), static_cast<int64_t>(acc[i]));
    else
      out.data<float>()[i] = static_cast<float>(acc[i]);
  }
  return single(std::move(out));
}

// CONV3D (input [N,D,H,W,IC], weight [OC,KD,KH,KW,IC]): CONV2D's sum over one more window axis.
Result<Tensors> conv3d(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 3));
  const HostTensor& x = inputs[0];
  const HostTensor& weight = inputs[1];
  const Shape& ws = weight.shape();
  if (ws.rank() != 5) return invalid_argument("weight shape " + ws.to_string() + " must be 5-d [OC,KD,KH,KW,IC]");
  UNIVK_ASSIGN_OR_RETURN(ConvParams p, conv_params(attrs, x, weight));
  UNIVK_ASSIGN_OR_RETURN(ops::TosaConv3d cw, ops::tosa_conv3d(attrs, x.shape(), ws[1], ws[2], ws[3]));
  const int64_t n = x.shape()[0], id = x.shape()[1], ih = x.shape()[2], iw = x.shape()[3], ic = x.shape()[4];
  const int64_t oc = ws[0], kd = ws[1], kh = ws[2], kw = ws[3];
  if (ws[4] != ic) {
    return invalid_argument("weight shape " + ws.to_string() + " has " + std::to_string(ws[4]) +
                            " input channels, input has " + std::to_string(ic));
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<double> bias, bias_values(inputs, oc, p.is_int));
  const int64_t od = cw.out_d, oh = cw.out_h, ow = cw.out_w;
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, make_output(p.is_int ? DType::kInt32 : DType::kFloat32, {n, od, oh, ow, oc}));
  auto in_at = [&](int64_t idx) -> double {
    return p.is_int ? static_cast<double>(read_int(x, idx) - p.in_zp) : x.data<float>()[static_cast<size_t>(idx)];
  };
  auto w_at = [&](int64_t idx) -> double {
    return p.is_int ? static_cast<double>(read_int(weight, idx) - p.w_zp)
                    : weight.data<float>()[static_cast<size_t>(idx)];
  };
  int64_t o = 0;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t z = 0; z < od; ++z) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xo = 0; xo < ow; ++xo) {
          for (int64_t f = 0; f < oc; ++f, ++o) {
            double acc = 0.0;
            for (int64_t t = 0; t < kd; ++t) {
              const int64_t zz = z * cw.stride[0] - cw.pad[0] + t * cw.dilation[0];
              if (zz < 0 || zz >= id) continue;
              for (int64_t i = 0; i < kh; ++i) {
                const int64_t yy = y * cw.stride[1] - cw.pad[2] + i * cw.dilation[1];
                if (yy < 0 || yy >= ih) continue;
                for (int64_t j = 0; j < kw; ++j) {
                  const int64_t xx = xo * cw.stride[2] - cw.pad[4] + j * cw.dilation[2];
                  if (xx < 0 || xx >= iw) continue;
                  for (int64_t ch = 0; ch < ic; ++ch) {
                    acc += in_at((((b * id + zz) * ih + yy) * iw + xx) * ic + ch) *
                           w_at((((f * kd + t) * kh + i) * kw + j) * ic + ch);
                  }
                }
              }
            }
            acc += bias[static_cast<size_t>(f)];
            if (p.is_int)
              write_int(out, o, static_cast<int64_t>(acc));
            else
              out.data<float>()[static_cast<size_t>(o)] = static_cast<float>(acc);
          }
        }
      }
    }
  }
  return single(std::move(out));
}

Result<Tensors> matmul(std::string_view, const Attributes& attrs, Inputs inputs) {
  UNIVK_RETURN_IF_ERROR(check_input_count(inputs, 2, 2));
  const HostTensor& a = inputs[0];
  const HostTensor& b = inputs[1];
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  UNIVK_ASSIGN_OR_RETURN(Shape output, ops::tosa_matmul(sa, sb));
  bool is_int;
  if (a.dtype() == DType::kFloat32 && b.dtype() == DType::kFloat32)
    is_int = false;
  else if (a.dtype() == DType::kInt8 && b.dtype() == DType::kInt8)
    is_int = true;
  else
    return unsupported("A/B dtypes must be float32/float32 or int8/int8");
  UNIVK_ASSIGN_OR_RETURN(int64_t a_zp, zero_point(attrs, "a_zp", a.dtype()));
  UNIVK_ASSIGN_OR_RETURN(int64_t b_zp, zero_point(attrs, "b_zp", b.dtype()));
  const int64_t n = sa[0], h = sa[1], c = sa[2], w = sb[2];
  HostTensor out(is_int ? DType::kInt32 : DType::kFloat32, std::move(output));
  for (int64_t bi = 0; bi < n; ++bi) {
    for (int64_t i = 0; i < h; ++i) {
      for (int64_t j = 0; j < w; ++j) {
        const int64_t o = (bi * h + i) * w + j;
        if (is_int) {
          int64_t acc = 0;
          for (int64_t k = 0; k < c; ++k) {
            acc += (read_int(a, (bi * h + i) * c + k) - a_zp) * (read_int(b, (bi * c + k) * w + j) - b_zp);
          }
          write_int(out, o, acc);
        } else {
          float acc = 0.0f;
          for (int64_t k = 0; k < c; ++k)
            acc += a.data<float>()[(bi * h + i) * c + k] * b.data<float>()[(bi * c + k) * w + j];
          out.data<float>()[static_cast<size_t>(o)] = acc;
        }
      }
    }
  }
  return single(std::move(out));
}

}  // namespace

OpTable tosa_tensor_ops() {
  return {{"AVG_POOL2D", pool},
          {"MAX_POOL2D", pool},
          {"CONV2D", conv},
          {"DEPTHWISE_CONV2D", conv},
          {"TRANSPOSE_CONV2D", transpose_conv},
          {"CONV3D", conv3d},
          {"MATMUL", matmul}};
}

}  // namespace univk::reference::detail
