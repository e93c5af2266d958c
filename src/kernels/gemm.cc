#include "univk/kernels/gemm.h"

#include <bit>

#include "tiling.h"

namespace univk::kernels {

using detail::u32;

Result<KernelDispatch> plan_gemm(const GemmProblem& p, const DeviceTraits& device, std::optional<Tiling> tiling) {
  UNIVK_RETURN_IF_ERROR(detail::check_range(p.batch, UINT32_MAX, "gemm batch"));
  UNIVK_RETURN_IF_ERROR(detail::check_range(p.m, UINT32_MAX, "gemm M"));
  UNIVK_RETURN_IF_ERROR(detail::check_range(p.n, UINT32_MAX, "gemm N"));
  UNIVK_RETURN_IF_ERROR(detail::check_range(p.k, UINT32_MAX, "gemm K"));
  if (p.batch == 0 || p.m == 0 || p.n == 0) return invalid_argument("gemm with an empty output");
  const int64_t k = std::max<int64_t>(p.k, 1);
  UNIVK_RETURN_IF_ERROR(
      detail::check_addressable(p.a.offset, {{p.batch, p.a.batch}, {p.m, p.a.row}, {k, p.a.col}}, "gemm A"));
  UNIVK_RETURN_IF_ERROR(
      detail::check_addressable(p.b.offset, {{p.batch, p.b.batch}, {k, p.b.row}, {p.n, p.b.col}}, "gemm B"));
  UNIVK_RETURN_IF_ERROR(detail::check_addressable(
      p.out.offset, {{p.batch, p.out.batch}, {p.m, p.out.row}, {p.n, p.out.col}}, "gemm out"));
  if (p.epilogue.bias) {
    UNIVK_RETURN_IF_ERROR(detail::check_addressable(
        p.bias.offset, {{p.batch, p.bias.batch}, {p.m, p.bias.row}, {p.n, p.bias.col}}, "gemm bias"));
  }
  if (p.epilogue.residual) {
    UNIVK_RETURN_IF_ERROR(detail::check_addressable(
        p.residual_offset, {{p.batch, p.out.batch}, {p.m, p.out.row}, {p.n, p.out.col}}, "gemm residual"));
  }

  uint32_t flags = 0;
  if (p.a.col == 1) flags |= detail::kFlagAKFast;
  if (p.b.col == 1) flags |= detail::kFlagBNFast;
  // 16-byte loads (vectorised tilings) along the contiguous dimension: offset, the other
  // strides and the walked extent multiples of 4 (one batch has no batch stride).
  using detail::aligned4;
  const int64_t a_batch = p.batch == 1 ? 0 : p.a.batch, b_batch = p.batch == 1 ? 0 : p.b.batch;
  const int64_t a_off = int64_t(p.a.offset), b_off = int64_t(p.b.offset);
  if (p.a.col == 1 ? aligned4({a_off, a_batch, p.a.row, p.k})
                   : p.a.row == 1 && aligned4({a_off, a_batch, p.a.col, p.m})) {
    flags |= detail::kFlagVecA;
  }
  if (p.b.col == 1 ? aligned4({b_off, b_batch, p.b.row, p.n})
                   : p.b.row == 1 && aligned4({b_off, b_batch, p.b.col, p.k})) {
    flags |= detail::kFlagVecB;
  }
  // 16-byte output stores (the vectorised core): 4 contiguous columns, the offset, the other
  // strides and N multiples of 4. On the H200 a batch-32 classifier writing host memory ran
  // its 4-byte stores at a third of the speed.
  const int64_t out_batch = p.batch == 1 ? 0 : p.out.batch;
  if (p.out.col == 1 && aligned4({int64_t(p.out.offset), out_batch, p.out.row, p.n})) flags |= detail::kFlagVecOut;
  KernelDispatch d;
  const std::optional<Tiling> skinny =
      tiling ? (tiling->skinny ? tiling : std::nullopt) : detail::skinny_choice(p, device);
  if (skinny) {
    UNIVK_RETURN_IF_ERROR(detail::fill_gemm_skinny(d, p, *skinny, device));
  } else {
    const bool along_k = detail::loads_vectors_along_k(flags);
    UNIVK_ASSIGN_OR_RETURN(const Tiling chosen, detail::choose_tiling(p.m, p.n, p.k, p.batch, device, tiling,
                                                                      UINT32_MAX, [&](uint32_t) { return along_k; }));
    d.kernel = Kernel::kGemmF32;
    UNIVK_RETURN_IF_ERROR(
        detail::fill_gemm_shape(d, chosen, p.m, p.n, k, p.batch, p.epilogue, flags, p.split_k, device));
  }
  d.push.assign(kGemmPushWords, 0);
  detail::set_binding_offsets(d.push, {p.a.offset, p.b.offset, p.bias.offset, p.out.offset, p.residual_offset});
  d.push[kGemmM] = u32(p.m);
  d.push[kGemmN] = u32(p.n);
  d.push[kGemmK] = u32(p.k);
  const MatrixOperand* strided[] = {&p.a, &p.b, &p.bias, &p.out};
  for (uint32_t i = 0; i < 4; ++i) {
    d.push[kGemmAStrides + 3 * i] = u32(strided[i]->batch);
    d.push[kGemmAStrides + 3 * i + 1] = u32(strided[i]->row);
    d.push[kGemmAStrides + 3 * i + 2] = u32(strided[i]->col);
  }
  d.push[kGemmAlpha] = std::bit_cast<uint32_t>(p.alpha);
  d.push[kGemmBeta] = std::bit_cast<uint32_t>(p.beta);
  d.push[kGemmLo] = std::bit_cast<uint32_t>(p.epilogue.lo);
  d.push[kGemmHi] = std::bit_cast<uint32_t>(p.epilogue.hi);
  // Bindings 0, 1 and 3 always; the bias and residual when the epilogue reads them; the
  // scratch with split-K.
  d.used_bindings = 0b1011u | (p.epilogue.bias ? 0b100u : 0u) | (p.epilogue.residual ? 0b10000u : 0u) |
                    (d.splits > 1 ? 0b100000u : 0u);
  d.output_binding = 3;
  d.flops = 2 * uint64_t(p.batch) * uint64_t(p.m) * uint64_t(p.n) * uint64_t(p.k);
  return d;
}

}  // namespace univk::kernels
