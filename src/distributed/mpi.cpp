// SPDX-License-Identifier: Apache-2.0
// preduce: the MPI adapter (mpi.hpp): blocking collectives, in pieces of at most 1 GiB a rank so
// MPI's int counts never overflow. With device buffers (direct), each first waits for the queue:
// MPI reads memory outside any stream's order.
#include <preduce/mpi.hpp>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // OpenMPI's MPIX_CUDA_AWARE_SUPPORT and MPIX_Query_cuda_support
#endif

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <preduce/error.hpp>
#include <preduce/memory.hpp>

namespace preduce {
namespace mpi {
namespace {

constexpr std::size_t piece_bytes = std::size_t(1) << 30;

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw error(errc::communication, std::string(what) + ": " + std::string(text, std::size_t(length)));
}

//! Whether this MPI reads CUDA device memory: built CUDA-aware and saying so at run time.
bool cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

//! With device buffers, MPI may read them only once q's work on them is done.
void ready(const queue& q, bool direct) {
  if (direct) q.synchronize();
}

}  // namespace

communicator::communicator(MPI_Comm comm, buffers how) : comm_(comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw error(errc::invalid_argument, "mpi::communicator: MPI is not initialized (call MPI_Init first)");
  check(MPI_Comm_rank(comm_, &rank_), "mpi::communicator: MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "mpi::communicator: MPI_Comm_size");
  direct_ = how == buffers::direct ||
            (how == buffers::detect && (detail::device_memory_is_host_memory() || (std::strcmp(backend_name(), "cuda") == 0 && cuda_aware())));
}

void communicator::allgather(const queue& q, const void* send, void* recv, std::size_t bytes) {
  ready(q, direct_);
  const auto* in = static_cast<const unsigned char*>(send);
  auto* out = static_cast<unsigned char*>(recv);
  const std::size_t ranks = std::size_t(size_);
  if (bytes <= piece_bytes) {
    const void* from = in == out + std::size_t(rank_) * bytes ? MPI_IN_PLACE : in;  // in place
    check(MPI_Allgather(from, int(bytes), MPI_BYTE, out, int(bytes), MPI_BYTE, comm_), "allreduce: MPI_Allgather");
    return;
  }
  // Larger: gather each piece of every rank's bytes, then place it.
  std::vector<unsigned char> staged(ranks * piece_bytes);
  for (std::size_t at = 0; at < bytes; at += piece_bytes) {
    const std::size_t len = std::min(piece_bytes, bytes - at);
    check(MPI_Allgather(in + at, int(len), MPI_BYTE, staged.data(), int(len), MPI_BYTE, comm_), "allreduce: MPI_Allgather");
    for (std::size_t r = 0; r < ranks; ++r) std::memcpy(out + r * bytes + at, staged.data() + r * len, len);
  }
}

void communicator::alltoall(const queue& q, const void* send, void* recv, std::size_t bytes) {
  ready(q, direct_);
  const auto* in = static_cast<const unsigned char*>(send);
  auto* out = static_cast<unsigned char*>(recv);
  const std::size_t ranks = std::size_t(size_);
  if (bytes <= piece_bytes) {
    check(MPI_Alltoall(in, int(bytes), MPI_BYTE, out, int(bytes), MPI_BYTE, comm_), "allreduce: MPI_Alltoall");
    return;
  }
  // Larger: exchange each piece of every block, packed, then place it.
  std::vector<unsigned char> packed(ranks * piece_bytes), staged(ranks * piece_bytes);
  for (std::size_t at = 0; at < bytes; at += piece_bytes) {
    const std::size_t len = std::min(piece_bytes, bytes - at);
    for (std::size_t r = 0; r < ranks; ++r) std::memcpy(packed.data() + r * len, in + r * bytes + at, len);
    check(MPI_Alltoall(packed.data(), int(len), MPI_BYTE, staged.data(), int(len), MPI_BYTE, comm_), "allreduce: MPI_Alltoall");
    for (std::size_t r = 0; r < ranks; ++r) std::memcpy(out + r * bytes + at, staged.data() + r * len, len);
  }
}

void communicator::allreduce_sum(const queue& q, void* data, std::size_t count, bool is_double) {
  ready(q, direct_);
  const std::size_t size = is_double ? 8 : 4, per = piece_bytes / size;
  auto* p = static_cast<unsigned char*>(data);
  for (std::size_t at = 0; at < count; at += per)
    check(MPI_Allreduce(MPI_IN_PLACE, p + at * size, int(std::min(per, count - at)), is_double ? MPI_DOUBLE : MPI_FLOAT, MPI_SUM, comm_),
          "allreduce: MPI_Allreduce");
}

void communicator::agree(const std::int64_t* mine, std::int64_t* all, std::size_t words) {
  check(MPI_Allgather(mine, int(words), MPI_INT64_T, all, int(words), MPI_INT64_T, comm_), "allreduce: MPI_Allgather (the agreement)");
}

}  // namespace mpi
}  // namespace preduce
