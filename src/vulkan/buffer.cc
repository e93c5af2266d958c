#include "univk/vulkan/buffer.h"

#include <utility>

#include "univk/vulkan/device.h"

namespace univk::vulkan {

Result<Buffer> Buffer::create(std::shared_ptr<Device> device, VkDeviceSize size, MemoryKind kind,
                              VkBufferUsageFlags usage) {
  if (!device) return invalid_argument("Buffer::create: null device");
  if (size == 0) size = 4;
  const VolkDeviceTable& vk = device->vk();
  Buffer buffer;
  buffer.device_ = device;
  buffer.size_ = size;

  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  UNIVK_VK_RETURN_IF_ERROR(vk.vkCreateBuffer(device->handle(), &info, nullptr, &buffer.buffer_));

  VkMemoryRequirements req{};
  vk.vkGetBufferMemoryRequirements(device->handle(), buffer.buffer_, &req);
  constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  Result<uint32_t> type = not_found("");
  switch (kind) {
    case MemoryKind::kDeviceLocal:
      type = device->find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
      break;
    case MemoryKind::kHostVisible:
      type = device->find_memory_type(req.memoryTypeBits, kHost, VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
      break;
    case MemoryKind::kDeviceLocalHostVisible:
      type = device->find_memory_type(req.memoryTypeBits, kHost | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
      if (!type.ok()) type = device->find_memory_type(req.memoryTypeBits, kHost, VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
      break;
  }
  if (!type.ok()) return type.status().with_context("Buffer::create (" + std::to_string(size) + " bytes)");
  VkMemoryPropertyFlags flags = device->memory_properties().memoryTypes[*type].propertyFlags;

  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  VkResult r = vk.vkAllocateMemory(device->handle(), &alloc, nullptr, &buffer.memory_);
  if (r != VK_SUCCESS) {
    return vk_status(r, "vkAllocateMemory").with_context("Buffer::create (" + std::to_string(size) + " bytes)");
  }
  device->note_allocation(1, static_cast<int64_t>(req.size));
  buffer.allocated_bytes_ = req.size;
  UNIVK_VK_RETURN_IF_ERROR(vk.vkBindBufferMemory(device->handle(), buffer.buffer_, buffer.memory_, 0));
  if (kind != MemoryKind::kDeviceLocal) {
    UNIVK_VK_RETURN_IF_ERROR(vk.vkMapMemory(device->handle(), buffer.memory_, 0, VK_WHOLE_SIZE, 0, &buffer.mapped_));
  }
  buffer.device_local_ = (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
  buffer.host_cached_ = buffer.mapped_ != nullptr && (flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0;
  return buffer;
}

Buffer::Buffer(Buffer&& other) noexcept { *this = std::move(other); }

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this == &other) return *this;
  release();
  device_ = std::move(other.device_);
  buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
  memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
  size_ = std::exchange(other.size_, 0);
  mapped_ = std::exchange(other.mapped_, nullptr);
  device_local_ = std::exchange(other.device_local_, false);
  host_cached_ = std::exchange(other.host_cached_, false);
  allocated_bytes_ = std::exchange(other.allocated_bytes_, 0);
  return *this;
}

Buffer::~Buffer() { release(); }

void Buffer::release() {
  if (!device_) return;
  const VolkDeviceTable& vk = device_->vk();
  if (buffer_ != VK_NULL_HANDLE) vk.vkDestroyBuffer(device_->handle(), buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) {
    vk.vkFreeMemory(device_->handle(), memory_, nullptr);  // implicitly unmaps
    device_->note_allocation(-1, -static_cast<int64_t>(allocated_bytes_));
  }
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
  size_ = 0;
  allocated_bytes_ = 0;
  device_.reset();
}

}  // namespace univk::vulkan
