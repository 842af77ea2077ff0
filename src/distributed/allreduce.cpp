// SPDX-License-Identifier: Apache-2.0
// preduce: the distributed calls (distributed.hpp), the same for every backend and engine. One
// call: each rank checks its arguments and starts its local reduction into preduce's workspace;
// the ranks agree on verdicts and on the call (communicator::agree); the local results (arg
// indices made global) or reproducible partials are exchanged (whole arrays: gathered; rows and
// columns: a reduce-scatter and an allgather; reproducible sums of rows and columns as a
// one-byte level code and three int64 bins, met by max and integer sums) and merged in rank
// order (detail/merge.hpp's steps, run by the backend's Engine::for_each), or, under
// determinism::fast, summed by the engine; sums of rows and columns go in one step where the
// engine adds in rank order itself, or the compact binned sums itself (communicator::ordered_sum
// and binned_sum: the NCCL adapter's symmetric path). docs/distributed.md has the design and its
// measurements.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <preduce/detail/merge.hpp>
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
  std::vector<unsigned char> staged_in, staged_out;  // host copies of an exchange through host memory; grown, never shrunk
};

}  // namespace detail

communicator::communicator() : state_(new detail::distributed_state) {}
communicator::~communicator() = default;
bool communicator::ordered_sum(const queue&, const void*, void*, std::size_t, std::size_t, element) { return false; }
bool communicator::binned_sum(const queue&, const std::uint8_t*, const std::int64_t*, void*, std::size_t, std::size_t, element, std::uint64_t) {
  return false;
}

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

//! `like` (the call's local request) made into one of the call's internal steps.
request step_of(const request& like, shape layout, const void* x, const void* y, std::size_t n, std::size_t results, bool partial, void* out,
                std::size_t out_stride) {
  request m = like;
  m.layout = layout;
  m.x = x;
  m.y = y;
  m.n = n;
  m.results = results;
  m.partial = partial;
  m.out = out;
  m.out_stride = out_stride;
  return m;
}

//! Enqueues the merged request: out[t * out_stride] for t < results = the merge of `count`
//! pieces' results at pieces (piece k's result t at pieces[k * stride + t]), arg indices shifted
//! by `shift`.
void enqueue_merge(const queue& q, const request& like, const void* pieces, std::size_t count, std::size_t stride, std::size_t results,
                   std::uint64_t shift, bool partials, void* out, std::size_t out_stride) {
  request m = step_of(like, shape::merged, pieces, nullptr, count, results, partials, out, out_stride);
  m.cols = stride;
  m.index_shift = shift;
  dispatch(q, m);
}

