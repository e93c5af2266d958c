#include "univk/vulkan/shared_objects.h"

namespace univk::vulkan {

std::shared_ptr<const void> SharedObjectCache::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second.lock();
}

std::shared_ptr<const void> SharedObjectCache::insert(const std::string& key, std::shared_ptr<const void> object) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Expired entries of other keys go too, so the map does not grow with dead keys.
  std::erase_if(entries_, [](const auto& entry) { return entry.second.expired(); });
  auto [it, inserted] = entries_.try_emplace(key, object);
  if (inserted) return object;
  if (std::shared_ptr<const void> live = it->second.lock()) return live;
  it->second = object;
  return object;
}

size_t SharedObjectCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t live = 0;
  for (const auto& entry : entries_) live += entry.second.expired() ? 0 : 1;
  return live;
}

}  // namespace univk::vulkan
