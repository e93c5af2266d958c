// The push-constant members every convolution kernel shares after its five binding offsets
// (kernels::Conv2dPush, kConvM to kConvPad): the implicit GEMM's M, OCg, K and ICg, output and
// input sizes, element strides (n, c, h, w) of the input and output, weight strides (output
// channel, input channel, tap), the kernel width, and stride, dilation and padding as (y | x << 16).
#define UNIVK_CONV_PUSH_GEOMETRY      \
  uint M, OCg, K, ICg;                \
  uint OH, OW, IH, IW;                \
  uint in_sn, in_sc, in_sh, in_sw;    \
  uint out_sn, out_sc, out_sh, out_sw; \
  uint w_oc, w_ic, w_tap;             \
  uint KW;                            \
  uint stride, dilation, pad;
