// The board of the vHTP's multi-device ownership checker (mdev-check.h; docs/vhtp.md "The DSP
// processes"): what the members of a device group tell each other across processes. One per
// host process: the host's memfd, mapped by every DSP process (or an anonymous one when the
// sessions run in one process). Per group, per member: the merged writes it signalled for its
// last few barriers (the ownership check), and a ring of its writes as they happen (the stale
// marks a peer in another process imports). mdev-check.cpp decides what to record and when;
// this file keeps the records.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

#include "htp-abi/htp-abi.h"

namespace vhtp {

struct core;
struct board_group;  // a group's entry on the board

// A byte range a member wrote of a file (a shared DDR buffer), and how.
enum : uint8_t { kViaDma = 1, kViaL2 = 2 };

struct file_range {
    dev_t    dev;
    ino_t    ino;
    uint64_t begin, end;
    uint8_t  via = kViaDma;  // how the member wrote it (merged ranges: both bits may be set)

    bool operator<(const file_range & o) const {
        return std::tie(dev, ino, begin, end) < std::tie(o.dev, o.ino, o.begin, o.end);
    }
};

// Sorts v and merges its touching or overlapping ranges of one file.
void file_ranges_merge(std::vector<file_range> & v);

// Joins the group named by its fence buffer's file (dev, ino) and slot 0's offset as member idx
// (takes the board's lock); its entry, with the entry's generation (it changes when the entry
// goes to another group) and each member's ring head now in heads (older records are not the
// joiner's to mark). nullptr without a board.
board_group * mdev_board_join(dev_t dev, ino_t ino, uint64_t slot0, uint32_t idx, uint64_t * gen,
                              uint64_t heads[HTP_MDEV_MAX]);

// Member idx wrote rows of file (dev, ino): a record in its ring, for peers in other processes.
void mdev_board_append(board_group * g, uint32_t idx, dev_t dev, ino_t ino, uint64_t offset, uint32_t row_size,
                       uint32_t stride, uint32_t nrows);

// Member idx of count signalled barrier seq having written `mine` (sorted, merged): publishes
// it under the board's lock and compares it with the peers' lists of the same barrier, so that
// whichever of two members signals last finds the overlap. True with the first overlap in *hit
// (hit->via: the member's way in bits 0-1, the peer's in bits 2-3) and the peer in *peer.
bool mdev_board_publish(board_group * g, uint32_t idx, uint32_t count, uint32_t seq,
                        const std::vector<file_range> & mine, file_range * hit, uint32_t * peer);

// Marks in c's L2 model the records member idx's peers in other processes appended since
// cursor[j] (advanced); the caller holds what guards cursor.
void mdev_board_import(board_group * g, uint32_t idx, uint32_t count, uint64_t cursor[HTP_MDEV_MAX], core * c);

// The host creates the board (a memfd, handed to every DSP process), a DSP process attaches
// the host's; sessions in one process without either use a private one.
bool mdev_board_create(int * fd, char * err, size_t err_len);
bool mdev_board_attach(int fd);

}  // namespace vhtp
