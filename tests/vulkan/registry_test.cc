// DeviceRegistry: modes and their errors, racing creation, failed creation, import of an
// application-owned device, and leases / pins / entries released in every order.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <latch>
#include <thread>
#include <vector>

#include "vulkan_test_util.h"
#include "univk_test.h"

namespace univk::vulkan {
namespace {

using testing::run_fill_check;
using testing::test_config;

SharedDeviceOptions options(SharedMode mode, std::string name = "default", uint32_t group = 0) {
  SharedDeviceOptions o;
  o.mode = mode;
  o.key = {std::move(name), group};
  return o;
}

DeviceRequirements impossible() {
  DeviceRequirements r;
  r.required_extensions = {"VK_ARM_tensors"};  // lavapipe does not have it
  return r;
}

TEST(Registry, LookupOnlyOnAnEmptyKeyIsNotFound) {
  DeviceRegistry registry;
  auto lease = registry.acquire(options(SharedMode::kLookupOnly, "empty", 3), {}, test_config());
  EXPECT_EQ(lease.status().code(), StatusCode::kNotFound);
  EXPECT_NE(lease.status().message().find("empty/3"), std::string::npos) << lease.status().message();
  EXPECT_EQ(registry.created_count(), 0u);
}

TEST(Registry, LookupOrCreateCreatesOnceAndShares) {
  DeviceRegistry registry;
  auto a = registry.acquire(options(SharedMode::kLookupOrCreate), {}, test_config());
  UNIVK_ASSERT_OK(a);
  auto b = registry.acquire(options(SharedMode::kLookupOrCreate), {}, test_config());
  auto c = registry.acquire(options(SharedMode::kLookupOnly), {}, test_config());
  ASSERT_TRUE(b.ok() && c.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(a->get(), c->get());
  EXPECT_EQ(&(*a)->queue(), &(*c)->queue());
  EXPECT_EQ(registry.created_count(), 1u);
  // Another group is another device.
  auto other = registry.acquire(options(SharedMode::kLookupOrCreate, "default", 1), {}, test_config());
  UNIVK_ASSERT_OK(other);
  EXPECT_NE(other->get(), a->get());
  EXPECT_EQ(registry.created_count(), 2u);
  UNIVK_EXPECT_OK(run_fill_check(*b, 100, 7));
}

TEST(Registry, CreateOnlyOnATakenKeyIsAlreadyExists) {
  DeviceRegistry registry;
  auto first = registry.acquire(options(SharedMode::kCreateOnly, "app"), {}, test_config());
  UNIVK_ASSERT_OK(first);
  auto second = registry.acquire(options(SharedMode::kCreateOnly, "app"), {}, test_config());
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(second.status().message().find("app/0"), std::string::npos);
  auto found = registry.acquire(options(SharedMode::kLookupOnly, "app"), {}, test_config());
  UNIVK_ASSERT_OK(found);
  EXPECT_EQ(found->get(), first->get());
}

TEST(Registry, DisabledGivesAPrivateUnregisteredDevice) {
  DeviceRegistry registry;
  auto shared = registry.acquire(options(SharedMode::kLookupOrCreate), {}, test_config());
  auto a = registry.acquire(options(SharedMode::kDisabled), {}, test_config());
  auto b = registry.acquire(options(SharedMode::kDisabled), {}, test_config());
  ASSERT_TRUE(shared.ok() && a.ok() && b.ok());
  EXPECT_NE(a->get(), b->get());
  EXPECT_NE(a->get(), shared->get());
  auto found = registry.find({"default", 0});
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->get(), shared->get());
  EXPECT_EQ(registry.created_count(), 3u);
}

TEST(Registry, IncompatibleDeviceNamesTheMissingItems) {
  DeviceRegistry registry;
  auto shared = registry.acquire(options(SharedMode::kLookupOrCreate), {}, test_config());
  UNIVK_ASSERT_OK(shared);
  DeviceRequirements needs = impossible();
  needs.required_extensions.insert("VK_KHR_no_such_extension");
  for (SharedMode mode : {SharedMode::kLookupOnly, SharedMode::kLookupOrCreate}) {
    auto lease = registry.acquire(options(mode), needs, test_config());
    ASSERT_EQ(lease.status().code(), StatusCode::kIncompatible) << lease.status().to_string();
    const std::string& m = lease.status().message();
    EXPECT_NE(m.find("extension VK_ARM_tensors"), std::string::npos) << m;
    EXPECT_NE(m.find("extension VK_KHR_no_such_extension"), std::string::npos) << m;
    EXPECT_NE(m.find("default/0"), std::string::npos) << m;
  }
  EXPECT_EQ(registry.created_count(), 1u);
}

TEST(Registry, EightRacingThreadsCreateExactlyOneDevice) {
  DeviceRegistry registry;
  constexpr int kThreads = 8;
  std::array<DeviceLease, kThreads> leases;
  std::array<Status, kThreads> errors;
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      auto lease = registry.acquire(options(SharedMode::kLookupOrCreate, "race"), {}, test_config());
      if (lease.ok()) {
        leases[t] = *lease;
      } else {
        errors[t] = lease.status();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    UNIVK_ASSERT_OK(errors[t]);
    EXPECT_EQ(leases[t].get(), leases[0].get());
  }
  EXPECT_EQ(registry.created_count(), 1u);
}

TEST(Registry, FailedCreationDoesNotPoisonTheKey) {
  DeviceRegistry registry;
  auto failed = registry.acquire(options(SharedMode::kLookupOrCreate), impossible(), test_config());
  ASSERT_EQ(failed.status().code(), StatusCode::kIncompatible);
  EXPECT_NE(failed.status().message().find("extension VK_ARM_tensors"), std::string::npos);
  EXPECT_FALSE(registry.find({"default", 0}).has_value());

  // Racing failures: every thread gets the error, none hangs, and the key stays free. (Each
  // failure creates and drops an instance, slow under TSan: 4 threads are enough to race.)
  constexpr int kThreads = 4;
  std::array<StatusCode, kThreads> codes{};
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      codes[t] = registry.acquire(options(SharedMode::kLookupOrCreate), impossible(), test_config()).status().code();
    });
  }
  for (auto& t : threads) t.join();
  for (StatusCode code : codes) EXPECT_EQ(code, StatusCode::kIncompatible);
  EXPECT_EQ(registry.created_count(), 0u);

  auto ok = registry.acquire(options(SharedMode::kLookupOrCreate), {}, test_config());
  UNIVK_ASSERT_OK(ok);
  EXPECT_EQ(registry.created_count(), 1u);
  UNIVK_EXPECT_OK(run_fill_check(*ok, 64, 1));
}

