// SPDX-License-Identifier: Apache-2.0
// preduce: reductions of an array spread over many ranks (processes or GPUs), through the
// caller's communication engine: MPI (<preduce/mpi.hpp>) or NCCL (<preduce/nccl.hpp>). Each rank
// holds a piece; the result is the reduction of the pieces concatenated in rank order, on every
// rank. The caller keeps the engine's communicator and launches the processes (mpirun, srun,
// torchrun); this header includes no vendor header.
//
//   preduce::mpi::communicator comm(MPI_COMM_WORLD);
//   float total = preduce::allreduce(comm, q, d_local, n_local);                 // every rank gets it
//   auto best = preduce::allreduce(comm, q, d_local, n_local, preduce::argmax{});  // global index
//
// Determinism, for every built-in operator and type:
//   run_to_run    the ranks' local results are merged in rank order by preduce, never by the
//                 engine's own arithmetic: the same bits for the same data, rank count and
//                 split, whatever algorithm the engine picks. (Whole arrays gather every rank's
//                 result; rows and columns go as a reduce-scatter, each rank merging one block
//                 of the results, and an allgather.)
//   reproducible  the ranks' reproducible partials (partial_of) are merged exactly, for whole
//                 arrays, rows and columns: the same bits as the single-device reduce over the
//                 concatenated array, for any number of ranks and any split (operators with no
//                 binned form are exact already and merge as under run_to_run).
//   fast          floating-point plus, sum_of_squares and dot add the ranks' local results with
//                 the engine's own sum; other operators merge as under run_to_run.
// Errors: every rank checks its arguments, and all ranks agree on the verdicts (and on the
// operator, types, options and shape) before any output is written: a rank with bad input, or
// one whose call differs from the others', makes every rank throw preduce::error naming it. No
// rank hangs for another's error. Calls on one communicator run one at a time (each holds its
// mutex), so threads may share it; every rank must make the same calls in the same order, as the
// engine requires of its own collectives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "batched.hpp"
#include "detail/request.hpp"
#include "execution.hpp"
#include "reduce.hpp"

namespace preduce {

namespace detail {
struct distributed_state;  // preduce's workspace and lock for one communicator (src/distributed)
}  // namespace detail

//! What preduce needs of a communication engine, implemented by the adapters in <preduce/mpi.hpp>
//! and <preduce/nccl.hpp> (or by a user's own, for another engine). Buffers live in device memory
//! of the queue's device, enqueued on its stream, where device_collectives() is true; otherwise
//! in host memory, and each call returns when it is done (preduce stages device data through the
//! host). Every rank calls each function in the same order.
class communicator {
 public:
  communicator();
  virtual ~communicator();
  communicator(const communicator&) = delete;
  communicator& operator=(const communicator&) = delete;

