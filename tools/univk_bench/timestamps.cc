#include "timestamps.h"

#include <utility>

#include "univk/vulkan/device.h"
#include "univk/vulkan/queue.h"

namespace univk::bench {

Result<TimestampPool> TimestampPool::create(vulkan::DeviceLease device, uint32_t count) {
  const vulkan::InstanceDispatch& ivk = device->instance_object()->vk();
  uint32_t family_count = 0;
  ivk.vkGetPhysicalDeviceQueueFamilyProperties(device->physical_device(), &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  ivk.vkGetPhysicalDeviceQueueFamilyProperties(device->physical_device(), &family_count, families.data());
  const uint32_t family = device->queue().family_index();
  if (family >= families.size() || families[family].timestampValidBits == 0) {
    return unsupported("the queue family has no timestamp support (timestampValidBits = 0)");
  }
  const uint32_t bits = families[family].timestampValidBits;

  VkQueryPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = count;
  TimestampPool pool;
  UNIVK_VK_RETURN_IF_ERROR(device->vk().vkCreateQueryPool(device->handle(), &info, nullptr, &pool.pool_));
  pool.count_ = count;
  pool.valid_mask_ = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  pool.period_ns_ = device->properties().limits.timestampPeriod;
  pool.device_ = std::move(device);
  return pool;
}

TimestampPool::TimestampPool(TimestampPool&& other) noexcept { *this = std::move(other); }

TimestampPool& TimestampPool::operator=(TimestampPool&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::move(other.device_);
    pool_ = std::exchange(other.pool_, VK_NULL_HANDLE);
    count_ = other.count_;
    valid_mask_ = other.valid_mask_;
    period_ns_ = other.period_ns_;
  }
  return *this;
}

TimestampPool::~TimestampPool() { release(); }

void TimestampPool::release() {
  if (pool_ != VK_NULL_HANDLE) device_->vk().vkDestroyQueryPool(device_->handle(), pool_, nullptr);
  pool_ = VK_NULL_HANDLE;
  device_.reset();
}

void TimestampPool::record_reset(VkCommandBuffer cmd) const {
  device_->vk().vkCmdResetQueryPool(cmd, pool_, 0, count_);
}

void TimestampPool::record_write(VkCommandBuffer cmd, uint32_t index, VkPipelineStageFlagBits stage) const {
  device_->vk().vkCmdWriteTimestamp(cmd, stage, pool_, index);
}

Result<std::vector<double>> TimestampPool::read_ns() const {
  std::vector<uint64_t> ticks(count_);
  UNIVK_VK_RETURN_IF_ERROR(device_->vk().vkGetQueryPoolResults(
      device_->handle(), pool_, 0, count_, ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  std::vector<double> ns(count_, 0.0);
  for (uint32_t i = 1; i < count_; ++i) {
    // Differences modulo the valid bits survive one wrap of the counter.
    const uint64_t delta = (ticks[i] - ticks[0]) & valid_mask_;
    ns[i] = static_cast<double>(delta) * period_ns_;
  }
  return ns;
}

}  // namespace univk::bench
