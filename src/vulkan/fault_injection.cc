#include "fault_injection.h"

#include <atomic>
#include <string_view>
#include <type_traits>
#include <utility>

#include "univk/vulkan/fault_injection.h"

namespace univk::vulkan::fault_injection {
namespace {

enum Mode : int { kOff = 0, kCount = 1, kFail = 2 };

std::atomic<bool> g_instrument{false};
std::atomic<int> g_mode{kOff};
std::atomic<uint64_t> g_calls{0};
std::atomic<uint64_t> g_fail_at{0};
std::atomic<int32_t> g_result{VK_SUCCESS};
std::atomic<const char*> g_fired{nullptr};
std::atomic<uint64_t> g_faults_total{0};
std::atomic<uint64_t> g_instrumented{0};
std::atomic<uint64_t> g_mismatched{0};

// Counts one call of `function`; true (and *result set) when this call is the armed fault.
bool take_fault(const char* function, VkResult* result) {
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode == kOff) return false;
  uint64_t n = g_calls.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (mode != kFail || n != g_fail_at.load(std::memory_order_acquire)) return false;
  // One-shot: only the thread that moves the mode from kFail to kCount injects.
  int expected = kFail;
  if (!g_mode.compare_exchange_strong(expected, kCount, std::memory_order_acq_rel)) return false;
  g_fired.store(function, std::memory_order_release);
  g_faults_total.fetch_add(1, std::memory_order_relaxed);
  *result = static_cast<VkResult>(g_result.load(std::memory_order_acquire));
  return true;
}

// One trampoline per table member (Member is a pointer to a member of VolkDeviceTable or
// InstanceDispatch). `original` is the entry point the first instrumented table held; later
// tables must hold the same one (checked by compatible()).
template <auto Member, typename Fn>
struct Trampoline;

template <auto Member, typename... Args>
struct Trampoline<Member, VkResult(VKAPI_PTR*)(Args...)> {
  using Fn = VkResult(VKAPI_PTR*)(Args...);
  static inline std::atomic<Fn> original{nullptr};
  static inline std::atomic<const char*> name{""};
  static inline std::atomic<bool> completes_first{false};

