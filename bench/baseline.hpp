// SPDX-License-Identifier: Apache-2.0
// preduce-bench: the backend-specific pieces behind one interface, implemented once per backend
// in bench/<backend>/ (cuda: CUDA events and CUB; kokkos: fences, steady_clock and plain
// Kokkos::parallel_reduce; hip: HIP events and rocPRIM). The driver sees only these declarations.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cases.hpp"

namespace preduce {
namespace bench {

//! What the run measured on, for the report and the JSON.
struct device_report {
  std::string device;          //!< e.g. "NVIDIA H200, sm_90, 132 SMs, 139 GiB"
  std::string driver;          //!< driver version, "n/a" where there is none (host CPUs)
  std::string runtime;         //!< runtime / programming-model version (CUDA runtime, Kokkos, HIP)
  std::string vendor;          //!< the vendor column's name: "CUB", "Kokkos parallel_reduce", "rocPRIM"
  std::string vendor_version;  //!< the vendor library's version
  std::size_t memory_bytes;    //!< memory the device's buffers come from
  std::size_t cache_bytes;     //!< the last cache in front of that memory (L2 on GPUs, LLC on CPUs)
  bool host;                   //!< the device is the host CPU (the driver caps sizes lower)
};

//! Describes q's device and the vendor library this backend compares against.
device_report describe_device(const queue& q);

//! Selects the timer time_calls uses: the backend's names (see timer_names()); false if unknown.
bool select_timer(const std::string& name);
//! The timers this backend offers, the default first, e.g. "graph|events".
const char* timer_names();

//! Times call(i) for i in [0, count) on q and returns `count` samples, in milliseconds per call,
//! taken on the device's own clock (see timer_method()). A call only enqueues work; it must not
//! wait.
std::vector<double> time_calls(const queue& q, int count, const std::function<void(int)>& call);

//! How the selected timer works, one sentence for the JSON.
const char* timer_method();

//! Passes of a read-only streaming kernel, from which the driver takes the read-bandwidth ceiling.
struct ceiling_run {
  std::size_t bytes;       //!< bytes read per pass
  std::vector<double> ms;  //!< each timed pass, in milliseconds
  std::string method;      //!< what was run, e.g. "read-only streaming kernel: 16-byte loads, ..."
};

//! Times `reps` passes (after a warm-up) of a read-only streaming kernel over about `bytes` of
//! device memory, which the caller makes much larger than the device's cache.
ceiling_run run_read_ceiling(const queue& q, std::size_t bytes, int reps);

//! The vendor's reduction of one case, prepared outside the timed region (temporary storage
//! allocated, output allocated), then enqueued any number of times on input copies of the case.
class vendor_reduction {
 public:
  virtual ~vendor_reduction() = default;
  //! Enqueues the reduction of x (and y, dot's second input; else null) on the queue the
  //! reduction was made for. Never waits.
  virtual void enqueue(const void* x, const void* y) = 0;
  //! Waits for the queue, then copies the results of the last enqueue to `host` as preduce's
  //! result type of the case (result_of<Op, T>), case_spec::results() of them.
  virtual void copy_results(void* host) = 0;
  //! The synchronous call as a user writes it by hand with the vendor library, results to `host`
  //! as copy_results gives them: CUB / rocPRIM enqueue, copy to pinned host memory on the same
  //! stream and wait for the stream; Kokkos enqueues, fences and copies its View back.
  virtual void reduce_to_host(const void* x, const void* y, void* host) = 0;
};

//! A prepared vendor reduction, or why the vendor has no sane equivalent of the case.
struct vendor_plan {
  std::unique_ptr<vendor_reduction> run;  //!< null when unavailable
  std::string unavailable;                //!< the reason, when run is null
};

//! Prepares the vendor's reduction of `c` on q.
vendor_plan make_vendor(const queue& q, const case_spec& c);

}  // namespace bench
}  // namespace preduce