TEST(Registry, PinUnpinRemoveErrors) {
  DeviceRegistry registry;
  EXPECT_EQ(registry.pin({"nothing", 0}).code(), StatusCode::kNotFound);
  EXPECT_EQ(registry.unpin({"nothing", 0}).code(), StatusCode::kNotFound);
  EXPECT_EQ(registry.remove({"nothing", 0}).code(), StatusCode::kNotFound);
  auto lease = registry.acquire(options(SharedMode::kLookupOrCreate), {}, test_config());
  UNIVK_ASSERT_OK(lease);
  EXPECT_EQ(registry.unpin({"default", 0}).code(), StatusCode::kNotFound);  // never pinned
  UNIVK_EXPECT_OK(registry.pin({"default", 0}));
  UNIVK_EXPECT_OK(registry.unpin({"default", 0}));
}

TEST(Registry, UnpinnedDeviceGoesWithItsLastLease) {
  DeviceRegistry registry;
  std::weak_ptr<Device> observer;
  {
    auto lease = registry.acquire(options(SharedMode::kLookupOrCreate), {}, test_config());
    UNIVK_ASSERT_OK(lease);
    observer = *lease;
  }
  EXPECT_TRUE(observer.expired());
  EXPECT_FALSE(registry.find({"default", 0}).has_value());
  EXPECT_EQ(registry.acquire(options(SharedMode::kLookupOnly), {}, test_config()).status().code(),
            StatusCode::kNotFound);
  // The key is free again: create_only succeeds.
  UNIVK_EXPECT_OK(registry.acquire(options(SharedMode::kCreateOnly), {}, test_config()));
}

