/* The sanitizer's memory calls on host memory, for the entry drain
 * (collectors/entries.c) and the block lanes (collectors/blocks.c) without
 * a GPU: "device" memory is malloc'd, a copy is a memcpy, a sync does
 * nothing, a stream is its own handle and a context's number is its
 * handle's value.  A test or benchmark writes
 * entries into a launch's memory as the entry patch would. */
#ifndef SMTOP_TESTS_FAKE_DEVICE_H
#define SMTOP_TESTS_FAKE_DEVICE_H

#include "collectors/blocks.h"
#include "src/core/smtop_trace_abi.h"

extern const struct blocks_host fake_device_mem;

/* Where the last launch's entries go: set by fake_device_set_data, the
 * entry drain's set_data hook (collectors/entries.h), for the caller to
 * write them as the entry patch would. */
extern struct smtop_entry *fake_device_launch_data;

int fake_device_set_data(void *launch, CUfunction f, void *stream, const void *data);

#endif
