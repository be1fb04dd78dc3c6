#!/usr/bin/env python3
"""make_core.py OUT: a small x86-64 ELF core for tests/gpu/core_stacks.py.

Thread 101 took SIGSEGV calling 0x191; its stack holds a return address
into /lib/libfake.so's code (mapped from file page 1), a pointer into
/bin/prog's data (not code) and a plain number.  Thread 102 waits in the library.  A
1 MiB heap lies far from both stacks, for the cut to leave out.
"""
import struct
import sys

PAGE = 4096
STACK0, STACK1, HEAP = 0x7FF000, 0x7F0000, 0x10000000
RSP0, RSP1 = STACK0 + 0x800, STACK1 + 0x100
REGS = 27


def note(kind, name, desc):
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(name) + 1, len(desc), kind) + pad(name + b"\0") + pad(desc)


def prstatus(tid, sig, rip, rsp):
    regs = [0] * REGS
    regs[16], regs[19] = rip, rsp  # rip, rsp in user_regs_struct
    desc = bytearray(336)
    struct.pack_into("<h", desc, 12, sig)
    struct.pack_into("<i", desc, 32, tid)
    struct.pack_into("<%dQ" % REGS, desc, 112, *regs)
    return note(1, b"CORE", bytes(desc))


def nt_file(maps):
    head = struct.pack("<QQ", len(maps), PAGE)
    head += b"".join(struct.pack("<QQQ", a, b, off) for a, b, off, _ in maps)
    return note(0x46494C45, b"CORE", head + b"".join(n + b"\0" for *_, n in maps))


def main(out):
    maps = [(0x400000, 0x402000, 1, b"/lib/libfake.so"), (0x500000, 0x501000, 0, b"/bin/prog")]
    notes = (prstatus(101, 11, 0x191, RSP0) + prstatus(102, 11, 0x400010, RSP1)
             + note(0x53494749, b"CORE", struct.pack("<iiiiQ", 11, 0, 1, 0, 0x191) + bytes(112))
             + nt_file(maps))
    stack0 = bytearray(PAGE)
    struct.pack_into("<QQQ", stack0, 0x810, 0x400123, 0x500010, 12345)
    segments = [  # type, flags, vaddr, data, memsz
        (4, 0, 0, notes, 0),
        (1, 5, 0x400000, b"", 0x2000),  # code: a core leaves what a file holds out
        (1, 4, 0x500000, b"", 0x1000),
        (1, 6, STACK0, bytes(stack0), PAGE),
        (1, 6, STACK1, bytes(PAGE), PAGE),
        (1, 6, HEAP, bytes(1 << 20), 1 << 20),
    ]
    ehdr = bytearray(64)
    ehdr[:7] = b"\x7fELF\x02\x01\x01"
    struct.pack_into("<HHIQQQIHHHHHH", ehdr, 16, 4, 62, 1, 0, 64, 0, 0, 64, 56, len(segments), 0, 0, 0)
    at, phdrs, body = 64 + 56 * len(segments), b"", b""
    for kind, flags, vaddr, data, memsz in segments:
        phdrs += struct.pack("<IIQQQQQQ", kind, flags, at + len(body), vaddr, 0, len(data), memsz or len(data), 1)
        body += data
    with open(out, "wb") as f:
        f.write(bytes(ehdr) + phdrs + body)


if __name__ == "__main__":
    main(sys.argv[1])
