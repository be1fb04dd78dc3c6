/* The sanitizer's memory calls on host memory, for the entry drain
 * (collectors/entries.c) and the block lanes (collectors/blocks.c) without
 * a GPU: "device" memory is malloc'd, a copy is a memcpy, a sync does
 * nothing, a stream is its own handle and a context's number is its
 * handle's value.  A test or benchmark writes
 * entries into a launch's memory as the entry patch would. */
#ifndef SMTOP_TESTS_FAKE_DEVICE_H
#define SMTOP_TESTS_FAKE_DEVICE_H

#include "collectors/blocks.h"

extern const struct blocks_host fake_device_mem;

#endif
