// SPDX-License-Identifier: Apache-2.0
// preduce: what a queue lends to one call at a time, so that any number of host threads may call
// on one queue at once: slots (the synchronous forms' result, a segment call's offset verdict)
// that belong to one call from when it takes them to when it gives them back, and the verdicts
// that device-side checks leave for a later synchronizing call, each kept for the thread whose
// call made it. Host code only; each backend allocates the slots' memory its own way and guards
// these structures with its queue's mutex (neither is thread-safe alone).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "segment_offsets.hpp"

namespace preduce {
namespace portable {

//! Fixed-size slots carved out of blocks the backend allocates. Blocks are never moved or freed
//! while the pool lives, so a slot's address stays valid for work still in flight or captured in
//! a CUDA graph. Slot i lives in block i / slots_per_block.
class slot_pool {
 public:
  static constexpr std::uint32_t none = ~std::uint32_t(0);

  slot_pool(std::size_t slot_bytes, std::uint32_t slots_per_block) : slot_bytes_(slot_bytes), per_block_(slots_per_block) {}

  std::size_t slot_bytes() const noexcept { return slot_bytes_; }
  std::uint32_t slots_per_block() const noexcept { return per_block_; }
  //! Bytes of the block add_block takes.
  std::size_t block_bytes() const noexcept { return slot_bytes_ * per_block_; }
  std::size_t blocks() const noexcept { return blocks_.size(); }
  //! Slots given out and not given back.
  std::size_t taken() const noexcept { return blocks_.size() * per_block_ - free_.size(); }

  //! A free slot, or `none` when every slot is taken (then add_block and take again).
  std::uint32_t take() {
    if (free_.empty()) return none;
    const std::uint32_t i = free_.back();
    free_.pop_back();
    return i;
  }
  void give_back(std::uint32_t i) { free_.push_back(i); }

  //! Adds a block of block_bytes() bytes at `base` (and at `mirror`, a host copy of the block a
  //! backend reads slots through, or null); its slots become free.
  void add_block(unsigned char* base, unsigned char* mirror = nullptr) {
    const std::uint32_t first = std::uint32_t(blocks_.size()) * per_block_;
    blocks_.push_back({base, mirror});
    for (std::uint32_t k = per_block_; k-- > 0;) free_.push_back(first + k);
  }

  //! Slot i in the block's memory, and in its mirror.
  unsigned char* at(std::uint32_t i) const noexcept { return blocks_[i / per_block_].base + (i % per_block_) * slot_bytes_; }
  unsigned char* mirror_at(std::uint32_t i) const noexcept { return blocks_[i / per_block_].mirror + (i % per_block_) * slot_bytes_; }
  //! Block b's memory and mirror.
  unsigned char* block(std::size_t b) const noexcept { return blocks_[b].base; }
  unsigned char* block_mirror(std::size_t b) const noexcept { return blocks_[b].mirror; }

 private:
  struct block_memory {
    unsigned char* base;
    unsigned char* mirror;
  };
  std::size_t slot_bytes_;
  std::uint32_t per_block_;
  std::vector<block_memory> blocks_;
  std::vector<std::uint32_t> free_;
};

//! Verdicts of device-side offset checks not yet delivered. Every call that checks offsets on the
//! device takes a status slot of its own and is entered here with the thread that made it and its
//! place in the queue's order. A synchronizing call takes the entries due to its thread: its own,
//! and those of calls captured in a graph (which belong to whoever replays the graph, so they
//! stay entered and are looked at on every synchronizing call).
class verdict_book {
 public:
  struct entry {
    std::uint32_t slot;
    std::uint64_t order;  //!< the call's place among the queue's calls
    std::thread::id owner;
    bool captured;
  };

