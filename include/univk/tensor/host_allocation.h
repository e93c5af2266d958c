// Host memory for tensors, and what happens when there is none.
//
// HostTensor's storage comes from allocate_host_tensor_bytes: 64-byte aligned, zero-filled. A
// failed allocation never yields a null buffer: it throws HostAllocationError (a std::bad_alloc
// naming the size and the tensor), and univk's API entry points (Program::load*, load_method,
// Method::execute, reference::run_op/run_tosa, compiler::compile_program) turn it, like any
// std::bad_alloc of a container, into an OutOfMemory Status with catch_out_of_memory. Code that
// can report a Status itself uses HostTensor::allocate.
//
// Thread safety: all functions may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>

#include "univk/base/status.h"
#include "univk/tensor/dtype.h"
#include "univk/tensor/shape.h"

namespace univk {

class HostAllocationError : public std::bad_alloc {
 public:
  explicit HostAllocationError(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// `bytes` zero-filled bytes aligned to 64 for a tensor of `dtype` and `shape` (named in the error:
// "float32[40000,40000]"), released with std::free. Throws HostAllocationError.
uint8_t* allocate_host_tensor_bytes(size_t bytes, DType dtype, const Shape& shape);

// Test hook: the n-th host tensor allocation from now on (1-based, counted over all threads)
// fails once as if the system had no memory; 0 disarms. Returns how many allocations were
// counted since the previous call, so a test can first count and then fail each one in turn.
uint64_t fail_nth_host_allocation_for_testing(uint64_t n);

// Runs `f` (returning Status or Result<T>); a std::bad_alloc thrown inside becomes OutOfMemory
// (with the size and tensor when it is a HostAllocationError) instead of leaving `f`.
template <typename F>
auto catch_out_of_memory(F&& f) -> std::invoke_result_t<F> {
  try {
    return f();
  } catch (const HostAllocationError& e) {
    return out_of_memory(e.what());
  } catch (const std::bad_alloc&) {
    return out_of_memory("host memory allocation failed (std::bad_alloc)");
  }
}

}  // namespace univk
