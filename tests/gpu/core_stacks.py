#!/usr/bin/env python3
"""What a crashed or hung program's core shows, where no gdb is installed.

  tests/gpu/core_stacks.py CORE [--cut OUT]

Prints the signal and, for each thread, its instruction pointer and the
words on its stack (32 KiB from the stack pointer) that point into an
executable mapping of a file: return addresses, among a few stale ones, as
FILE+OFFSET.  Read the collector's with `addr2line -f -i -e
build/libsmtop-inject.so OFFSET` against the same build.  --cut writes
the core cut to its notes and the memory near each stack pointer: a CUDA
program's core is hundreds of MiB, the cut one a few.

For a hang: `ulimit -c unlimited`, then SIGABRT to the program.  x86-64
ELF cores only (the H200's host).
"""
import struct
import sys

PT_LOAD, PT_NOTE, PF_X = 1, 4, 1
NT_PRSTATUS, NT_SIGINFO, NT_FILE = 1, 0x53494749, 0x46494C45
REGS = ("r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss "
        "fs_base gs_base ds es fs gs").split()
PRSTATUS_REG_OFFSET = 112  # struct elf_prstatus on x86-64
STACK_SCAN = 32768
CUT_BELOW, CUT_ABOVE = 65536, 262144


class Core:
    def __init__(self, data):
        if data[:4] != b"\x7fELF" or data[4] != 2 or struct.unpack_from("<H", data, 16)[0] != 4:
            raise ValueError("not a 64-bit ELF core")
        self.data = data
        phoff, = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        self.phdrs = [list(struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize))
                      for i in range(phnum)]
        self.threads, self.files, self.siginfo = [], [], None
        for p in self.phdrs:
            if p[0] == PT_NOTE:
                self._read_notes(p[2], p[2] + p[5])

    def _read_notes(self, off, end):
        d = self.data
        while off + 12 <= end:
            namesz, descsz, kind = struct.unpack_from("<III", d, off)
            desc_off = off + 12 + ((namesz + 3) & ~3)
            desc = d[desc_off:desc_off + descsz]
            off = desc_off + ((descsz + 3) & ~3)
            if kind == NT_PRSTATUS:
                self._add_thread(desc)
            elif kind == NT_SIGINFO:
                signo, _, code, _, addr = struct.unpack_from("<iiiiQ", desc, 0)
                self.siginfo = (signo, code, addr)
            elif kind == NT_FILE:
                self._read_files(desc)

    def _add_thread(self, desc):
        sig, = struct.unpack_from("<h", desc, 12)
        tid, = struct.unpack_from("<i", desc, 32)
        regs = dict(zip(REGS, struct.unpack_from("<27Q", desc, PRSTATUS_REG_OFFSET)))
        self.threads.append((tid, sig, regs))

    def _read_files(self, desc):
        count, page = struct.unpack_from("<QQ", desc, 0)
        names = desc[16 + 24 * count:].split(b"\0")
        for i in range(count):
            start, end, pgoff = struct.unpack_from("<QQQ", desc, 16 + 24 * i)
            self.files.append((start, end, pgoff * page, names[i].decode(errors="replace")))

    def where(self, addr):
        for start, end, off, name in self.files:
            if start <= addr < end:
                return "%s+0x%x" % (name, addr - start + off)
        return None

    def executable(self, addr):
        return any(p[0] == PT_LOAD and p[1] & PF_X and p[3] <= addr < p[3] + p[6] for p in self.phdrs)

    def memory(self, addr, n):
        for p in self.phdrs:
            if p[0] == PT_LOAD and p[3] <= addr < p[3] + p[5]:
                k = addr - p[3]
                return self.data[p[2] + k:p[2] + min(k + n, p[5])]
        return b""

    def code_words(self, rsp):
        """(offset from rsp, word, FILE+OFFSET) of the words pointing into code."""
        stack = self.memory(rsp, STACK_SCAN)
        for k in range(0, len(stack) - 7, 8):
            word, = struct.unpack_from("<Q", stack, k)
            if self.executable(word):
                at = self.where(word)
                if at:
                    yield k, word, at

    def cut(self):
        """The core with only its notes and the memory near each stack."""
        keep = [(r["rsp"] - CUT_BELOW, r["rsp"] + CUT_ABOVE) for _, _, r in self.threads]
        header = bytearray(self.data[:0x40])
        struct.pack_into("<Q", header, 0x20, 0x40)
        struct.pack_into("<H", header, 0x36, 56)
        body, phdrs = bytearray(), []
        at = 0x40 + 56 * len(self.phdrs)
        for p in self.phdrs:
            q = list(p)
            lo, hi = p[3], p[3] + p[6]
            wanted = p[0] == PT_NOTE or (p[0] == PT_LOAD and any(a < hi and b > lo for a, b in keep))
            q[2] = at + len(body)
            if wanted:
                body += self.data[p[2]:p[2] + p[5]]
            else:
                q[5] = 0
            phdrs.append(q)
        for q in phdrs:
            header += struct.pack("<IIQQQQQQ", *q)
        return bytes(header + body)


def report(core):
    if core.siginfo:
        signo, code, addr = core.siginfo
        print("signal %d (code %d) at 0x%x" % (signo, code, addr))
    for i, (tid, sig, r) in enumerate(core.threads):
        print("thread %d: tid %d, signal %d, rip 0x%x %s, rsp 0x%x"
              % (i, tid, sig, r["rip"], core.where(r["rip"]) or "(no file)", r["rsp"]))
    for i, (tid, _, r) in enumerate(core.threads):
        print("== thread %d (tid %d): stack words that point into code" % (i, tid))
        for k, word, at in core.code_words(r["rsp"]):
            print("  rsp+0x%04x 0x%x %s" % (k, word, at))


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--cut"):
        print("usage: core_stacks.py CORE [--cut OUT]", file=sys.stderr)
        return 2
    try:
        with open(argv[1], "rb") as f:
            core = Core(f.read())
    except (OSError, ValueError, struct.error) as e:
        print("core_stacks.py: %s: %s" % (argv[1], e), file=sys.stderr)
        return 1
    if len(argv) == 4:
        with open(argv[3], "wb") as f:
            f.write(core.cut())
    report(core)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
