#include "univk/vulkan/buffer.h"

#include <algorithm>
#include <string>
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
  buffer.memory_type_ = *type;
  buffer.allocated_bytes_ = req.size;
  UNIVK_VK_RETURN_IF_ERROR(vk.vkBindBufferMemory(device->handle(), buffer.buffer_, buffer.memory_, 0));
  if (kind != MemoryKind::kDeviceLocal) {
    UNIVK_VK_RETURN_IF_ERROR(vk.vkMapMemory(device->handle(), buffer.memory_, 0, VK_WHOLE_SIZE, 0, &buffer.mapped_));
  }
  buffer.device_local_ = (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
  buffer.host_cached_ = buffer.mapped_ != nullptr && (flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0;
  buffer.host_coherent_ = buffer.mapped_ != nullptr;  // every mapped kind asks for HOST_COHERENT
  return buffer;
}

BufferRange Buffer::range() const { return {buffer_, 0, size_, memory_, memory_type_}; }

Result<VkDeviceSize> host_import_alignment(const Device& device) {
  const PFN_vkGetPhysicalDeviceProperties2 properties2 = device.instance_object()->vk().vkGetPhysicalDeviceProperties2;
  if (!device.enabled().extensions.contains(kExternalMemoryHostExtension) || properties2 == nullptr ||
      device.vk().vkGetMemoryHostPointerPropertiesEXT == nullptr) {
    return unsupported(std::string("importing host memory needs ") + kExternalMemoryHostExtension + ", which device '" +
                       device.properties().deviceName + "' has not enabled");
  }
  VkPhysicalDeviceExternalMemoryHostPropertiesEXT host{};
  host.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &host;
  properties2(device.physical_device(), &props);
  return std::max<VkDeviceSize>(host.minImportedHostPointerAlignment, 1);
}

Result<Buffer> Buffer::import_host(std::shared_ptr<Device> device, void* host, VkDeviceSize size,
                                   VkBufferUsageFlags usage) {
  if (!device) return invalid_argument("Buffer::import_host: null device");
  UNIVK_ASSIGN_OR_RETURN(const VkDeviceSize alignment, host_import_alignment(*device));
  if (host == nullptr) return invalid_argument("Buffer::import_host: null pointer");
  if (reinterpret_cast<uintptr_t>(host) % alignment != 0 || size == 0 || size % alignment != 0) {
    return invalid_argument("Buffer::import_host: pointer " + std::to_string(reinterpret_cast<uintptr_t>(host)) +
                            " and size " + std::to_string(size) + " must both be non-zero multiples of " +
                            std::to_string(alignment) + " (minImportedHostPointerAlignment)");
  }
  const VolkDeviceTable& vk = device->vk();
  VkMemoryHostPointerPropertiesEXT pointer{};
  pointer.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
  const VkResult queried = vk.vkGetMemoryHostPointerPropertiesEXT(
      device->handle(), VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, host, &pointer);
  if (queried != VK_SUCCESS || pointer.memoryTypeBits == 0) {
    return invalid_argument("Buffer::import_host: the driver cannot import this pointer (" +
                            vk_status(queried, "vkGetMemoryHostPointerPropertiesEXT").to_string() + ")");
  }

  Buffer buffer;
  buffer.device_ = device;
  buffer.size_ = size;
  VkExternalMemoryBufferCreateInfo external{};
  external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.pNext = &external;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  UNIVK_VK_RETURN_IF_ERROR(vk.vkCreateBuffer(device->handle(), &info, nullptr, &buffer.buffer_));
  VkMemoryRequirements req{};
  vk.vkGetBufferMemoryRequirements(device->handle(), buffer.buffer_, &req);
  if (req.size > size) {
    return invalid_argument("Buffer::import_host: the buffer needs " + std::to_string(req.size) + " bytes, " +
                            std::to_string(size) + " given");
  }
  UNIVK_ASSIGN_OR_RETURN(const uint32_t type, device->find_memory_type(req.memoryTypeBits & pointer.memoryTypeBits, 0,
                                                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
  const VkMemoryPropertyFlags flags = device->memory_properties().memoryTypes[type].propertyFlags;

  VkImportMemoryHostPointerInfoEXT import{};
  import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  import.pHostPointer = host;
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.pNext = &import;
  alloc.allocationSize = size;
  alloc.memoryTypeIndex = type;
  const VkResult r = vk.vkAllocateMemory(device->handle(), &alloc, nullptr, &buffer.memory_);
  if (r != VK_SUCCESS) {
    return vk_status(r, "vkAllocateMemory").with_context("Buffer::import_host (" + std::to_string(size) + " bytes)");
  }
  device->note_allocation(1, static_cast<int64_t>(size));
  buffer.memory_type_ = type;
  buffer.allocated_bytes_ = size;
  UNIVK_VK_RETURN_IF_ERROR(vk.vkBindBufferMemory(device->handle(), buffer.buffer_, buffer.memory_, 0));
  buffer.host_coherent_ = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  if (!buffer.host_coherent_) {
    // vkFlush/InvalidateMappedMemoryRanges need the memory mapped; the host keeps using `host`,
    // the same bytes.
    if ((flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) == 0) {
      return unsupported("Buffer::import_host: the driver imports this pointer only as memory the host cannot see");
    }
    void* mapping = nullptr;
    UNIVK_VK_RETURN_IF_ERROR(vk.vkMapMemory(device->handle(), buffer.memory_, 0, VK_WHOLE_SIZE, 0, &mapping));
  }
  buffer.mapped_ = host;
  buffer.device_local_ = (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
  buffer.host_cached_ = (flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0;
  return buffer;
}

Status Buffer::flush_host_writes() const {
  if (mapped_ == nullptr || host_coherent_) return ok_status();
  VkMappedMemoryRange range{};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = memory_;
  range.size = VK_WHOLE_SIZE;
  UNIVK_VK_RETURN_IF_ERROR(device_->vk().vkFlushMappedMemoryRanges(device_->handle(), 1, &range));
  return ok_status();
}

Status Buffer::invalidate_for_host_reads() const {
  if (mapped_ == nullptr || host_coherent_) return ok_status();
  VkMappedMemoryRange range{};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = memory_;
  range.size = VK_WHOLE_SIZE;
  UNIVK_VK_RETURN_IF_ERROR(device_->vk().vkInvalidateMappedMemoryRanges(device_->handle(), 1, &range));
  return ok_status();
}

Buffer::Buffer(Buffer&& other) noexcept { *this = std::move(other); }

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this == &other) return *this;
  release();
  device_ = std::move(other.device_);
  buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
  memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
  memory_type_ = std::exchange(other.memory_type_, kUnknownMemoryType);
  size_ = std::exchange(other.size_, 0);
  mapped_ = std::exchange(other.mapped_, nullptr);
  device_local_ = std::exchange(other.device_local_, false);
  host_cached_ = std::exchange(other.host_cached_, false);
  host_coherent_ = std::exchange(other.host_coherent_, false);
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
