// SPDX-License-Identifier: Apache-2.0
// preduce: the distributed calls (distributed.hpp), the same for every backend and engine. One
// call: each rank checks its arguments and starts its local reduction into preduce's workspace;
// the ranks agree on verdicts and on the call (communicator::agree); the local results (arg
// indices made global) or reproducible partials are gathered and merged in rank order by the
// backend's merge kernel (detail/merge.hpp), or, under determinism::fast, summed by the engine.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <preduce/distributed.hpp>
#include <preduce/memory.hpp>
#include <preduce/portable/builtin_dispatch.hpp>
#include <preduce/reproducible.hpp>

namespace preduce {
namespace detail {

//! preduce's state for one communicator: the lock every call holds from start to end (calls on
//! one communicator run one at a time, in the order every rank makes them), and a workspace per
//! queue ([local results | every rank's results]), grown as calls need and kept while the
//! communicator lives, so work still queued never sees its memory freed or reused by another
//! queue's call.
struct distributed_state {
  std::mutex mutex;
  std::map<const void*, std::vector<device_buffer<unsigned char>>> workspaces;  // by queue state; the last is in use
};

}  // namespace detail

communicator::communicator() : state_(new detail::distributed_state) {}
communicator::~communicator() = default;

namespace detail {
namespace {

// The size in memory of a reproducible partial (what partial_of writes), by result type.
constexpr std::size_t sum_partial_bytes = sizeof(reproducible_partial<double>);
constexpr std::size_t moments_partial_bytes = sizeof(reproducible_partial<moments_result<double>>);
static_assert(sizeof(reproducible_partial<float>) == sum_partial_bytes, "one size for float and double sum partials");
static_assert(sizeof(reproducible_partial<moments_result<float>>) == moments_partial_bytes, "one size for moments partials");

//! The words each rank contributes to the agreement.
enum word : std::size_t { verdict, fingerprint, extent, words };

std::uint64_t fnv1a(std::uint64_t h, const void* p, std::size_t bytes) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

//! What every rank's call must share: the function, operator, types, determinism, the axis the
//! pieces do not split (rows of allreduce_rows, columns of allreduce_columns) and the result.
std::int64_t fingerprint_of(const distributed_request& r) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  h = fnv1a(h, r.local.function, std::strlen(r.local.function));
  const unsigned char kinds[] = {static_cast<unsigned char>(r.local.op),  static_cast<unsigned char>(r.local.nan),
                                 static_cast<unsigned char>(r.local.in),  static_cast<unsigned char>(r.local.acc),
                                 static_cast<unsigned char>(r.local.opt.det), static_cast<unsigned char>(r.how)};
  h = fnv1a(h, kinds, sizeof kinds);
  const std::uint64_t shared_axis = r.how == join::columns ? r.local.rows : r.how == join::rows ? r.local.cols : 0;
  h = fnv1a(h, &shared_axis, sizeof shared_axis);
  h = fnv1a(h, &r.local.result_bytes, sizeof r.local.result_bytes);
  return std::int64_t(h);
}

//! This queue's workspace of at least `bytes`.
unsigned char* workspace(distributed_state& st, const queue& q, std::size_t bytes) {
  auto& kept = st.workspaces[&q.state()];
  if (kept.empty() || kept.back().size() < bytes) kept.emplace_back(q, std::max<std::size_t>(bytes, 4096));
  return kept.back().data();
}

bool is_arg(op_id op) { return op == op_id::argmin || op == op_id::argmax; }

//! Enqueues the merged request: out[t * out_stride] = the merge of `count` pieces' results at
//! pieces (piece k's result t at pieces[k * results + t]), arg indices shifted by `shift`.
void enqueue_merge(const queue& q, const request& like, const void* pieces, std::size_t count, std::size_t results, std::uint64_t shift,
                   bool partials, void* out, std::size_t out_stride) {
  request m = like;
  m.layout = shape::merged;
  m.x = pieces;
  m.y = nullptr;
  m.n = count;
  m.results = results;
  m.index_shift = shift;
  m.partial = partials;
  m.out = out;
  m.out_stride = out_stride;
  dispatch(q, m);
}

}  // namespace

void distributed_dispatch(communicator& comm, const queue& q, const distributed_request& r) {
  distributed_state& st = comm.state();
  std::lock_guard<std::mutex> lock(st.mutex);
  const char* function = r.local.function;
  const std::size_t ranks = std::size_t(comm.size()), me = std::size_t(comm.rank());
  const bool whole = r.how == join::elements;
  const std::size_t results = whole ? 1 : r.local.results;
  // reproducible: the binned operators gather their partials; fast: the engine sums floats.
  const bool partials = runs_binned(r.local);
  const bool native = r.local.opt.det == determinism::fast && !partials &&
                      (r.local.op == op_id::plus || r.local.op == op_id::sum_of_squares || r.local.op == op_id::dot) &&
                      (r.local.acc == dtype::f32 || r.local.acc == dtype::f64);
  const std::size_t piece_bytes = !partials ? r.local.result_bytes : r.local.op == op_id::moments ? moments_partial_bytes : sum_partial_bytes;

  // 1. This rank's verdict on its arguments, and its local reduction where they are fine.
  std::int64_t mine[words] = {0, fingerprint_of(r), std::int64_t(r.extent)};
  std::string message;
  unsigned char* local = nullptr;
  unsigned char* gathered = nullptr;
  try {
    if (partials && !whole)
      fail(errc::unsupported, function,
           "determinism::reproducible over rows or columns of a distributed matrix is not available yet (whole arrays are); use "
           "determinism::run_to_run");
    validate(q, r.local);
    local = workspace(st, q, (1 + ranks) * results * piece_bytes);
    gathered = local + results * piece_bytes;
    request piece = r.local;
    piece.partial = partials;
    piece.result_bytes = piece_bytes;
    piece.results = results;
    piece.out = local;
    piece.out_stride = 1;
    if (results > 0) dispatch(q, piece);  // an empty piece gives identities (n == 0, or rows / columns of length 0)
  } catch (const error& e) {
    mine[verdict] = std::int64_t(e.code()) + 1;
    message = e.what();
    const std::string prefix = "preduce: ";
    if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
  }

  // 2. Every rank's verdict, call and extent; nothing has been written where a user sees it.
  std::vector<std::int64_t> all(ranks * words);
  comm.agree(mine, all.data(), words);
  for (std::size_t k = 0; k < ranks; ++k) {
    const std::int64_t v = all[k * words + verdict];
    if (v == 0) continue;
    if (k == me) throw error(errc(v - 1), message + " (rank " + std::to_string(k) + "; no rank wrote its output)");
    throw error(errc(v - 1), std::string(function) + ": rank " + std::to_string(k) + " refused its arguments (" + to_string(errc(v - 1)) +
                                 "); no rank wrote its output");
  }
  for (std::size_t k = 1; k < ranks; ++k)
    if (all[k * words + fingerprint] != all[fingerprint])
      throw error(errc::invalid_argument, std::string(function) + ": rank " + std::to_string(k) +
                                              "'s call differs from rank 0's (operator, element type, accumulator, determinism, or "
                                              "the rows / columns every rank shares); no rank wrote its output");
  std::uint64_t first = 0;  // this rank's first index along the joined axis
  for (std::size_t k = 0; k < me; ++k) first += std::uint64_t(all[k * words + extent]);

  // 3. Arg indices made global, then the exchange.
  if (is_arg(r.local.op) && first != 0 && results > 0) enqueue_merge(q, r.local, local, 1, results, first, false, local, 1);
  std::size_t pieces = ranks;
  const unsigned char* merged_from = gathered;
  if (native) {  // the engine's own sum, in place; every rank then holds the same values
    if (comm.device_collectives()) {
      comm.allreduce_sum(q, local, results, r.local.acc == dtype::f64);
    } else {
      std::vector<unsigned char> staged(results * piece_bytes);
      copy_to_host_bytes(q, staged.data(), local, staged.size());
      comm.allreduce_sum(q, staged.data(), results, r.local.acc == dtype::f64);
      copy_to_device_bytes(q, local, staged.data(), staged.size());
    }
    pieces = 1;
    merged_from = local;
  } else if (comm.device_collectives()) {
    comm.allgather(q, local, gathered, results * piece_bytes);
  } else {
    std::vector<unsigned char> staged_local(results * piece_bytes), staged(ranks * results * piece_bytes);
    copy_to_host_bytes(q, staged_local.data(), local, staged_local.size());
    comm.allgather(q, staged_local.data(), staged.data(), staged_local.size());
    copy_to_device_bytes(q, gathered, staged.data(), staged.size());
  }

  // 4. The merge in rank order, into the caller's output or a result slot of this call.
  if (r.host_out) {
    portable::result_slot slot(q, function);
    enqueue_merge(q, r.local, merged_from, pieces, 1, 0, partials, slot.device(), 1);
    slot.read(r.host_out, r.local.result_bytes);
  } else {
    enqueue_merge(q, r.local, merged_from, pieces, results, 0, partials, r.local.out, r.local.out_stride);
  }
}

}  // namespace detail
}  // namespace preduce
