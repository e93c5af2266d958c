#include "univk/vulkan/registry.h"

#include <charconv>

#include "univk/tensor/host_allocation.h"
#include "univk/vulkan/queue.h"

namespace univk::vulkan {

// One key's state. `device` is weak: leases keep the device alive, the registry does not,
// except through `pinned`. `creating` marks the slot that racing lookup_or_create callers wait on.
struct DeviceRegistry::Entry {
  std::weak_ptr<Device> device;
  DeviceLease pinned;
  bool creating = false;
};

namespace {
constexpr std::pair<SharedMode, std::string_view> kModeNames[] = {
    {SharedMode::kDisabled, "disabled"},
    {SharedMode::kLookupOnly, "lookup_only"},
    {SharedMode::kLookupOrCreate, "lookup_or_create"},
    {SharedMode::kCreateOnly, "create_only"},
};
}  // namespace

std::string DeviceKey::to_string() const { return context_name + "/" + std::to_string(group_id); }

std::string_view shared_mode_name(SharedMode mode) {
  for (const auto& [m, name] : kModeNames) {
    if (m == mode) return name;
  }
  return "unknown";
}

Result<SharedMode> shared_mode_from_name(std::string_view name) {
  for (const auto& [m, n] : kModeNames) {
    if (n == name) return m;
  }
  return invalid_argument("unknown vulkan_shared_context_mode '" + std::string(name) +
                          "' (expected disabled, lookup_only, lookup_or_create or create_only)");
}

Result<SharedDeviceOptions> SharedDeviceOptions::from_options(const std::map<std::string, std::string>& options) {
  SharedDeviceOptions out;
  if (auto it = options.find("vulkan_shared_context_name"); it != options.end()) {
    if (it->second.empty()) return invalid_argument("vulkan_shared_context_name must not be empty");
    out.key.context_name = it->second;
  }
  if (auto it = options.find("vulkan_shared_context_mode"); it != options.end()) {
    UNIVK_ASSIGN_OR_RETURN(out.mode, shared_mode_from_name(it->second));
  }
  if (auto it = options.find("vulkan_shared_group_id"); it != options.end()) {
    const std::string& text = it->second;
    uint32_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      return invalid_argument("vulkan_shared_group_id must be an unsigned 32-bit integer, got '" + text + "'");
    }
    out.key.group_id = value;
  }
  return out;
}

DeviceRegistry& DeviceRegistry::process_default() {
  static DeviceRegistry* registry = new DeviceRegistry();  // never destroyed, see header
  return *registry;
}

DeviceRegistry::~DeviceRegistry() = default;

Result<DeviceLease> DeviceRegistry::acquire(const SharedDeviceOptions& options, const DeviceRequirements& requirements,
                                            const RuntimeConfig& config) {
  const DeviceKey& key = options.key;
  if (options.mode == SharedMode::kDisabled) {
    Result<DeviceLease> device = Device::create(config, requirements);
    if (device.ok()) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++created_count_;
    }
    return device;
  }

  // Declared before the lock so that a last reference dropped here destroys the device after
  // the mutex is released.
  DeviceLease found;
  std::shared_ptr<Entry> slot;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      auto it = entries_.find(key);
      if (it != entries_.end() && it->second->creating) {
        if (options.mode == SharedMode::kCreateOnly) {
          return already_exists("a Vulkan device is being created under key " + key.to_string());
        }
        creation_done_.wait(lock);
        continue;
      }
      if (it != entries_.end()) {
        found = lookup_locked(key);
        if (found) break;
      }
      if (options.mode == SharedMode::kLookupOnly) {
        return not_found("no Vulkan device is registered under key " + key.to_string() + " (mode lookup_only)");
      }
      slot = std::make_shared<Entry>();
      slot->creating = true;
      entries_[key] = slot;
      break;
    }
  }

  if (found) {
    if (options.mode == SharedMode::kCreateOnly) {
      return already_exists("a Vulkan device is already registered under key " + key.to_string() +
                            " (mode create_only)");
    }
    if (found->queue().unusable()) {
      return device_lost("the Vulkan device registered under key " + key.to_string() +
                         " is unusable: " + found->queue().unusable_reason());
    }
    // enabled() never changes after creation: checked without the mutex.
    std::vector<std::string> missing = requirements.check(found->enabled());
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      return incompatible("the Vulkan device '" + found->enabled().device_name + "' registered under key " +
                          key.to_string() + " lacks: " + list);
    }
    return found;
  }

  // This thread owns the slot: create outside the mutex; racing callers wait for the result.
  // Host memory running out inside is a result too: the slot must be released either way.
  Result<DeviceLease> created = catch_out_of_memory([&] { return Device::create(config, requirements); });
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slot->creating = false;
    auto it = entries_.find(key);
    bool registered = it != entries_.end() && it->second == slot;  // remove() may have dropped it
    if (created.ok()) {
      ++created_count_;
      slot->device = *created;
    } else if (registered) {
      entries_.erase(it);  // a failed creation leaves the key free for the next try
    }
  }
  creation_done_.notify_all();
  if (!created.ok()) return created.status().with_context("creating the Vulkan device for key " + key.to_string());
  return created;
}