// Releases {the lease, the pin, the registry entry} in each of the 6 orders. The device lives
// exactly while the lease exists or while a pin is held by a registered entry.
TEST(Registry, LeasesPinsAndEntriesReleasedInEveryOrder) {
  std::array<int, 3> order = {0, 1, 2};
  do {
    SCOPED_TRACE("order " + std::to_string(order[0]) + std::to_string(order[1]) + std::to_string(order[2]));
    DeviceRegistry registry;
    const DeviceKey key{"orders", 0};
    SharedDeviceOptions opts;
    opts.key = key;
    auto acquired = registry.acquire(opts, {}, test_config());
    UNIVK_ASSERT_OK(acquired);
    DeviceLease lease = std::move(acquired).value();  // the only lease
    UNIVK_ASSERT_OK(registry.pin(key));
    std::weak_ptr<Device> observer = lease;
    bool leased = true, pinned = true, registered = true;
    for (int step : order) {
      if (step == 0) {
        lease.reset();
        leased = false;
      } else if (step == 1) {
        Status s = registry.unpin(key);
        // After remove() the pin went with the entry.
        EXPECT_EQ(s.code(), registered ? StatusCode::kOk : StatusCode::kNotFound);
        pinned = false;
      } else {
        Status s = registry.remove(key);
        bool entry_exists = registered && (leased || pinned);
        EXPECT_EQ(s.code(), entry_exists ? StatusCode::kOk : StatusCode::kNotFound);
        registered = false;
        pinned = false;
      }
      bool alive = leased || pinned;
      EXPECT_EQ(!observer.expired(), alive) << "after step " << step;
      EXPECT_EQ(registry.find(key).has_value(), alive && registered) << "after step " << step;
    }
    EXPECT_TRUE(observer.expired());
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(Registry, LeasesAndBuffersOutliveTheRegistry) {
  DeviceLease lease;
  {
    DeviceRegistry registry;
    auto acquired = registry.acquire(options(SharedMode::kLookupOrCreate), {}, test_config());
    UNIVK_ASSERT_OK(acquired);
    lease = *acquired;
    UNIVK_ASSERT_OK(registry.pin({"default", 0}));
  }
  auto buffer = Buffer::create(lease, 256, MemoryKind::kHostVisible);
  UNIVK_ASSERT_OK(buffer);
  std::weak_ptr<Device> observer = lease;
  lease.reset();
  EXPECT_FALSE(observer.expired());  // the buffer holds the device
  *buffer = Buffer();
  EXPECT_TRUE(observer.expired());
}

TEST(Registry, ProcessDefaultIsOneRegistry) {
  DeviceRegistry& registry = DeviceRegistry::process_default();
  EXPECT_EQ(&registry, &DeviceRegistry::process_default());
  auto lease = registry.acquire(options(SharedMode::kCreateOnly, "registry_test_process_default"), {}, test_config());
  UNIVK_ASSERT_OK(lease);
  EXPECT_TRUE(registry.find({"registry_test_process_default", 0}).has_value());
  UNIVK_EXPECT_OK(registry.remove({"registry_test_process_default", 0}));
}

// An application-created VkDevice (timeline semaphores on, synchronization2 off), imported and
// used by univk, then destroyed by the application after univk let go of it.
class ImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto instance = Instance::create(test_config());
    UNIVK_ASSERT_OK(instance);
    instance_ = *instance;
    auto physical = instance_->select_physical_device("");
    UNIVK_ASSERT_OK(physical);
    physical_ = *physical;
    DeviceCapabilities caps = instance_->query_capabilities(physical_);
    while ((caps.queue_family_flags.at(family_) & VK_QUEUE_COMPUTE_BIT) == 0) ++family_;

    VkPhysicalDeviceVulkan12Features v12{};
    v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    v12.timelineSemaphore = VK_TRUE;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{};
    queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueFamilyIndex = family_;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkDeviceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    info.pNext = &v12;
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue_info;
    ASSERT_EQ(instance_->vk().vkCreateDevice(physical_, &info, nullptr, &device_), VK_SUCCESS);
    volkLoadDeviceTable(&table_, device_);
    table_.vkGetDeviceQueue(device_, family_, 0, &queue_);
  }

  void TearDown() override {
    if (device_ == VK_NULL_HANDLE) return;
    // Still a valid device: univk never destroyed it.
    EXPECT_EQ(table_.vkDeviceWaitIdle(device_), VK_SUCCESS);
    VkSemaphoreCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    VkSemaphore semaphore = VK_NULL_HANDLE;
    EXPECT_EQ(table_.vkCreateSemaphore(device_, &info, nullptr, &semaphore), VK_SUCCESS);
    table_.vkDestroySemaphore(device_, semaphore, nullptr);
    table_.vkDestroyDevice(device_, nullptr);
  }

  ImportedDevice imported() const {
    ImportedDevice d;
    d.instance = instance_->handle();
    d.physical_device = physical_;
    d.device = device_;
    d.queue = queue_;
    d.queue_family_index = family_;
    d.api_version = instance_->api_version();
    d.enabled_features = {Feature::kTimelineSemaphore};
    return d;
  }

  std::shared_ptr<Instance> instance_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VolkDeviceTable table_{};
};

