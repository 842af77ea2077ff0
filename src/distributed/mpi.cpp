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

namespace {

MPI_Datatype mpi_type(preduce::communicator::element type) {
  switch (type) {
    case preduce::communicator::element::u8: return MPI_UINT8_T;
    case preduce::communicator::element::i64: return MPI_INT64_T;
    case preduce::communicator::element::f32: return MPI_FLOAT;
    default: return MPI_DOUBLE;
  }
}
std::size_t size_of(preduce::communicator::element type) {
  return type == preduce::communicator::element::u8 ? 1 : type == preduce::communicator::element::f32 ? 4 : 8;
}

//! Runs exchange(from, to, len) on blocks of `bytes` a rank: `in` holds in_blocks of them (1, or
//! one per rank, block r at r * bytes), `out` out_blocks. Blocks over 1 GiB go in pieces of at
//! most 1 GiB (whole units of `unit` bytes), each rank's piece packed next to the others' in host
//! memory, so device buffers (direct) over 1 GiB a block are refused: every rank has the same
//! block size after the agreement, so every rank throws alike.
template <class Exchange>
void by_pieces(std::size_t ranks, const unsigned char* in, std::size_t in_blocks, unsigned char* out, std::size_t out_blocks,
               std::size_t bytes, std::size_t unit, bool direct, Exchange exchange) {
  if (bytes <= piece_bytes) return exchange(in, out, bytes);
  if (direct && !detail::device_memory_is_host_memory() && (in_blocks > 1 || out_blocks > 1))
    throw error(errc::unsupported, "allreduce: blocks over 1 GiB a rank through an MPI that reads device memory (pieces are packed "
                                   "in host memory); pass mpi::buffers::staged, or split the call");
  const std::size_t most = piece_bytes / unit * unit;
  std::vector<unsigned char> packed(in_blocks > 1 ? ranks * most : 0), staged(out_blocks > 1 ? ranks * most : 0);
  for (std::size_t at = 0; at < bytes; at += most) {
    const std::size_t len = std::min(most, bytes - at);
    if (in_blocks > 1)
      for (std::size_t r = 0; r < ranks; ++r) std::memcpy(packed.data() + r * len, in + r * bytes + at, len);
    exchange(in_blocks > 1 ? packed.data() : in + at, out_blocks > 1 ? staged.data() : out + at, len);
    if (out_blocks > 1)
      for (std::size_t r = 0; r < ranks; ++r) std::memcpy(out + r * bytes + at, staged.data() + r * len, len);
  }
}

}  // namespace

void communicator::allgather(const queue& q, const void* send, void* recv, std::size_t bytes) {
  ready(q, direct_);
  const auto* in = static_cast<const unsigned char*>(send);
  auto* out = static_cast<unsigned char*>(recv);
  const bool in_place = bytes <= piece_bytes && in == out + std::size_t(rank_) * bytes;
  by_pieces(std::size_t(size_), in, 1, out, std::size_t(size_), bytes, 1, direct_, [&](const unsigned char* from, unsigned char* to, std::size_t len) {
    check(MPI_Allgather(in_place ? MPI_IN_PLACE : from, int(len), MPI_BYTE, to, int(len), MPI_BYTE, comm_), "allreduce: MPI_Allgather");
  });
}

void communicator::alltoall(const queue& q, const void* send, void* recv, std::size_t bytes) {
  ready(q, direct_);
  by_pieces(std::size_t(size_), static_cast<const unsigned char*>(send), std::size_t(size_), static_cast<unsigned char*>(recv),
            std::size_t(size_), bytes, 1, direct_, [&](const unsigned char* from, unsigned char* to, std::size_t len) {
              check(MPI_Alltoall(from, int(len), MPI_BYTE, to, int(len), MPI_BYTE, comm_), "allreduce: MPI_Alltoall");
            });
}

void communicator::allreduce(const queue& q, const void* send, void* recv, std::size_t count, element type, reduction op) {
  ready(q, direct_);
  const std::size_t size = size_of(type), per = piece_bytes / size;
  const auto* in = static_cast<const unsigned char*>(send);
  auto* out = static_cast<unsigned char*>(recv);
  for (std::size_t at = 0; at < count; at += per)
    check(MPI_Allreduce(in == out ? MPI_IN_PLACE : in + at * size, out + at * size, int(std::min(per, count - at)), mpi_type(type),
                        op == reduction::max ? MPI_MAX : MPI_SUM, comm_),
          "allreduce: MPI_Allreduce");
}

void communicator::reduce_scatter(const queue& q, const void* send, void* recv, std::size_t count, element type) {
  ready(q, direct_);
  const std::size_t size = size_of(type);
  by_pieces(std::size_t(size_), static_cast<const unsigned char*>(send), std::size_t(size_), static_cast<unsigned char*>(recv), 1,
            count * size, size, direct_, [&](const unsigned char* from, unsigned char* to, std::size_t len) {
              check(MPI_Reduce_scatter_block(from, to, int(len / size), mpi_type(type), MPI_SUM, comm_), "allreduce: MPI_Reduce_scatter_block");
            });
}

void communicator::agree(const std::int64_t* mine, std::int64_t* all, std::size_t words) {
  check(MPI_Allgather(mine, int(words), MPI_INT64_T, all, int(words), MPI_INT64_T, comm_), "allreduce: MPI_Allgather (the agreement)");
}

}  // namespace mpi
}  // namespace preduce
