// SPDX-License-Identifier: Apache-2.0
// preduce: the one exception type the library throws.
#pragma once

#include <stdexcept>
#include <string>

namespace preduce {

//! What went wrong; `preduce::error::code()` returns one of these.
enum class errc {
  invalid_argument,   //!< an argument is out of its domain (e.g. a bad enum value)
  null_pointer,       //!< a null pointer where n > 0 elements must be read or written
  not_device_memory,  //!< a host pointer where device memory is required
  overlap,            //!< an output range overlaps an input range
  bad_offsets,        //!< segment offsets decreasing, negative or past the end of the input
  size_overflow,      //!< rows * cols (or a byte count) does not fit in std::size_t
  wrong_device,       //!< memory belongs to a device other than the queue's
  unsupported,        //!< a feature this build or backend does not provide
  out_of_memory,      //!< a device allocation failed
  device_fault,       //!< the device reported an error (a fault in a kernel, a lost context)
  out_of_bounds,      //!< a pointer range runs past the end of the allocation it starts in
  communication,      //!< the communication engine (MPI, NCCL) reported an error
};

//! Returns a short name for `c`, e.g. "bad_offsets".
inline const char* to_string(errc c) noexcept {
  switch (c) {
    case errc::invalid_argument: return "invalid_argument";
    case errc::null_pointer: return "null_pointer";
    case errc::not_device_memory: return "not_device_memory";
    case errc::overlap: return "overlap";
    case errc::bad_offsets: return "bad_offsets";
    case errc::size_overflow: return "size_overflow";
    case errc::wrong_device: return "wrong_device";
    case errc::unsupported: return "unsupported";
    case errc::out_of_memory: return "out_of_memory";
    case errc::device_fault: return "device_fault";
    case errc::out_of_bounds: return "out_of_bounds";
    case errc::communication: return "communication";
  }
  return "unknown";
}

//! The exception thrown for bad input (before anything is launched) and for device failures
//! (at the next synchronizing call). `what()` reads "preduce: <function>: <message>".
class error : public std::runtime_error {
 public:
  error(errc code, const std::string& message)
      : std::runtime_error("preduce: " + message), code_(code) {}
  //! The category of the failure.
  errc code() const noexcept { return code_; }

 private:
  errc code_;
};

}  // namespace preduce