TEST_F(ImportTest, BorrowedDeviceIsSharedAndNeverDestroyed) {
  DeviceRegistry registry;
  const DeviceKey key{"app", 0};
  UNIVK_ASSERT_OK(registry.import_device(key, imported()));
  std::weak_ptr<Device> observer;
  {
    auto lease = registry.acquire(options(SharedMode::kLookupOnly, "app"), {}, test_config());
    UNIVK_ASSERT_OK(lease);
    observer = *lease;
    EXPECT_TRUE((*lease)->borrowed());
    EXPECT_EQ((*lease)->handle(), device_);
    EXPECT_EQ((*lease)->queue().handle(), queue_);
    EXPECT_EQ((*lease)->instance(), instance_->handle());
    EXPECT_FALSE((*lease)->uses_synchronization2());  // legacy vkQueueSubmit + barriers path
    Status s = run_fill_check(*lease, 200, 11);
    UNIVK_EXPECT_OK(s);
    s = testing::run_staged_scale_add_check(*lease, 100);
    UNIVK_EXPECT_OK(s);

    // What the application did not enable is missing, by name.
    DeviceRequirements needs;
    needs.required_features = {Feature::kSynchronization2};
    auto incompatible = registry.acquire(options(SharedMode::kLookupOrCreate, "app"), needs, test_config());
    EXPECT_EQ(incompatible.status().code(), StatusCode::kIncompatible);
    EXPECT_NE(incompatible.status().message().find("feature synchronization2"), std::string::npos);

    EXPECT_EQ(registry.import_device(key, imported()).code(), StatusCode::kAlreadyExists);
    EXPECT_EQ(registry.created_count(), 0u);
  }
  EXPECT_FALSE(observer.expired());  // pinned by the import
  UNIVK_ASSERT_OK(registry.unpin(key));
  EXPECT_TRUE(observer.expired());  // univk's wrapper is gone; TearDown checks the VkDevice is not
}

TEST_F(ImportTest, UnpinnedImportLivesWithItsLeases) {
  DeviceRegistry registry;
  DeviceLease lease;
  UNIVK_ASSERT_OK(registry.import_device({"app", 1}, imported(), /*pin=*/false, &lease));
  ASSERT_TRUE(lease);
  auto again = registry.acquire(options(SharedMode::kLookupOnly, "app", 1), {}, test_config());
  UNIVK_ASSERT_OK(again);
  EXPECT_EQ(again->get(), lease.get());
  again->reset();
  lease.reset();
  EXPECT_FALSE(registry.find({"app", 1}).has_value());
}

TEST_F(ImportTest, RejectsIncompleteOrTimelineLessImports) {
  DeviceRegistry registry;
  ImportedDevice no_queue = imported();
  no_queue.queue = VK_NULL_HANDLE;
  EXPECT_EQ(registry.import_device({"app", 2}, no_queue).code(), StatusCode::kInvalidArgument);
  ImportedDevice no_timeline = imported();
  no_timeline.enabled_features.clear();
  Status s = registry.import_device({"app", 2}, no_timeline);
  EXPECT_EQ(s.code(), StatusCode::kIncompatible);
  EXPECT_NE(s.message().find("timelineSemaphore"), std::string::npos);
  ImportedDevice bad_family = imported();
  bad_family.queue_family_index = 1000;
  EXPECT_EQ(registry.import_device({"app", 2}, bad_family).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(registry.find({"app", 2}).has_value());
}

}  // namespace
}  // namespace univk::vulkan
