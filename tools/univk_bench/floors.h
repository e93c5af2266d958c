// The floors a model's latency and bandwidth are compared with, measured on the device and
// queue the model ran on, in the same process run:
//   round trip  an empty command buffer through Queue::submit + Queue::wait (host time): the
//               least any submit-and-wait execution can cost;
//   copy        a copy between two device-local buffers, done twice: by vkCmdCopyBuffer, and by
//               a compute shader with 16-byte loads and stores; GPU time from timestamp queries,
//               and the host time (submit + wait) of vkCmdCopyBuffer. Bandwidth counts the bytes
//               read plus the bytes written (2 x size), the same way a kernel's fewest bytes are
//               counted; the floor is the faster of the two (on NVIDIA's driver the transfer
//               path reached about a fifth of what a shader copy does).
//   coopmat     fp16 cooperative-matrix peak (independent accumulator chains), where present
//   fma         fp32 FMA peak of a compute shader (independent vec4 FMA chains), from
//               timestamps: the floor of compute-bound kernels (univk-kernel-bench);
//   dispatches  a command buffer of 0, 1 or 3 dispatches of a one-workgroup kernel with a full
//               barrier between them (the shape of a chain of tiny delegates): host time of
//               submit + wait and GPU time between timestamps. Against the empty round trip it
//               shows what the least real work adds per submission and per dispatch.
#pragma once

#include <chrono>
#include <cstdint>

#include "stats.h"
#include "univk/base/status.h"
#include "univk/vulkan/registry.h"

namespace univk::bench {

struct RepeatCounts {
  int warmup = 0;
  int iterations = 1;
  // Warm-up runs continue until this much time has passed too: a GPU left idle (the host
  // copying gigabytes, say) drops its clocks, and short bursts of work do not bring them back
  // (on the H200 the floors measured half their bandwidth right after such a phase).
  double min_warmup_ms = 0;
};

// True while run `i` is still a warm-up run, given when the runs started.
bool warming_up(const RepeatCounts& counts, int i, std::chrono::steady_clock::time_point start);

// Nanoseconds per empty submit-and-wait.
Result<Summary> measure_round_trip(const vulkan::DeviceLease& device, RepeatCounts counts);

struct CopyFloor {
  uint64_t bytes = 0;                        // size of one buffer
  Summary gpu_ns;                            // vkCmdCopyBuffer, from timestamps around the copy
  Summary host_ns;                           // vkCmdCopyBuffer, submit + wait
  uint64_t shader_bytes = 0;                 // the shader copies min(bytes, maxStorageBufferRange)
  Summary shader_gpu_ns;                     // the compute-shader copy, from timestamps
  double transfer_bytes_per_second() const;  // 2 * bytes / gpu_ns.p50
  double shader_bytes_per_second() const;    // 2 * shader_bytes / shader_gpu_ns.p50
  double bytes_per_second() const;           // the faster of the two
};

struct DispatchFloor {
  uint32_t dispatches = 0;
  Summary gpu_ns;   // from a timestamp before the first dispatch to one after the last
  Summary host_ns;  // submit + wait
};

Result<DispatchFloor> measure_dispatches(const vulkan::DeviceLease& device, uint32_t dispatches, RepeatCounts counts);

struct FmaFloor {
  double flop = 0;  // per dispatch
  Summary gpu_ns;
  double flops_per_second() const;  // flop / gpu_ns.p50
};

// The fp32 FMA peak: fma_peak.comp over enough workgroups to fill the device (fewer on a CPU
// implementation, where the same count would take minutes).
Result<FmaFloor> measure_fma_peak(const vulkan::DeviceLease& device, RepeatCounts counts);

// What coopmat_peak.comp needs, all optional: VK_NV_cooperative_matrix with its feature,
// shaderFloat16, storageBuffer16BitAccess and vulkanMemoryModel (glslang compiles cooperative
// matrices under the Vulkan memory model).
vulkan::DeviceRequirements coopmat_floor_requirements();

// The cooperative-matrix peak (NV, fp16 x fp16 -> fp32, 16x16x16): coopmat_peak.comp over
// enough workgroups to fill the device, created with coopmat_floor_requirements(). Unsupported
// unless those are enabled, the shape is listed and subgroups are 32 wide.
Result<FmaFloor> measure_coopmat_peak(const vulkan::DeviceLease& device, RepeatCounts counts);

// `bytes` is rounded down to a multiple of 16 (the shader copies 16-byte elements).
Result<CopyFloor> measure_copy(const vulkan::DeviceLease& device, uint64_t bytes, RepeatCounts counts);

}  // namespace univk::bench