  //! This rank, in [0, size()).
  virtual int rank() const = 0;
  //! The number of ranks.
  virtual int size() const = 0;
  //! Whether the collectives below take device memory ordered on a queue's stream.
  virtual bool device_collectives() const = 0;
  //! recv[r * bytes .. (r + 1) * bytes) = rank r's send[0 .. bytes), on every rank. send may be
  //! recv + rank() * bytes (in place).
  virtual void allgather(const queue& q, const void* send, void* recv, std::size_t bytes) = 0;
  //! recv[r * bytes .. (r + 1) * bytes) = rank r's send[rank() * bytes .. (rank() + 1) * bytes),
  //! on every rank: block j of each rank's send goes to rank j (send and recv hold size() * bytes
  //! and do not overlap). The vector calls' reduce-scatter.
  virtual void alltoall(const queue& q, const void* send, void* recv, std::size_t bytes) = 0;
  //! The element types and reductions the two calls below take.
  enum class element : unsigned char { u8, i64, f32, f64 };
  enum class reduction : unsigned char { sum, max };
  //! recv[i] = op over ranks of send[i], i < count, on every rank; send may equal recv (in
  //! place). Float sums are the engine's own (determinism::fast's path); preduce's integer sums
  //! (the compact exchange of reproducible partials) never overflow.
  virtual void allreduce(const queue& q, const void* send, void* recv, std::size_t count, element type, reduction op) = 0;
  //! recv[i] = the sum over ranks r of rank r's send[rank() * count + i], i < count: block j of
  //! the ranks' sums lands on rank j (send holds size() * count; send and recv do not overlap).
  virtual void reduce_scatter(const queue& q, const void* send, void* recv, std::size_t count, element type) = 0;
  //! recv[i * recv_stride] = ((rank 0's send[i] + rank 1's send[i]) + rank 2's send[i]) + ...,
  //! i < count, on every rank, added in rank order whatever the rank count (f32 or f64 only), and
  //! true; or false, doing nothing, where the engine cannot (preduce then reduce-scatters and
  //! merges itself). The run_to_run sums of rows and columns take it.
  virtual bool ordered_sum(const queue& q, const void* send, void* recv, std::size_t count, std::size_t recv_stride, element type);
  //! The reproducible sums of rows and columns in one step: codes[i] and limbs[3i .. 3i + 3) are
  //! line i's compact binned sum on this rank (detail/merge.hpp's exchange::store_compact), of at
  //! most `terms` terms on any rank; recv[i * recv_stride] = the exact sum over ranks (their bins
  //! moved to the ranks' highest code and added as integers), rounded once to `type` (f32 or
  //! f64), i < count, on every rank, and true; or false, doing nothing, where the engine cannot
  //! (preduce then exchanges the codes and bins through the collectives above).
  virtual bool binned_sum(const queue& q, const std::uint8_t* codes, const std::int64_t* limbs, void* recv, std::size_t count,
                          std::size_t recv_stride, element type, std::uint64_t terms);
  //! all[r * words .. (r + 1) * words) = rank r's mine[0 .. words), in host memory, returning
  //! once done and ordered with no queue: the calls' agreement on their arguments, before they
  //! write anything.
  virtual void agree(const std::int64_t* mine, std::int64_t* all, std::size_t words) = 0;

  //! preduce's own state for this communicator (not part of the API).
  detail::distributed_state& state() const noexcept { return *state_; }

