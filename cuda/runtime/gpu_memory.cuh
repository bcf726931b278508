// SPDX-License-Identifier: MIT
// RAII owners for the CUDA resources of the MSM and NTT engines (device buffers, streams,
// events) and the one place where exceptions are turned into the GpuResult the C++ entries
// return. Kept beside the field layer because it is the lowest layer every kernel family
// includes; it builds on cuda/runtime/cuda_check.cuh, the project's only CUDA error check.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "cuda/runtime/cuda_check.cuh"
#include "cuda/runtime/gpu_result.hpp"

namespace zkmill::cuda {

// A failed device allocation, with what it was for and how much was asked and free: an
// operator reading "out of memory" needs to know whether the job or the card is the problem.
class DeviceAllocError : public std::runtime_error {
 public:
  DeviceAllocError(const std::string& what, size_t bytes, const char* file, int line)
      : std::runtime_error(describe(what, bytes, file, line)) {}

 private:
  static std::string describe(const std::string& what, size_t bytes, const char* file, int line) {
    size_t free_b = 0, total_b = 0;
    std::string mem;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
      mem = "; device has " + std::to_string(free_b >> 20) + " MiB free of " + std::to_string(total_b >> 20) + " MiB";
    }
    (void)cudaGetLastError();  // the failed allocation is not sticky; clear it for later checks
    return std::string(file) + ":" + std::to_string(line) + ": GPU out of memory allocating " + what + " (" +
           std::to_string(bytes >> 20) + " MiB)" + mem;
  }
};

// An owned, typed device array. Never copied; moved by swapping the pointer.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(size_t count, const char* what) { allocate(count, what); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  // Grows (never shrinks) to at least `count` elements; contents are not preserved.
  void reserve(size_t count, const char* what) {
    if (count <= count_) return;
    release();
    allocate(count, what);
  }

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  void allocate(size_t count, const char* what) {
    if (count == 0) return;
    cudaError_t e = cudaMalloc(&ptr_, count * sizeof(T));
    if (e == cudaErrorMemoryAllocation) {
      ptr_ = nullptr;
      throw DeviceAllocError(what, count * sizeof(T), __FILE__, __LINE__);
    }
    ZK_CUDA_OK(e);
    count_ = count;
  }
  void release() noexcept {
    if (ptr_) (void)cudaFree(ptr_);  // a destructor cannot report; a failed free is logged by the next call
    ptr_ = nullptr;
    count_ = 0;
  }

  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// A non-blocking stream of the current device, of default priority or of the device's greatest
// (the numerically lowest of its range): among streams with blocks waiting, the scheduler starts
// the greater priority's first.
enum class StreamPriority { kDefault, kGreatest };

class Stream {
 public:
  explicit Stream(StreamPriority p = StreamPriority::kDefault) {
    if (p == StreamPriority::kDefault) {
      ZK_CUDA_OK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
      return;
    }
    int least = 0, greatest = 0;
    ZK_CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    ZK_CUDA_OK(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, greatest));
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (s_) (void)cudaStreamDestroy(s_);
  }
  cudaStream_t get() const { return s_; }
  void sync() const { ZK_CUDA_OK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// Waits for a stream's work when it goes out of scope, so that buffers and events the work uses
// outlive it on every exit (a destructor cannot report: an error stays with the stream for its
// next call to see).
class StreamDrain {
 public:
  explicit StreamDrain(cudaStream_t stream) : s_(stream) {}
  StreamDrain(const StreamDrain&) = delete;
  StreamDrain& operator=(const StreamDrain&) = delete;
  ~StreamDrain() { (void)cudaStreamSynchronize(s_); }

 private:
  cudaStream_t s_;
};

class Event {
 public:
  Event() { ZK_CUDA_OK(cudaEventCreate(&e_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (e_) (void)cudaEventDestroy(e_);
  }
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) const { ZK_CUDA_OK(cudaEventRecord(e_, s)); }
  // Milliseconds from `start` to this event (both recorded, this one completed).
  float since(const Event& start) const {
    ZK_CUDA_OK(cudaEventSynchronize(e_));
    float ms = 0;
    ZK_CUDA_OK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

// Runs `body` and converts whatever it throws into a GpuResult; used by every C++ entry so
// that no exception crosses the API.
template <class Body>
GpuResult run_guarded(Body&& body) noexcept {
  try {
    body();
    return {};
  } catch (const DeviceAllocError& e) {
    return {GpuErrc::kOutOfMemory, e.what()};
  } catch (const CudaError& e) {
    (void)cudaGetLastError();
    if (e.code() == cudaErrorNoDevice || e.code() == cudaErrorInsufficientDriver) return {GpuErrc::kNoDevice, e.what()};
    if (e.code() == cudaErrorMemoryAllocation) return {GpuErrc::kOutOfMemory, e.what()};
    return {GpuErrc::kCudaError, e.what()};
  } catch (const std::invalid_argument& e) {
    return {GpuErrc::kInvalidArgument, e.what()};
  } catch (const std::bad_alloc&) {
    return {GpuErrc::kOutOfMemory, "host out of memory"};
  } catch (const std::exception& e) {
    return {GpuErrc::kInternal, e.what()};
  } catch (...) {
    return {GpuErrc::kInternal, "unknown exception"};
  }
}

}  // namespace zkmill::cuda
