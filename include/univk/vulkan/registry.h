// DeviceRegistry: shares one Device between delegates by key {context_name, group_id}.
//
// Modes (runtime options of each backend, never build flags):
//   disabled         a private standalone device, not registered;
//   lookup_only      NotFound when nothing holds the key; never creates;
//   lookup_or_create creates at most once per key, even when threads race (default);
//   create_only      AlreadyExists when the key is taken.
// A found device lacking a requirement is Incompatible, naming every missing item.
//
// Lifetime: the registry holds weak references; a device lives while any DeviceLease exists or
// while the application pinned its key (pin = a strong reference held by the registry).
// Imported devices are borrowed and never destroyed by univk.
// Locking: the registry mutex is never held while Vulkan calls or device creation run; a
// creation in progress is shared by racing callers through a per-key slot, and a failed
// creation leaves the key free for a later try. Lock order: registry, device, queue.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "univk/base/status.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/device_requirements.h"
#include "univk/vulkan/runtime_config.h"

namespace univk::vulkan {

using DeviceLease = std::shared_ptr<Device>;

struct DeviceKey {
  std::string context_name = "default";
  uint32_t group_id = 0;
  auto operator<=>(const DeviceKey&) const = default;
  std::string to_string() const;  // "default/0"
};

enum class SharedMode { kDisabled, kLookupOnly, kLookupOrCreate, kCreateOnly };
std::string_view shared_mode_name(SharedMode mode);  // "disabled", "lookup_only", ...
Result<SharedMode> shared_mode_from_name(std::string_view name);

// Parsed from a backend's runtime options: vulkan_shared_context_name (default "default"),
// vulkan_shared_context_mode (default lookup_or_create), vulkan_shared_group_id (default 0).
struct SharedDeviceOptions {
  static constexpr std::string_view kOptionKeys[] = {"vulkan_shared_context_name", "vulkan_shared_context_mode",
                                                     "vulkan_shared_group_id"};
  DeviceKey key;
  SharedMode mode = SharedMode::kLookupOrCreate;
  static Result<SharedDeviceOptions> from_options(const std::map<std::string, std::string>& options);
};

class DeviceRegistry {
 public:
  // The process's registry, used when a caller passes none. Never destroyed (so no teardown
  // order matters); entries only hold weak references and pins.
  static DeviceRegistry& process_default();

  DeviceRegistry() = default;
  ~DeviceRegistry();
  DeviceRegistry(const DeviceRegistry&) = delete;
  DeviceRegistry& operator=(const DeviceRegistry&) = delete;

  Result<DeviceLease> acquire(const SharedDeviceOptions& options, const DeviceRequirements& requirements,
                              const RuntimeConfig& config);
  // Registers an application-owned device under `key` (AlreadyExists when taken). Pinned by
  // default so it stays registered without leases. With pin = false the entry lives only while
  // leases exist: pass `lease` to receive the first one.
  Status import_device(const DeviceKey& key, const ImportedDevice& imported, bool pin = true,
                       DeviceLease* lease = nullptr);
  Status pin(const DeviceKey& key);     // NotFound when no live device holds the key
  Status unpin(const DeviceKey& key);   // NotFound when not pinned
  Status remove(const DeviceKey& key);  // forgets the key (and its pin); existing leases stay valid;
                                        // NotFound when nothing is registered under it
  std::optional<DeviceLease> find(const DeviceKey& key) const;
  // Devices this registry created, standalone (disabled mode) ones included; imports are not
  // counted (tests: racing lookup_or_create callers create once).
  uint64_t created_count() const;

 private:
  struct Entry;
  // The live device under `key`, or null (forgetting the entry when its device is gone).
  // Caller holds mutex_ and must release the returned lease only after unlocking.
  DeviceLease lookup_locked(const DeviceKey& key);
  mutable std::mutex mutex_;
  std::condition_variable creation_done_;
  std::map<DeviceKey, std::shared_ptr<Entry>> entries_;
  uint64_t created_count_ = 0;
};

}  // namespace univk::vulkan
