// SharedObjectCache: immutable objects that several delegates on one device can share (a
// prepared graph's pipelines and uploaded constants, one pipeline per shader variant), so a
// program that calls one payload many times prepares it once.
//
// Ownership: the cache holds its entries weakly. An object lives while a caller holds the
// shared_ptr get_or_create returned and is destroyed with the last one; an expired entry is
// replaced by the next get_or_create of its key. Objects may hold the Device (a shared_ptr): the
// Device owns the cache, the cache never owns an object, so there is no cycle.
// Thread safety: every call may run concurrently. `create` runs outside the cache's lock (it
// makes Vulkan calls); when two threads create one key at once, both get the object stored
// first and the other is dropped. Shared objects must be immutable once created.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <typeinfo>
#include <unordered_map>

#include "univk/base/status.h"

namespace univk::vulkan {

class SharedObjectCache {
 public:
  // The object of type T stored under `key`, created by `create` when absent or expired.
  // Keys of different types never collide (the type is part of the key).
  template <typename T>
  Result<std::shared_ptr<const T>> get_or_create(const std::string& key,
                                                 const std::function<Result<std::shared_ptr<const T>>()>& create) {
    const std::string full_key = std::string(typeid(T).name()) + '\0' + key;
    if (std::shared_ptr<const void> found = find(full_key)) return std::static_pointer_cast<const T>(found);
    UNIVK_ASSIGN_OR_RETURN(std::shared_ptr<const T> made, create());
    return std::static_pointer_cast<const T>(insert(full_key, made));
  }

  // Live entries (for tests).
  size_t size() const;

 private:
  std::shared_ptr<const void> find(const std::string& key) const;
  // Stores `object` unless a live entry exists; returns the stored one.
  std::shared_ptr<const void> insert(const std::string& key, std::shared_ptr<const void> object);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::weak_ptr<const void>> entries_;
};

}  // namespace univk::vulkan