//! Enqueues one step of the compact exchange of binned sums (shape::binned_codes, _limbs or
//! _values; detail/merge.hpp's exchange::) for `steps` lines, the first `lines` of x real.
void enqueue_exchange_step(const queue& q, const request& like, shape step, const void* x, const void* y, std::size_t lines,
                           std::size_t steps, void* out) {
  dispatch(q, step_of(like, step, x, y, lines, steps, true, out, 1));
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
  const bool summable = !partials && (r.local.op == op_id::plus || r.local.op == op_id::sum_of_squares || r.local.op == op_id::dot) &&
                        (r.local.acc == dtype::f32 || r.local.acc == dtype::f64);
  const bool native = r.local.opt.det == determinism::fast && summable;
  const std::size_t piece_bytes = !partials ? r.local.result_bytes : r.local.op == op_id::moments ? moments_partial_bytes : sum_partial_bytes;
  const std::size_t value_bytes = r.local.result_bytes;
  // Vectors travel as a reduce-scatter and an allgather: rank j merges block j (`block` results,
  // the last blocks shorter or empty) of every rank's results, then every rank gathers the
  // merged blocks. The buffers hold ranks * block results, the last ones a padding that travels
  // but is never merged.
  const bool scatter = !whole && !native && ranks > 1;
  const std::size_t block = (results + ranks - 1) / ranks, padded = scatter ? ranks * block : results;

  // Binned sums of rows and columns cross in the compact form (one-byte codes and int64 bins,
  // detail/merge.hpp's exchange::) while every line holds fewer than terms_limit / 2 elements (a
  // double product is two terms). This rank's lines hold r.extent; the ranks' together, known
  // after the agreement, decide: a rank that wrote the compact form then redoes whole partials.
  const bool binned_sums = scatter && partials && r.local.op != op_id::moments;
  auto fits_compact = [](std::uint64_t length) { return length < exchange::terms_limit / 2; };
  const bool wrote_compact = binned_sums && fits_compact(r.extent);
  const std::size_t codes_bytes = (padded + 15) / 16 * 16;  // then the int64 bins, 16-byte aligned (the engines copy granules)

  unsigned char* local = nullptr;  // this rank's results (or partials, or codes and bins), `padded` of them
  // This rank's local request: its results (partials) into `local`; compact: codes there, bins at `limbs`.
  auto local_piece = [&](void* limbs) {
    request piece = r.local;
    piece.partial = partials;
    piece.result_bytes = piece_bytes;
    piece.results = results;
    piece.out = local;
    piece.out_stride = 1;
    piece.limbs = limbs;
    return piece;
  };

  // A rank's own refusal, as every rank reports it: its message, naming the rank.
  auto refused = [&](const error& e) {
    std::string message = e.what();
    const std::string prefix = "preduce: ";
    if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
    return error(e.code(), message + " (rank " + std::to_string(me) + "; no rank wrote its output)");
  };

  // One rank: the single-device call itself, which has every mode's bits; nothing to agree on
  // or exchange. (Through partials and a merge, a reproducible allreduce_columns of 4 x 2^26
  // floats on one H200 took 2.2x the local reduce_columns: bench/results/h200-cuda-dist-1-*.)
  if (ranks == 1) {
    try {
      validate(q, r.local);
    } catch (const error& e) {
      throw refused(e);
    }
    if (whole && r.host_out) return dispatch_to_host(q, r.local, r.host_out);
    if (r.local.results > 0) dispatch(q, r.local);
    return;
  }

  // 1. This rank's verdict on its arguments, and its local reduction where they are fine.
  std::int64_t mine[words] = {0, fingerprint_of(r), std::int64_t(r.extent)};
  std::optional<error> mine_refused;
  unsigned char* received = nullptr;  // whole: every rank's result; vectors: every rank's block `me`
  unsigned char* values = nullptr;    // vectors: the merged blocks, `padded` values
  try {
    validate(q, r.local);
    const std::size_t exchanged = whole ? ranks * piece_bytes : padded * piece_bytes;
    local = workspace(st, q, padded * piece_bytes + exchanged + (scatter ? padded * value_bytes : 0));
    received = local + padded * piece_bytes;
    values = received + exchanged;
    // An empty piece gives identities (n == 0, or rows / columns of length 0). The compact form
    // puts the codes at local and the bins after them.
    if (results > 0) dispatch(q, local_piece(wrote_compact ? local + codes_bytes : nullptr));
  } catch (const error& e) {
    mine[verdict] = std::int64_t(e.code()) + 1;
    mine_refused = refused(e);
  }

  // 2. Every rank's verdict, call and extent; nothing has been written where a user sees it.
  std::vector<std::int64_t> all(ranks * words);
  comm.agree(mine, all.data(), words);
  for (std::size_t k = 0; k < ranks; ++k) {
    const std::int64_t v = all[k * words + verdict];
    if (v == 0) continue;
    if (k == me) throw *mine_refused;
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
    if (st.staged_in.size() < from_bytes) st.staged_in.resize(from_bytes);
    if (st.staged_out.size() < to_bytes) st.staged_out.resize(to_bytes);
    copy_to_host_bytes(q, st.staged_in.data(), from, from_bytes);
    exchange(st.staged_in.data(), st.staged_out.data());
    copy_to_device_bytes(q, to, st.staged_out.data(), to_bytes);
  };

  // 4. The exchange, and the merge in rank order into the caller's output (or, for the
  //    synchronous form, a result slot of this call).
  const auto type = r.local.acc == dtype::f64 ? communicator::element::f64 : communicator::element::f32;
  // Sums of rows and columns, where the engine adds in rank order itself (the NCCL adapter's
  // symmetric path): the merge the reduce-scatter below makes, in one step into the output.
  if (summable && !whole && ranks > 1 && on_device && comm.ordered_sum(q, local, r.local.out, results, r.local.out_stride, type)) return;
  if (native) {  // the engine's own sum; every rank then holds the same values
    const auto sum = communicator::reduction::sum;
    if (on_device && !r.host_out && r.local.out_stride == 1) return comm.allreduce(q, local, r.local.out, results, type, sum);
    if (on_device) comm.allreduce(q, local, local, results, type, sum);
    else host_staged([&](const void* in, void* out) { comm.allreduce(q, in, out, results, type, sum); }, local, results * piece_bytes, local,
                     results * piece_bytes);
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
  // The merged blocks go straight into the caller's output when it is contiguous and the blocks
  // tile it exactly.
  request as_values = r.local;  // the merged values are the operator's results: they copy as one-piece merges
  as_values.opt.det = determinism::run_to_run;
  const bool in_place = r.local.out_stride == 1 && padded == results && on_device;
  unsigned char* merged = in_place ? static_cast<unsigned char*>(r.local.out) : values;
  // Only the block's results merge: its padding holds whatever the workspace held (no partial's
  // state, perhaps), and no merge reads the padding of the gathered values either.
  const std::size_t first_result = std::min(results, me * block), owned = std::min(block, results - first_result);
  std::uint64_t line_length = 0, longest = 0;  // the joined axis: every line's length, and its longest piece on a rank
  for (std::size_t k = 0; k < ranks; ++k) {
    line_length += std::uint64_t(all[k * words + extent]);
    longest = std::max(longest, std::uint64_t(all[k * words + extent]));
  }
  if (binned_sums && fits_compact(line_length)) {
    // In one step where the engine can (the NCCL adapter's symmetric path); the values are floats
    // or doubles, and no rank's line holds more than twice its longest extent in terms.
    const auto value_type = value_bytes == sizeof(double) ? communicator::element::f64 : communicator::element::f32;
    if (on_device && comm.binned_sum(q, local, reinterpret_cast<const std::int64_t*>(local + codes_bytes), r.local.out, results,
                                     r.local.out_stride, value_type, 2 * longest))
      return;
    // Else the codes' max (every line's common level), the bins moved to it in place, their sums
    // scattered (rank j gets block j's), rounded by the block's owner. Workspace: this rank's
    // codes and bins in `local`; the common codes and the summed block in `received`.
    const auto* own = local;
    auto* limbs = reinterpret_cast<std::int64_t*>(local + codes_bytes);
    unsigned char* common = received;
    auto* summed = reinterpret_cast<std::int64_t*>(received + codes_bytes);
    const std::size_t limb_bytes = binned::folds * sizeof(std::int64_t);
    const auto max = communicator::reduction::max;
    if (on_device) comm.allreduce(q, own, common, padded, communicator::element::u8, max);
    else host_staged([&](const void* in, void* out) { comm.allreduce(q, in, out, padded, communicator::element::u8, max); }, own, padded, common,
                     padded);
    enqueue_exchange_step(q, r.local, shape::binned_align, own, common, results, padded, limbs);
    if (on_device) comm.reduce_scatter(q, limbs, summed, binned::folds * block, communicator::element::i64);
    else host_staged([&](const void* in, void* out) { comm.reduce_scatter(q, in, out, binned::folds * block, communicator::element::i64); }, limbs,
                     padded * limb_bytes, summed, block * limb_bytes);
    enqueue_exchange_step(q, r.local, shape::binned_values, summed, common + first_result, owned, owned, merged + first_result * value_bytes);
  } else {
    if (wrote_compact) dispatch(q, local_piece(nullptr));  // the lines are too long for int64 bins after all: whole partials
    // Reduce-scatter: block j of every rank's results to rank j, which merges them in rank order.
    if (on_device) comm.alltoall(q, local, received, block * piece_bytes);
    else host_staged([&](const void* in, void* out) { comm.alltoall(q, in, out, block * piece_bytes); }, local, padded * piece_bytes, received,
                     padded * piece_bytes);
    enqueue_merge(q, r.local, received, ranks, block, owned, 0, partials, merged + first_result * value_bytes, 1);
  }
  if (on_device) comm.allgather(q, merged + me * block * value_bytes, merged, block * value_bytes);
  else host_staged([&](const void* in, void* out) { comm.allgather(q, in, out, block * value_bytes); }, merged + me * block * value_bytes,
                   block * value_bytes, merged, padded * value_bytes);
  if (!in_place) enqueue_merge(q, as_values, merged, 1, results, results, 0, false, r.local.out, r.local.out_stride);
}

}  // namespace detail
}  // namespace preduce
