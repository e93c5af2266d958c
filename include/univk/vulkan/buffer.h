// Buffer: a VkBuffer with its own VkDeviceMemory, from the device's simple allocator.
// Owns both; holds a shared_ptr to its Device so it may outlive every other owner of the device.
// Host-visible buffers are persistently mapped for their whole life.
#pragma once

#include <cstdint>
#include <memory>

#include <volk.h>

#include "univk/base/status.h"

namespace univk::vulkan {

class Device;

// BufferRange::memory_type when the maker did not say.
inline constexpr uint32_t kUnknownMemoryType = UINT32_MAX;

// A range of a buffer (a planned slice of an arena, or a whole buffer). Borrowed handle.
struct BufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;
  // The memory `buffer` is bound to, at memory offset 0 (every univk Buffer is), so the range's
  // bytes are memory bytes [offset, offset + size): what a VK_ARM_tensors tensor aliasing the
  // range binds. VK_NULL_HANDLE where the maker did not say (tensors cannot alias it then).
  VkDeviceMemory memory = VK_NULL_HANDLE;
  // The memory type index of `memory` (a tensor may alias it only if its memoryTypeBits has it);
  // kUnknownMemoryType where the maker did not say.
  uint32_t memory_type = kUnknownMemoryType;
};

enum class MemoryKind {
  kDeviceLocal,            // DEVICE_LOCAL, not mapped
  kHostVisible,            // HOST_VISIBLE|HOST_COHERENT, mapped (prefers HOST_CACHED for readback)
  kDeviceLocalHostVisible  // DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT when the device has it,
                           // else falls back to kHostVisible; mapped. Check device_local().
};

inline constexpr VkBufferUsageFlags kDefaultBufferUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

class Buffer {
 public:
  // OutOfMemory when the allocation fails; size 0 is rounded up to 4 bytes. The caller must
  // keep the buffer alive until the GPU work using it has completed.
  static Result<Buffer> create(std::shared_ptr<Device> device, VkDeviceSize size, MemoryKind kind,
                               VkBufferUsageFlags usage = kDefaultBufferUsage);
  // A buffer over caller memory, imported with VK_EXT_external_memory_host (the device must have
  // enabled it: Unsupported otherwise). `host` must be aligned to
  // host_import_alignment(device) and `size` a multiple of it (InvalidArgument naming both);
  // a pointer the driver cannot import is InvalidArgument too. mapped() is `host`. The caller
  // keeps the memory allocated until the buffer is destroyed; the buffer never frees it.
  static Result<Buffer> import_host(std::shared_ptr<Device> device, void* host, VkDeviceSize size,
                                    VkBufferUsageFlags usage = kDefaultBufferUsage);
  Buffer() = default;
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  VkBuffer handle() const { return buffer_; }
  VkDeviceMemory memory() const { return memory_; }      // bound at offset 0
  uint32_t memory_type() const { return memory_type_; }  // the index memory() was allocated with
  // The whole buffer as a range (with its memory).
  BufferRange range() const;
  VkDeviceSize size() const { return size_; }
  void* mapped() const { return mapped_; }  // null unless host visible
  bool host_visible() const { return mapped_ != nullptr; }
  bool device_local() const { return device_local_; }
  // Mapped memory the CPU reads through its caches (a discrete GPU's BAR is not).
  bool host_cached() const { return host_cached_; }
  bool host_coherent() const { return host_coherent_; }
  explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }

  // For mapped memory that is not HOST_COHERENT (only imported memory can be): makes host writes
  // visible to the device before a submission, and device writes visible to the host after the
  // submission completed. No-ops on coherent memory.
  Status flush_host_writes() const;
  Status invalidate_for_host_reads() const;

 private:
  void release();
  std::shared_ptr<Device> device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint32_t memory_type_ = kUnknownMemoryType;
  VkDeviceSize size_ = 0;
  void* mapped_ = nullptr;
  bool device_local_ = false;
  bool host_cached_ = false;
  bool host_coherent_ = false;
  VkDeviceSize allocated_bytes_ = 0;  // the allocation's size (>= size_), for the device's counters
};

// The alignment VK_EXT_external_memory_host needs of an imported pointer and size
// (minImportedHostPointerAlignment); Unsupported when the device has not enabled the extension.
Result<VkDeviceSize> host_import_alignment(const Device& device);

inline constexpr const char* kExternalMemoryHostExtension = "VK_EXT_external_memory_host";

}  // namespace univk::vulkan
