#include "univk/vulkan/gpu_timer.h"

#include <utility>

#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::vulkan {

namespace {

// Queries per pool: pools are added as spans are recorded (two queries per span).
constexpr uint32_t kQueriesPerPool = 512;

bool can_calibrate(const Device& device) {
  if (!device.enabled().extensions.contains(kCalibratedTimestampsExtension)) return false;
  const InstanceDispatch& ivk = device.instance_object()->vk();
  if (ivk.vkGetPhysicalDeviceCalibrateableTimeDomainsEXT == nullptr ||
      device.vk().vkGetCalibratedTimestampsEXT == nullptr)
    return false;
  uint32_t count = 0;
  if (ivk.vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(device.physical_device(), &count, nullptr) != VK_SUCCESS)
    return false;
  std::vector<VkTimeDomainEXT> domains(count);
  if (ivk.vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(device.physical_device(), &count, domains.data()) !=
      VK_SUCCESS)
    return false;
  bool has_device = false, has_monotonic = false;
  for (VkTimeDomainEXT d : domains) {
    has_device |= d == VK_TIME_DOMAIN_DEVICE_EXT;
    has_monotonic |= d == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
  }
  return has_device && has_monotonic;
}

}  // namespace

Result<std::unique_ptr<GpuTimer>> GpuTimer::create(DeviceLease device) {
  if (!device) return invalid_argument("GpuTimer: no device");
  const InstanceDispatch& ivk = device->instance_object()->vk();
  uint32_t family_count = 0;
  ivk.vkGetPhysicalDeviceQueueFamilyProperties(device->physical_device(), &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  ivk.vkGetPhysicalDeviceQueueFamilyProperties(device->physical_device(), &family_count, families.data());
  const uint32_t family = device->queue().family_index();
  if (family >= families.size() || families[family].timestampValidBits == 0) {
    return unsupported("profiling needs GPU timestamps, and queue family " + std::to_string(family) +
                       " of Vulkan device '" + device->properties().deviceName + "' has none (timestampValidBits = 0)");
  }
  const uint32_t bits = families[family].timestampValidBits;
  std::unique_ptr<GpuTimer> timer(new GpuTimer());
  timer->valid_mask_ = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  timer->period_ns_ = device->properties().limits.timestampPeriod;
  timer->calibrated_ = can_calibrate(*device);
  timer->device_ = std::move(device);
  return timer;
}

GpuTimer::~GpuTimer() {
  for (VkQueryPool pool : pools_) device_->vk().vkDestroyQueryPool(device_->handle(), pool, nullptr);
}

Result<uint32_t> GpuTimer::write(VkCommandBuffer cmd, bool end) {
  const uint32_t query = queries_;
  if (query / kQueriesPerPool == pools_.size()) {
    VkQueryPoolCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = kQueriesPerPool;
    VkQueryPool pool = VK_NULL_HANDLE;
    UNIVK_VK_RETURN_IF_ERROR(device_->vk().vkCreateQueryPool(device_->handle(), &info, nullptr, &pool));
    pools_.push_back(pool);
  }
  VkQueryPool pool = pools_[query / kQueriesPerPool];
  const uint32_t slot = query % kQueriesPerPool;
  const VolkDeviceTable& vk = device_->vk();
  // The reset orders itself after earlier uses of the query and before this write (a query
  // command's implicit dependency), so resubmitting the command buffer needs nothing else.
  vk.vkCmdResetQueryPool(cmd, pool, slot, 1);
  if (device_->uses_synchronization2()) {
    vk.vkCmdWriteTimestamp2(cmd, end ? VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT : VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, pool,
                            slot);
  } else {
    vk.vkCmdWriteTimestamp(cmd, end ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool,
                           slot);
  }
  ++queries_;
  return query;
}

Result<uint32_t> GpuTimer::begin(VkCommandBuffer cmd, std::string name) {
  UNIVK_ASSIGN_OR_RETURN(const uint32_t query, write(cmd, /*end=*/false));
  Span span;
  span.name = std::move(name);
  span.parent = open_.empty() ? -1 : static_cast<int32_t>(open_.back());
  span.begin_query = span.end_query = query;
  spans_.push_back(std::move(span));
  open_.push_back(static_cast<uint32_t>(spans_.size() - 1));
  return open_.back();
}

Result<uint32_t> GpuTimer::end(VkCommandBuffer cmd, uint32_t span) {
  if (open_.empty() || open_.back() != span) {
    return internal_error("GpuTimer: span " + std::to_string(span) + " ended but it is not the innermost open one");
  }
  UNIVK_ASSIGN_OR_RETURN(spans_[span].end_query, write(cmd, /*end=*/true));
  open_.pop_back();
  return span;
}

Result<GpuTimer::Readout> GpuTimer::read() const {
  Readout out;
  if (spans_.empty()) return out;
  if (!open_.empty()) return internal_error("GpuTimer: span '" + spans_[open_.back()].name + "' was never ended");
  std::vector<uint64_t> ticks(queries_);
  for (size_t p = 0; p < pools_.size(); ++p) {
    const uint32_t first = static_cast<uint32_t>(p) * kQueriesPerPool;
    const uint32_t count = std::min(kQueriesPerPool, queries_ - first);
    UNIVK_VK_RETURN_IF_ERROR(device_->vk().vkGetQueryPoolResults(
        device_->handle(), pools_[p], 0, count, count * sizeof(uint64_t), ticks.data() + first, sizeof(uint64_t),
        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  }
  const uint64_t origin = ticks[spans_.front().begin_query];
  // Ticks after the origin, modulo the valid bits; a tick "before" it (a span recorded earlier
  // in another command buffer that ran first) comes out as a negative difference.
  auto since_origin = [&](uint64_t tick) -> int64_t {
    uint64_t delta = (tick - origin) & valid_mask_;
    if (delta > valid_mask_ / 2)
      return -static_cast<int64_t>(static_cast<double>((origin - tick) & valid_mask_) * period_ns_);
    return static_cast<int64_t>(static_cast<double>(delta) * period_ns_);
  };
  out.times.reserve(spans_.size());
  for (const Span& span : spans_)
    out.times.push_back({since_origin(ticks[span.begin_query]), since_origin(ticks[span.end_query])});

  if (calibrated_) {
    const VkCalibratedTimestampInfoEXT infos[2] = {
        {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr, VK_TIME_DOMAIN_DEVICE_EXT},
        {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr, VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT}};
    uint64_t sample[2] = {0, 0};
    uint64_t max_deviation = 0;
    UNIVK_VK_RETURN_IF_ERROR(
        device_->vk().vkGetCalibratedTimestampsEXT(device_->handle(), 2, infos, sample, &max_deviation));
    // CLOCK_MONOTONIC is steady_clock's clock on Linux; its ticks are nanoseconds.
    out.host_origin_ns = static_cast<int64_t>(sample[1]) - since_origin(sample[0]);
  }
  return out;
}

}  // namespace univk::vulkan
