#include <string>

#include "tiling.h"
#include "univk/kernels/conv2d_i8.h"

namespace univk::kernels {

namespace {

constexpr int64_t kTileM = 128;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool fits_workgroup(const DeviceTraits& device) {
  return !device.cpu && device.max_workgroup_invocations >= kI8CoopmatInvocations &&
         device.max_shared_bytes >= kI8CoopmatSharedBytes;
}

std::string fragment_name(I8Fragment f) { return std::to_string(f.m) + "x" + std::to_string(f.n) + "x32"; }

}  // namespace

bool prefers_conv2d_i8_coopmat(const Conv2dI8Problem& problem, const DeviceTraits& device) {
  const Conv2dProblem& p = problem.conv;
  if (device.cooperative_matrix_i8 == 0 || !fits_workgroup(device) || p.groups <= 0) return false;
  const int64_t m = p.batch * p.out_h * p.out_w, ocg = p.out_channels / p.groups;
  const int64_t k = p.in_channels / p.groups * p.kernel_h * p.kernel_w;
  return m >= 256 && ocg >= 16 && k >= 64;
}

Result<KernelDispatch> plan_conv2d_i8_coopmat(const Conv2dI8Problem& problem, const DeviceTraits& device,
                                              std::optional<I8Fragment> fragment) {
  std::optional<I8Fragment> chosen;
  for (size_t i = 0; i < kI8Fragments.size() && !chosen; ++i) {
    const bool listed = (device.cooperative_matrix_i8 >> i & 1u) != 0;
    if (listed && (!fragment || *fragment == kI8Fragments[i])) chosen = kI8Fragments[i];
  }
  if (!chosen) {
    return unsupported(fragment ? "the device lists no int8 cooperative-matrix shape " + fragment_name(*fragment)
                                : std::string("the device lists no int8 cooperative-matrix shape (16x16x32, "
                                              "16x8x32 or 8x8x32 with int32 accumulators)"));
  }
  if (!fits_workgroup(device)) {
    return unsupported("the int8 cooperative-matrix conv2d needs a GPU workgroup of " +
                       std::to_string(kI8CoopmatInvocations) + " invocations and " +
                       std::to_string(kI8CoopmatSharedBytes) + " bytes of shared memory");
  }
  // The plain kernel's plan checks the problem and fills the push constants and FLAGS, which
  // this kernel shares.
  UNIVK_ASSIGN_OR_RETURN(KernelDispatch d, plan_conv2d_i8(problem, device, false));
  const uint32_t flags = detail::specialization_value(d, kI8FlagsConstant);
  const Conv2dProblem& p = problem.conv;
  const int64_t m = p.batch * p.out_h * p.out_w, ocg = p.out_channels / p.groups;
  const uint32_t bn = ocg > 64 ? 128 : 64;
  const int64_t gx = ceil_div(m, kTileM), gy = ceil_div(ocg, bn);
  if (gx > device.max_group_count[0] || gy > device.max_group_count[1] || p.groups > device.max_group_count[2]) {
    return unsupported("int8 cooperative-matrix conv2d grid " + std::to_string(gx) + " x " + std::to_string(gy) +
                       " x " + std::to_string(p.groups) + " exceeds the device's workgroup counts");
  }
  d.kernel = Kernel::kConv2dI8Coopmat;
  d.groups = {uint32_t(gx), uint32_t(gy), uint32_t(p.groups)};
  d.specialization = {{kI8FlagsConstant, flags},
                      {kI8CoopmatFragMConstant, chosen->m},
                      {kI8CoopmatFragNConstant, chosen->n},
                      {kI8CoopmatBnConstant, bn}};
  return d;
}

}  // namespace univk::kernels