  static VkResult VKAPI_PTR call(Args... args) {
    VkResult forced;
    if (take_fault(name.load(std::memory_order_relaxed), &forced)) {
      if (completes_first.load(std::memory_order_relaxed)) (void)original.load(std::memory_order_acquire)(args...);
      return forced;
    }
    return original.load(std::memory_order_acquire)(args...);
  }
};

template <auto Member, typename Table>
using TrampolineFor = Trampoline<Member, std::remove_cvref_t<decltype(std::declval<Table&>().*Member)>>;

// A member can be instrumented when it is null (nothing to wrap), already a trampoline, or holds
// the same entry point as the tables instrumented before.
template <auto Member, typename Table>
bool compatible(const Table& table) {
  using T = TrampolineFor<Member, Table>;
  auto current = table.*Member;
  if (current == nullptr || current == &T::call) return true;
  auto original = T::original.load(std::memory_order_acquire);
  return original == nullptr || original == current;
}

// Host waits fail only after they completed: a one-shot fault must not leave GPU work running
// that the caller believes finished or lost (a real lost device never touches memory again;
// an injected one would, and the caller would free buffers under it).
bool is_wait(std::string_view name) {
  return name == "vkWaitSemaphores" || name == "vkWaitForFences" || name == "vkQueueWaitIdle" ||
         name == "vkDeviceWaitIdle";
}

template <auto Member, typename Table>
void wrap(Table& table, const char* name) {
  using T = TrampolineFor<Member, Table>;
  auto current = table.*Member;
  if (current == nullptr || current == &T::call) return;
  decltype(current) expected = nullptr;
  T::original.compare_exchange_strong(expected, current, std::memory_order_acq_rel);
  T::name.store(name, std::memory_order_relaxed);
  T::completes_first.store(is_wait(name), std::memory_order_relaxed);
  table.*Member = &T::call;
}

// Every device function of Vulkan 1.0-1.3 that returns a VkResult (the members of
// VolkDeviceTable under VK_VERSION_1_x whose PFN returns VkResult).
// The table keeps several names per line; clang-format would lay it out differently on each run.
// clang-format off
#define UNIVK_DEVICE_RESULT_FUNCTIONS_1_0(X)                                                          \
  X(vkAllocateCommandBuffers) X(vkAllocateDescriptorSets) X(vkAllocateMemory) X(vkBeginCommandBuffer) \
  X(vkBindBufferMemory) X(vkBindImageMemory) X(vkCreateBuffer) X(vkCreateBufferView)                  \
  X(vkCreateCommandPool) X(vkCreateComputePipelines) X(vkCreateDescriptorPool)                        \
  X(vkCreateDescriptorSetLayout) X(vkCreateEvent) X(vkCreateFence) X(vkCreateFramebuffer)             \
  X(vkCreateGraphicsPipelines) X(vkCreateImage) X(vkCreateImageView) X(vkCreatePipelineCache)         \
  X(vkCreatePipelineLayout) X(vkCreateQueryPool) X(vkCreateRenderPass) X(vkCreateSampler)             \
  X(vkCreateSemaphore) X(vkCreateShaderModule) X(vkDeviceWaitIdle) X(vkEndCommandBuffer)              \
  X(vkFlushMappedMemoryRanges) X(vkFreeDescriptorSets) X(vkGetEventStatus) X(vkGetFenceStatus)        \
  X(vkGetPipelineCacheData) X(vkGetQueryPoolResults) X(vkInvalidateMappedMemoryRanges) X(vkMapMemory) \
  X(vkMergePipelineCaches) X(vkQueueBindSparse) X(vkQueueSubmit) X(vkQueueWaitIdle)                   \
  X(vkResetCommandBuffer) X(vkResetCommandPool) X(vkResetDescriptorPool) X(vkResetEvent)              \
  X(vkResetFences) X(vkSetEvent) X(vkWaitForFences)
// clang-format on
#if defined(VK_VERSION_1_1)
#define UNIVK_DEVICE_RESULT_FUNCTIONS_1_1(X) \
  X(vkBindBufferMemory2) X(vkBindImageMemory2) X(vkCreateDescriptorUpdateTemplate) X(vkCreateSamplerYcbcrConversion)
#else
#define UNIVK_DEVICE_RESULT_FUNCTIONS_1_1(X)
#endif
#if defined(VK_VERSION_1_2)
#define UNIVK_DEVICE_RESULT_FUNCTIONS_1_2(X) \
  X(vkCreateRenderPass2) X(vkGetSemaphoreCounterValue) X(vkSignalSemaphore) X(vkWaitSemaphores)
#else
#define UNIVK_DEVICE_RESULT_FUNCTIONS_1_2(X)
#endif
#if defined(VK_VERSION_1_3)
#define UNIVK_DEVICE_RESULT_FUNCTIONS_1_3(X) X(vkCreatePrivateDataSlot) X(vkQueueSubmit2) X(vkSetPrivateData)
#else
#define UNIVK_DEVICE_RESULT_FUNCTIONS_1_3(X)
#endif
#define UNIVK_DEVICE_RESULT_FUNCTIONS(X) \
  UNIVK_DEVICE_RESULT_FUNCTIONS_1_0(X)   \
  UNIVK_DEVICE_RESULT_FUNCTIONS_1_1(X) UNIVK_DEVICE_RESULT_FUNCTIONS_1_2(X) UNIVK_DEVICE_RESULT_FUNCTIONS_1_3(X)

// The InstanceDispatch members that return a VkResult.
#define UNIVK_INSTANCE_RESULT_FUNCTIONS(X) \
  X(vkEnumeratePhysicalDevices)            \
  X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice) X(vkCreateDebugUtilsMessengerEXT)

// The DataGraphDispatch members (VK_ARM_tensors, VK_ARM_data_graph) that return a VkResult.
// clang-format off
#define UNIVK_DATA_GRAPH_RESULT_FUNCTIONS(X)                                                                 \
  X(vkCreateTensorARM) X(vkCreateTensorViewARM) X(vkBindTensorMemoryARM) X(vkCreateDataGraphPipelinesARM) \
  X(vkCreateDataGraphPipelineSessionARM) X(vkGetDataGraphPipelineSessionBindPointRequirementsARM)         \
  X(vkBindDataGraphPipelineSessionMemoryARM)
