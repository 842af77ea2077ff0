// SPDX-License-Identifier: Apache-2.0
// preduce: the distributed calls (distributed.hpp), the same for every backend and engine. One
// call: each rank checks its arguments and starts its local reduction into preduce's workspace;
// the ranks agree on verdicts and on the call (communicator::agree); the local results (arg
// indices made global) or reproducible partials are exchanged (whole arrays: gathered; rows and
// columns: a reduce-scatter and an allgather) and merged in rank order by the backend's merge
// kernel (detail/merge.hpp), or, under determinism::fast, summed by the engine. docs/distributed.md
// has the design and its measurements.
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

//! This queue's workspace of at least `bytes`, zeroed when allocated: the blocks the exchanges
//! pad (below) are never uninitialized memory, whatever they hold.
unsigned char* workspace(distributed_state& st, const queue& q, std::size_t bytes) {
  auto& kept = st.workspaces[&q.state()];
  if (kept.empty() || kept.back().size() < bytes) {
    kept.emplace_back(q, std::max<std::size_t>(bytes, 4096));
    const std::vector<unsigned char> zeros(kept.back().size());
    copy_to_device_bytes(q, kept.back().data(), zeros.data(), zeros.size());
  }
  return kept.back().data();
}

bool is_arg(op_id op) { return op == op_id::argmin || op == op_id::argmax; }