DeviceLease DeviceRegistry::lookup_locked(const DeviceKey& key) {
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second->creating) return nullptr;
  DeviceLease device = it->second->device.lock();
  // An entry whose device is gone (no lease, no pin) is forgotten. `device` is null then, so
  // erasing destroys no device under the mutex.
  if (!device) entries_.erase(it);
  return device;
}

Status DeviceRegistry::import_device(const DeviceKey& key, const ImportedDevice& imported, bool pin,
                                     DeviceLease* lease) {
  // Device::import makes Vulkan calls: outside the mutex.
  UNIVK_ASSIGN_OR_RETURN(DeviceLease device, Device::import(imported));
  DeviceLease existing;  // released after the mutex, like `device` on the error path
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end() && !it->second->creating) existing = lookup_locked(key);
    if (existing || (it != entries_.end() && it->second->creating)) {
      return already_exists("cannot import: key " + key.to_string() + " is already taken");
    }
    auto entry = std::make_shared<Entry>();
    entry->device = device;
    if (pin) entry->pinned = device;
    entries_[key] = entry;
  }
  if (lease != nullptr) *lease = device;
  return ok_status();
}

Status DeviceRegistry::pin(const DeviceKey& key) {
  DeviceLease device;  // released after the mutex
  std::lock_guard<std::mutex> lock(mutex_);
  device = lookup_locked(key);
  if (!device) return not_found("cannot pin: no live Vulkan device under key " + key.to_string());
  entries_[key]->pinned = device;
  return ok_status();
}

Status DeviceRegistry::unpin(const DeviceKey& key) {
  DeviceLease released;  // destroyed after the mutex is released
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end() || !it->second->pinned) {
    return not_found("cannot unpin: key " + key.to_string() + " is not pinned");
  }
  released = std::move(it->second->pinned);
  return ok_status();
}

Status DeviceRegistry::remove(const DeviceKey& key) {
  std::shared_ptr<Entry> removed;  // its pin, if any, is released after the mutex
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  // An entry whose device is gone counts as nothing registered (as for find()).
  bool dead = it != entries_.end() && !it->second->creating && it->second->device.expired();
  if (dead) entries_.erase(it);
  if (it == entries_.end() || dead) {
    return not_found("cannot remove: nothing is registered under key " + key.to_string());
  }
  removed = std::move(it->second);
  entries_.erase(it);
  return ok_status();
}

std::optional<DeviceLease> DeviceRegistry::find(const DeviceKey& key) const {
  DeviceLease device;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end() && !it->second->creating) device = it->second->device.lock();
  }
  if (!device) return std::nullopt;
  return device;
}

uint64_t DeviceRegistry::created_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return created_count_;
}

}  // namespace univk::vulkan
