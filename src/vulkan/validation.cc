#include "univk/vulkan/validation.h"

#include <mutex>

#include "univk/base/logging.h"

namespace univk::vulkan {
namespace {
struct MessageLog {
  std::mutex mutex;
  std::vector<std::string> messages;
  uint64_t filtered = 0;
};
MessageLog& message_log() {
  static MessageLog* log = new MessageLog();  // never destroyed: callbacks may run at exit
  return *log;
}
}  // namespace

void record_validation_message(const std::string& message) {
  UNIVK_LOG(kError) << "Vulkan validation: " << message;
  MessageLog& log = message_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  log.messages.push_back(message);
}

void record_filtered_validation_message(const std::string& message) {
  UNIVK_LOG(kInfo) << "Vulkan validation (about a layer's own pipeline, filtered): " << message;
  MessageLog& log = message_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  ++log.filtered;
}

uint64_t filtered_validation_message_count() {
  MessageLog& log = message_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  return log.filtered;
}

uint64_t validation_message_count() {
  MessageLog& log = message_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  return log.messages.size();
}

std::vector<std::string> validation_messages_since(uint64_t first) {
  MessageLog& log = message_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  if (first >= log.messages.size()) return {};
  return {log.messages.begin() + static_cast<std::ptrdiff_t>(first), log.messages.end()};
}

}  // namespace univk::vulkan