  void add(std::uint32_t slot, bool captured) { pending_.push_back({slot, next_order_++, std::this_thread::get_id(), captured}); }
  std::size_t pending() const noexcept { return pending_.size(); }
  //! Whether a synchronizing call on this thread has anything to look at.
  bool any_due() const {
    const auto me = std::this_thread::get_id();
    return std::any_of(pending_.begin(), pending_.end(), [&](const entry& e) { return e.captured || e.owner == me; });
  }
  //! This thread's entries, removed, and the captured ones, kept; in the queue's order.
  std::vector<entry> take_due() {
    const auto me = std::this_thread::get_id();
    std::vector<entry> due;
    std::vector<entry> rest;
    for (const entry& e : pending_) {
      if (e.captured || e.owner == me) due.push_back(e);
      if (e.captured || e.owner != me) rest.push_back(e);
    }
    pending_.swap(rest);
    return due;
  }
  //! Every entry of a call that is not captured, removed (for a queue that reclaims the slots of
  //! calls whose verdicts were clean once it has waited for them); bad ones go back with add_back.
  std::vector<entry> take_uncaptured() {
    std::vector<entry> taken;
    std::vector<entry> rest;
    for (const entry& e : pending_) (e.captured ? rest : taken).push_back(e);
    pending_.swap(rest);
    return taken;
  }
  //! Enters e again as it was (its owner and order kept).
  void add_back(const entry& e) {
    pending_.insert(std::upper_bound(pending_.begin(), pending_.end(), e, [](const entry& a, const entry& b) { return a.order < b.order; }), e);
  }

 private:
  std::vector<entry> pending_;  // in order
  std::uint64_t next_order_ = 0;
};


//! A status slot with no bad offset in it (Queue::bad_position's "fine").
inline constexpr std::uint64_t no_verdict = ~std::uint64_t(0);

namespace detail_verdicts {
//! The blocks of `pool` that hold the entries' slots, each once.
inline std::vector<std::size_t> blocks_of(const slot_pool& pool, const std::vector<verdict_book::entry>& entries) {
  std::vector<std::size_t> blocks;
  for (const auto& e : entries) blocks.push_back(e.slot / pool.slots_per_block());
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  return blocks;
}
}  // namespace detail_verdicts

//! What a synchronizing call does, once the queue's work up to it has finished, with the
//! verdicts due to its thread (verdict_book::take_due): reads their slots, clears the bad ones,
//! gives this thread's slots back, and throws errc::bad_offsets for the first bad one in the
//! queue's order (the same position and words on every backend: segment_offsets.hpp). All of it
//! holds the queue's mutex, as the pools' tables may grow under another thread's call; the
//! reads happen only where this thread has verdicts due. Queue is a backend's queue_state with
//! `mutex`, `statuses`, `verdicts` and the verdict policy read_status_blocks(blocks) (copies the
//! blocks to their mirrors and waits), bad_position(slot) (from the mirror, or no_verdict) and
//! clear_status_slots(slots).
template <class Queue>
void deliver_verdicts(Queue& s) {
  std::uint64_t first_bad = no_verdict;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.verdicts.any_due()) return;
    const std::vector<verdict_book::entry> due = s.verdicts.take_due();
    s.read_status_blocks(detail_verdicts::blocks_of(s.statuses, due));
    std::vector<std::uint32_t> bad_slots;
    for (const auto& e : due) {
      const std::uint64_t position = s.bad_position(e.slot);
      if (position != no_verdict) {
        bad_slots.push_back(e.slot);
        if (first_bad == no_verdict) first_bad = position;
      }
    }
    if (!bad_slots.empty()) s.clear_status_slots(bad_slots);
    for (const auto& e : due)
      if (!e.captured) s.statuses.give_back(e.slot);
  }
  if (first_bad != no_verdict) throw error(errc::bad_offsets, bad_offsets_message(first_bad));
}

//! Calls that never synchronize must not hold status slots forever: when `statuses` has no free
//! slot and at least `reclaim_threshold` verdicts wait, a queue whose stream is not capturing
//! waits for its work (wait(); the caller holds `mutex`, so nothing new reaches the stream),
//! reads every pending verdict, and frees the slots of the clean ones (the bad ones stay for
//! their threads). Returns whether it waited.
inline constexpr std::size_t reclaim_threshold = 4096;
template <class Queue, class Wait>
bool reclaim_clean_verdicts(Queue& s, Wait&& wait) {
  if (s.verdicts.pending() < reclaim_threshold) return false;
  wait();
  auto taken = s.verdicts.take_uncaptured();
  s.read_status_blocks(detail_verdicts::blocks_of(s.statuses, taken));
  for (const auto& e : taken) {
    if (s.bad_position(e.slot) == no_verdict) s.statuses.give_back(e.slot);
    else s.verdicts.add_back(e);
  }
  return true;
}

}  // namespace portable
}  // namespace preduce
