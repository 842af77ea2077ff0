// SPDX-License-Identifier: Apache-2.0
// preduce: device memory and host<->device copies, so callers never touch a vendor API.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "error.hpp"
#include "execution.hpp"

namespace preduce {

namespace detail {
// Implemented by the backend. Bytes, not elements; all copies wait for completion.
void* device_allocate(const queue& q, std::size_t bytes);
void device_free(const queue& q, void* p) noexcept;
void copy_to_device_bytes(const queue& q, void* d_dst, const void* h_src, std::size_t bytes);
void copy_to_host_bytes(const queue& q, void* h_dst, const void* d_src, std::size_t bytes);
void copy_on_device_bytes(const queue& q, void* d_dst, const void* d_src, std::size_t bytes);
//! Whether the backend's device memory is host memory the host may read and write (the kokkos
//! backend on a host execution space).
bool device_memory_is_host_memory() noexcept;

inline std::size_t checked_bytes(std::size_t n, std::size_t elem, const char* what) {
  if (elem != 0 && n > std::size_t(-1) / elem)
    throw error(errc::size_overflow, std::string(what) + ": element count times element size overflows std::size_t");
  return n * elem;
}
}  // namespace detail

//! Copies n elements from host memory to device memory; returns when the copy is done.
template <class T>
void copy_to_device(const queue& q, T* d_dst, const T* h_src, std::size_t n) {
  detail::copy_to_device_bytes(q, d_dst, h_src, detail::checked_bytes(n, sizeof(T), "copy_to_device"));
}
//! Copies n elements from device memory to host memory; returns when the copy is done.
template <class T>
void copy_to_host(const queue& q, T* h_dst, const T* d_src, std::size_t n) {
  detail::copy_to_host_bytes(q, h_dst, d_src, detail::checked_bytes(n, sizeof(T), "copy_to_host"));
}

//! An owning array in device memory on a queue's device. Move-only; the memory is freed in
//! the destructor (after the queue's pending work, on backends where freeing synchronizes).
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  //! Uninitialised storage for n elements on q's device.
  device_buffer(const queue& q, std::size_t n)
      : q_(q), n_(n), p_(static_cast<T*>(n ? detail::device_allocate(q, detail::checked_bytes(n, sizeof(T), "device_buffer")) : nullptr)) {}
  //! Uninitialised storage for n elements on the current device's default queue.
  explicit device_buffer(std::size_t n) : device_buffer(queue{}, n) {}
  //! A device copy of a host vector.
  device_buffer(const queue& q, const std::vector<T>& host) : device_buffer(q, host.size()) {
    copy_to_device(*q_, p_, host.data(), n_);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : q_(std::move(o.q_)), n_(std::exchange(o.n_, 0)), p_(std::exchange(o.p_, nullptr)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      release();
      q_ = std::move(o.q_);
      n_ = std::exchange(o.n_, 0);
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  ~device_buffer() { release(); }

  T* data() noexcept { return p_; }
  const T* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  //! The queue the buffer was allocated on. Throws errc::invalid_argument for a buffer that has
  //! none (default-constructed).
  const queue& get_queue() const {
    if (!q_) throw error(errc::invalid_argument, "device_buffer::get_queue: a default-constructed buffer has no queue");
    return *q_;
  }

  //! Copies the whole buffer to a new host vector.
  std::vector<T> to_host() const {
    std::vector<T> h(n_);
    if (n_) copy_to_host(*q_, h.data(), p_, n_);
    return h;
  }

 private:
  void release() noexcept {
    if (p_) detail::device_free(*q_, p_);
    p_ = nullptr;
    n_ = 0;
  }
  std::optional<queue> q_;  // empty for a default-constructed buffer
  std::size_t n_ = 0;
  T* p_ = nullptr;
};

}  // namespace preduce