//! Enqueues the merged request: out[t * out_stride] for t < results = the merge of `count`
//! pieces' results at pieces (piece k's result t at pieces[k * stride + t]), arg indices shifted
//! by `shift`.
void enqueue_merge(const queue& q, const request& like, const void* pieces, std::size_t count, std::size_t stride, std::size_t results,
                   std::uint64_t shift, bool partials, void* out, std::size_t out_stride) {
  request m = like;
  m.layout = shape::merged;
  m.x = pieces;
  m.y = nullptr;
  m.n = count;
  m.cols = stride;
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
  // reproducible: the binned operators exchange their partials; fast: the engine sums floats.
  const bool partials = runs_binned(r.local);
  const bool native = r.local.opt.det == determinism::fast && !partials &&
                      (r.local.op == op_id::plus || r.local.op == op_id::sum_of_squares || r.local.op == op_id::dot) &&
                      (r.local.acc == dtype::f32 || r.local.acc == dtype::f64);
  const std::size_t piece_bytes = !partials ? r.local.result_bytes : r.local.op == op_id::moments ? moments_partial_bytes : sum_partial_bytes;
  const std::size_t value_bytes = r.local.result_bytes;
  // Vectors travel as a reduce-scatter and an allgather: rank j merges block j (`block` results,
  // the last blocks shorter or empty) of every rank's results, then every rank gathers the
  // merged blocks. The buffers hold ranks * block results, the last ones a padding that travels
  // but is never merged.
  const bool scatter = !whole && !native && ranks > 1;
  const std::size_t block = (results + ranks - 1) / ranks, padded = scatter ? ranks * block : results;

  // 1. This rank's verdict on its arguments, and its local reduction where they are fine.
  std::int64_t mine[words] = {0, fingerprint_of(r), std::int64_t(r.extent)};
  std::string message;
  unsigned char* local = nullptr;     // this rank's results (or partials), `padded` of them
  unsigned char* received = nullptr;  // whole: every rank's result; vectors: every rank's block `me`
  unsigned char* values = nullptr;    // vectors: the merged blocks, `padded` values
  try {
    validate(q, r.local);
    const std::size_t exchanged = whole ? ranks * piece_bytes : padded * piece_bytes;
    local = workspace(st, q, padded * piece_bytes + exchanged + (scatter ? padded * value_bytes : 0));
    received = local + padded * piece_bytes;
    values = received + exchanged;
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
  if (results == 0) return;
  std::uint64_t first = 0;  // this rank's first index along the joined axis
  for (std::size_t k = 0; k < me; ++k) first += std::uint64_t(all[k * words + extent]);

  // 3. Arg indices made global.
  if (is_arg(r.local.op) && first != 0) enqueue_merge(q, r.local, local, 1, results, results, first, false, local, 1);
  const bool on_device = comm.device_collectives();
  auto host_staged = [&](auto&& exchange, const void* from, std::size_t from_bytes, void* to, std::size_t to_bytes) {
    std::vector<unsigned char> in(from_bytes), out(to_bytes);
    copy_to_host_bytes(q, in.data(), from, from_bytes);
    exchange(in.data(), out.data());
    copy_to_device_bytes(q, to, out.data(), to_bytes);
  };

  // 4. The exchange, and the merge in rank order into the caller's output (or, for the
  //    synchronous form, a result slot of this call).
  if (native) {  // the engine's own sum, in place; every rank then holds the same values
    if (on_device) {
      comm.allreduce_sum(q, local, results, r.local.acc == dtype::f64);
    } else {
      std::vector<unsigned char> staged(results * piece_bytes);
      copy_to_host_bytes(q, staged.data(), local, staged.size());
      comm.allreduce_sum(q, staged.data(), results, r.local.acc == dtype::f64);
      copy_to_device_bytes(q, local, staged.data(), staged.size());
    }
    if (!r.host_out) return enqueue_merge(q, r.local, local, 1, results, results, 0, false, r.local.out, r.local.out_stride);
    portable::result_slot slot(q, function);
    enqueue_merge(q, r.local, local, 1, 1, 1, 0, false, slot.device(), 1);
    return slot.read(r.host_out, value_bytes);
  }
  if (whole) {  // one result a rank: gather them all, every rank merges
    if (on_device) comm.allgather(q, local, received, piece_bytes);
    else host_staged([&](const void* in, void* out) { comm.allgather(q, in, out, piece_bytes); }, local, piece_bytes, received, ranks * piece_bytes);
    if (!r.host_out) return enqueue_merge(q, r.local, received, ranks, 1, 1, 0, partials, r.local.out, 1);
    portable::result_slot slot(q, function);
    enqueue_merge(q, r.local, received, ranks, 1, 1, 0, partials, slot.device(), 1);
    return slot.read(r.host_out, value_bytes);
  }
  if (!scatter) return enqueue_merge(q, r.local, local, 1, results, results, 0, partials, r.local.out, r.local.out_stride);  // one rank
  // Reduce-scatter: block j of every rank's results to rank j, which merges them in rank order.
  if (on_device) comm.alltoall(q, local, received, block * piece_bytes);
  else host_staged([&](const void* in, void* out) { comm.alltoall(q, in, out, block * piece_bytes); }, local, padded * piece_bytes, received,
                   padded * piece_bytes);
  // Straight into the caller's output when it is contiguous and the blocks tile it exactly.
  request as_values = r.local;  // the merged values are the operator's results: they copy as one-piece merges
  as_values.opt.det = determinism::run_to_run;
  const bool in_place = r.local.out_stride == 1 && padded == results && on_device;
  unsigned char* merged = in_place ? static_cast<unsigned char*>(r.local.out) : values;
  // Only the block's results merge: its padding holds whatever the workspace held (no partial's
  // state, perhaps), and no merge reads the padding of the gathered values either.
  const std::size_t first_result = std::min(results, me * block), owned = std::min(block, results - first_result);
  enqueue_merge(q, r.local, received, ranks, block, owned, 0, partials, merged + first_result * value_bytes, 1);
  if (on_device) comm.allgather(q, merged + me * block * value_bytes, merged, block * value_bytes);
  else host_staged([&](const void* in, void* out) { comm.allgather(q, in, out, block * value_bytes); }, merged + me * block * value_bytes,
                   block * value_bytes, merged, padded * value_bytes);
  if (!in_place) enqueue_merge(q, as_values, merged, 1, results, results, 0, false, r.local.out, r.local.out_stride);
}

}  // namespace detail
}  // namespace preduce
