#include "method_profiler.h"

#include <algorithm>
#include <map>

#include "method_impl.h"

namespace univk::runtime {

size_t HostEvents::begin(ProfileKind kind, std::string name, int64_t instruction, std::string backend) {
  ProfileEvent e;
  e.track = ProfileTrack::kHost;
  e.kind = kind;
  e.name = std::move(name);
  e.backend = std::move(backend);
  e.instruction = instruction;
  e.parent = open_.empty() ? -1 : static_cast<int32_t>(open_.back());
  e.start_ns = now_ns();
  events.push_back(std::move(e));
  open_.push_back(events.size() - 1);
  return events.size() - 1;
}

void HostEvents::end(size_t event) {
  events[event].duration_ns = now_ns() - events[event].start_ns;
  std::erase(open_, event);
}

void HostEvents::anchor_gpu_at(size_t event) {
  if (!gpu_anchor_ns) gpu_anchor_ns = events[event].start_ns;
}

int64_t HostEvents::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start_).count();
}

Result<std::unique_ptr<MethodProfiler>> MethodProfiler::create(const MethodDesc& method,
                                                               std::span<DelegateSlot> delegates) {
  std::unique_ptr<MethodProfiler> profiler(new MethodProfiler());
  profiler->method_ = &method;
  std::map<const vulkan::Device*, vulkan::GpuTimer*> timer_of_device;
  for (DelegateSlot& d : delegates) {
    Slot slot;
    slot.delegate = d.delegate.get();
    slot.backend_id = d.backend_id;
    slot.instruction = d.instruction;
    const vulkan::DeviceLease& device = d.delegate->device();
    if (device) {
      auto [it, inserted] = timer_of_device.emplace(device.get(), nullptr);
      if (inserted) {
        auto timer = vulkan::GpuTimer::create(device);
        if (!timer.ok()) {
          return timer.status().with_context("instruction " + std::to_string(d.instruction) + " (" + d.backend_id +
                                             ")");
        }
        it->second = timer->get();
        profiler->timers_.push_back(std::move(timer).value());
      }
      slot.timer = it->second;
    }
    profiler->slots_.push_back(std::move(slot));
  }
  return profiler;
}

void MethodProfiler::begin_delegate(size_t slot) {
  Slot& s = slots_[slot];
  if (s.timer == nullptr) return;
  s.delegate->set_gpu_timer(s.timer);
  s.first_span = s.end_span = static_cast<uint32_t>(s.timer->spans().size());
}

void MethodProfiler::end_delegate(size_t slot) {
  Slot& s = slots_[slot];
  if (s.timer != nullptr) s.end_span = static_cast<uint32_t>(s.timer->spans().size());
}

Status MethodProfiler::finish(std::string mode, HostEvents host) {
  Profile profile;
  profile.method = method_->name;
  profile.mode = std::move(mode);
  profile.events = std::move(host.events);

  // Each timer's spans on the call's host timeline: device ns + offset.
  const int64_t call_start_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(host.start().time_since_epoch()).count();
  std::map<const vulkan::GpuTimer*, std::pair<std::vector<vulkan::GpuTimer::Times>, int64_t>> placed;
  bool all_calibrated = true;
  for (const auto& timer : timers_) {
    UNIVK_ASSIGN_OR_RETURN(vulkan::GpuTimer::Readout readout, timer->read());
    int64_t offset = host.gpu_anchor_ns.value_or(0);
    if (readout.host_origin_ns) {
      offset = *readout.host_origin_ns - call_start_ns;
    } else {
      all_calibrated = false;
    }
    placed[timer.get()] = {std::move(readout.times), offset};
  }

  bool any_gpu = false;
  for (const Slot& s : slots_) {
    if (s.timer == nullptr) continue;
    const auto& [times, offset] = placed[s.timer];
    std::vector<uint32_t> dispatches;
    for (uint32_t i = s.first_span; i < s.end_span; ++i) dispatches.push_back(i);
    if (s.call_span < 0 && dispatches.empty()) continue;
    int64_t begin = 0, end = 0;
    if (s.call_span >= 0) {
      begin = times[static_cast<size_t>(s.call_span)].begin_ns;
      end = times[static_cast<size_t>(s.call_span)].end_ns;
    } else {
      begin = times[dispatches.front()].begin_ns;
      end = times[dispatches.front()].end_ns;
      for (uint32_t i : dispatches) {
        begin = std::min(begin, times[i].begin_ns);
        end = std::max(end, times[i].end_ns);
      }
    }
    ProfileEvent call;
    call.track = ProfileTrack::kGpu;
    call.kind = ProfileKind::kDelegate;
    call.name = call.backend = s.backend_id;
    call.instruction = static_cast<int64_t>(s.instruction);
    call.start_ns = begin + offset;
    call.duration_ns = end - begin;
    const int32_t parent = static_cast<int32_t>(profile.events.size());
    profile.events.push_back(call);
    for (uint32_t i : dispatches) {
      ProfileEvent d = call;
      d.kind = ProfileKind::kDispatch;
      d.name = s.timer->spans()[i].name;
      if (d.name.starts_with("dispatch ")) d.name.erase(0, 9);
      d.parent = parent;
      d.start_ns = times[i].begin_ns + offset;
      d.duration_ns = times[i].end_ns - times[i].begin_ns;
      profile.events.push_back(std::move(d));
    }
    any_gpu = true;
  }
  // Debug metadata: the PyTorch nodes behind each instruction.
  for (ProfileEvent& e : profile.events) {
    if (e.instruction < 0 || static_cast<size_t>(e.instruction) >= method_->sources.size()) continue;
    for (const SourceNode& node : method_->sources[static_cast<size_t>(e.instruction)]) {
      e.source += (e.source.empty() ? "" : ", ") + node.name;
    }
  }
  if (any_gpu) profile.alignment = all_calibrated ? GpuAlignment::kCalibrated : GpuAlignment::kSubmit;
  last_ = std::move(profile);
  return ok_status();
}

Result<Profile> MethodProfiler::last() const {
  if (!last_) return not_found("method '" + method_->name + "' has no profile yet: it has not run since it was loaded");
  return *last_;
}

}  // namespace univk::runtime