 private:
  std::unique_ptr<detail::distributed_state> state_;
};

namespace detail {
//! How the ranks' pieces join into the array the call reduces.
enum class join : unsigned char {
  elements,  //!< allreduce: the pieces' elements, concatenated in rank order
  columns,   //!< allreduce_rows: each rank holds a block of columns of every row
  rows,      //!< allreduce_columns: each rank holds a block of rows
};

//! One distributed call: this rank's local request (its piece, built like the single-device
//! call's), how the pieces join, and where the result goes.
struct distributed_request {
  request local;
  join how;
  std::size_t extent;  //!< this rank's share of the joined axis: elements, columns or rows
  void* host_out;      //!< the synchronous form's result (whole arrays), else null
};

//! Runs r over comm on q (src/distributed/allreduce.cpp): agreement, local reduction, exchange,
//! merge. Throws preduce::error on every rank when any rank's arguments are bad.
void distributed_dispatch(communicator& comm, const queue& q, const distributed_request& r);

template <class Op>
constexpr void check_distributed() {
  static_assert(!is_partial<Op>::value, "preduce: the distributed calls take the operator; partial_of is what they use inside");
  static_assert(is_builtin_op<Op>::value, "preduce: the distributed calls take the built-in operators");
}
}  // namespace detail

//! The reduction of the ranks' pieces d_local[0 .. n_local), concatenated in rank order, on every
//! rank (waits for it). An arg result's index is global. A rank may hold 0 elements.
template <class T, class Op = plus<>>
auto allreduce(communicator& comm, const queue& q, const T* d_local, std::size_t n_local, Op op = {}, options o = {}) {
  using C = detail::canonical_t<T>;
  detail::check_supported<Op, T>();
  detail::check_distributed<Op>();
  detail::result_t<Op, C> result{};
  detail::distributed_request r{detail::make_request("allreduce", op, detail::shape::whole, reinterpret_cast<const C*>(d_local), n_local, o),
                                detail::join::elements, n_local, &result};
  r.local.results = 0;
  detail::distributed_dispatch(comm, q, r);
  return result;
}

//! allreduce into *d_out (device memory) on every rank, ordered on q's stream. Every rank waits
//! for the ranks' agreement on their arguments (communicator::agree); with an engine whose
//! collectives take host memory (MPI) it also waits for the exchange.
template <class T, class Out, class Op = plus<>>
void allreduce_async(communicator& comm, const queue& q, const T* d_local, std::size_t n_local, Out* d_out, Op op = {}, options o = {}) {
  using C = detail::canonical_t<T>;
  detail::check_supported<Op, T>();
  detail::check_distributed<Op>();
  static_assert(std::is_same<std::remove_cv_t<Out>, detail::result_t<Op, C>>::value,
                "preduce::allreduce_async: *d_out must have the operator's result type (see detail::result_t)");
  detail::distributed_request r{
      detail::make_request("allreduce_async", op, detail::shape::whole, reinterpret_cast<const C*>(d_local), n_local, o),
      detail::join::elements, n_local, nullptr};
  r.local.out = d_out;
  detail::distributed_dispatch(comm, q, r);
}

namespace detail {
//! allreduce_rows and allreduce_columns: this rank's rows x cols block, joined along `how`.
template <class T, class Out, class Op>
void allreduce_batched(communicator& comm, const queue& q, const char* function, shape layout, join how, const T* d_local, std::size_t rows,
                       std::size_t cols, Out out, Op op, options o) {
  using C = canonical_t<T>;
  check_supported<Op, T>();
  check_distributed<Op>();
  const auto s = as_strided(out);
  static_assert(std::is_same<std::remove_cv_t<typename output_value<Out>::type>, result_t<Op, C>>::value,
                "preduce: the output must have the operator's result type (see detail::result_t)");
  const std::size_t n = checked_multiply(rows, cols, function, "the local block's rows * cols");
  distributed_request r{make_request(function, op, layout, reinterpret_cast<const C*>(d_local), n, o), how,
                        how == join::columns ? cols : rows, nullptr};
  r.local.rows = rows;
  r.local.cols = cols;
  r.local.results = layout == shape::rows ? rows : cols;
  r.local.out = s.ptr;
  r.local.out_stride = s.stride;
  distributed_dispatch(comm, q, r);
}
}  // namespace detail

//! out[i] = the reduction of row i of the rows x (sum of the ranks' local_cols) matrix whose
//! rank-r piece d_local is the row-major rows x local_cols block of columns starting after
//! the blocks of ranks 0 .. r - 1, on every rank (rows must be the same on every rank). An arg
//! result's index is the global column. Ordered on q's stream, as allreduce_async.
template <class T, class Out, class Op = plus<>>
void allreduce_rows(communicator& comm, const queue& q, const T* d_local, std::size_t rows, std::size_t local_cols, Out out, Op op = {},
                    options o = {}) {
  detail::allreduce_batched(comm, q, "allreduce_rows", detail::shape::rows, detail::join::columns, d_local, rows, local_cols, out, op, o);
}

//! out[j] = the reduction of column j of the (sum of the ranks' local_rows) x cols matrix whose
//! rank-r piece d_local is the row-major local_rows x cols block of rows following those of
//! ranks 0 .. r - 1, on every rank (cols must be the same on every rank). An arg result's index
//! is the global row. Ordered on q's stream, as allreduce_async.
template <class T, class Out, class Op = plus<>>
void allreduce_columns(communicator& comm, const queue& q, const T* d_local, std::size_t local_rows, std::size_t cols, Out out,
                       Op op = {}, options o = {}) {
  detail::allreduce_batched(comm, q, "allreduce_columns", detail::shape::columns, detail::join::rows, d_local, local_rows, cols, out, op, o);
}

}  // namespace preduce