// clang-format on

void count_instrumented(bool ok) { (ok ? g_instrumented : g_mismatched).fetch_add(1, std::memory_order_relaxed); }

}  // namespace

void instrument(VolkDeviceTable& table) {
  if (!g_instrument.load(std::memory_order_acquire)) return;
  bool ok = true;
#define UNIVK_CHECK_MEMBER(fn) ok = ok && compatible<&VolkDeviceTable::fn>(table);
  UNIVK_DEVICE_RESULT_FUNCTIONS(UNIVK_CHECK_MEMBER)
#undef UNIVK_CHECK_MEMBER
  if (ok) {
#define UNIVK_WRAP_MEMBER(fn) wrap<&VolkDeviceTable::fn>(table, #fn);
    UNIVK_DEVICE_RESULT_FUNCTIONS(UNIVK_WRAP_MEMBER)
#undef UNIVK_WRAP_MEMBER
  }
  count_instrumented(ok);
}

void instrument(InstanceDispatch& table) {
  if (!g_instrument.load(std::memory_order_acquire)) return;
  bool ok = true;
#define UNIVK_CHECK_MEMBER(fn) ok = ok && compatible<&InstanceDispatch::fn>(table);
  UNIVK_INSTANCE_RESULT_FUNCTIONS(UNIVK_CHECK_MEMBER)
#undef UNIVK_CHECK_MEMBER
  if (ok) {
#define UNIVK_WRAP_MEMBER(fn) wrap<&InstanceDispatch::fn>(table, #fn);
    UNIVK_INSTANCE_RESULT_FUNCTIONS(UNIVK_WRAP_MEMBER)
#undef UNIVK_WRAP_MEMBER
  }
  count_instrumented(ok);
}

void instrument(DataGraphDispatch& table) {
  if (!g_instrument.load(std::memory_order_acquire)) return;
  bool ok = true;
#define UNIVK_CHECK_MEMBER(fn) ok = ok && compatible<&DataGraphDispatch::fn>(table);
  UNIVK_DATA_GRAPH_RESULT_FUNCTIONS(UNIVK_CHECK_MEMBER)
#undef UNIVK_CHECK_MEMBER
  if (ok) {
#define UNIVK_WRAP_MEMBER(fn) wrap<&DataGraphDispatch::fn>(table, #fn);
    UNIVK_DATA_GRAPH_RESULT_FUNCTIONS(UNIVK_WRAP_MEMBER)
#undef UNIVK_WRAP_MEMBER
  }
  count_instrumented(ok);
}

void set_instrumentation(bool on) { g_instrument.store(on, std::memory_order_release); }
bool instrumentation() { return g_instrument.load(std::memory_order_acquire); }

void count_calls() {
  g_mode.store(kOff, std::memory_order_release);
  g_calls.store(0, std::memory_order_release);
  g_fired.store(nullptr, std::memory_order_release);
  g_mode.store(kCount, std::memory_order_release);
}

void arm(uint64_t n, VkResult result) {
  g_mode.store(kOff, std::memory_order_release);
  g_calls.store(0, std::memory_order_release);
  g_fired.store(nullptr, std::memory_order_release);
  g_fail_at.store(n, std::memory_order_release);
  g_result.store(static_cast<int32_t>(result), std::memory_order_release);
  g_mode.store(kFail, std::memory_order_release);
}

void disarm() { g_mode.store(kOff, std::memory_order_release); }

uint64_t calls() { return g_calls.load(std::memory_order_acquire); }
bool fired() { return g_fired.load(std::memory_order_acquire) != nullptr; }
std::string fired_function() {
  const char* name = g_fired.load(std::memory_order_acquire);
  return name != nullptr ? name : "";
}
uint64_t faults_injected() { return g_faults_total.load(std::memory_order_relaxed); }
uint64_t instrumented_tables() { return g_instrumented.load(std::memory_order_relaxed); }
uint64_t mismatched_tables() { return g_mismatched.load(std::memory_order_relaxed); }

}  // namespace univk::vulkan::fault_injection
