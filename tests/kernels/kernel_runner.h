// Runs one library kernel on the test device: uploads the operands, records the dispatch
// through the DispatchRecorder, submits, waits and returns the output binding's contents.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "univk/base/status.h"
#include "univk/kernels/kernel.h"
#include "univk/vulkan/device.h"

namespace univk::kernels::testing {

// Binding i of the kernel gets `bindings[i]` (an empty vector binds a 4-byte dummy; the scratch
// binding gets at least the dispatch's scratch_bytes, filled with garbage: its contents are
// undefined between dispatches); returns the output binding's floats after the dispatch. The
// command buffer is recorded once and submitted `runs` times, the output binding reset to its
// initial contents before each: the last run's output is returned, and each run must give the
// same (else an internal error).
Result<std::vector<float>> run_kernel(const std::shared_ptr<vulkan::Device>& device, const KernelDispatch& dispatch,
                                      const std::vector<std::vector<float>>& bindings, int runs = 1);
// The same over raw bytes (int8 and int32 operands), returning the output binding's bytes.
Result<std::vector<uint8_t>> run_kernel_bytes(const std::shared_ptr<vulkan::Device>& device,
                                              const KernelDispatch& dispatch,
                                              const std::vector<std::vector<uint8_t>>& bindings, int runs = 1);

// The SpecId decorations of a SPIR-V module: the specialization constants a shader declares.
std::set<uint32_t> spec_constant_ids(std::span<const uint32_t> spirv);
// OK when the shader of `dispatch.kernel` declares every specialization constant the dispatch
// sets (an id it does not declare is silently ignored by Vulkan), else an internal error
// naming it. run_kernel_bytes checks it before each run.
Status check_spec_constants(const KernelDispatch& dispatch);

// The test device (validation on), created once per process with the kernel library's optional
// requirements (cooperative matrices where the device has them).
const std::shared_ptr<vulkan::Device>& test_device();

// The tilings of `tilings` that fit the test device (fp32): lavapipe's 32 KiB of shared memory
// leaves out the 128x128x16 vectorised ones, which GPUs with 48 KiB (the H200) run.
std::vector<Tiling> fitting(std::span<const Tiling> tilings);

// The cooperative-matrix tilings on vectorised loads the planners take for 128-row tiles, which
// the kernel tests run on every load path: 8 subgroups (coopmat_vec_tilings()[0]) and, where
// the test device allows 512 invocations, 16 ([8] and [11]: tiling.cc's kCoopmatWide16 and
// kCoopmatHalf16).
std::vector<Tiling> planned_coopmat_vec_tilings();

// Whether a kernel planned with `precision` and the forced `tiling` on the test device rounds
// its operands to fp16 (kernel.h's Precision): a cooperative-matrix tiling always, an FMA one
// only on devices without cooperative matrices.
bool rounds_to_fp16(const Tiling& tiling, Precision precision);

}  // namespace univk::kernels::testing
