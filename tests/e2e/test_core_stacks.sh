#!/bin/sh
# tests/gpu/core_stacks.py, which reads a crashed program's core on the GPU
# machine (no gdb there), on a core made to order (tests/e2e/make_core.py).
. tests/e2e/lib.sh
C=$E2E_TMP/fake.core
python3 tests/e2e/make_core.py "$C"
out=$(python3 tests/gpu/core_stacks.py "$C" --cut "$E2E_TMP/cut.core")
check "the signal and its address" contains "$out" "signal 11 (code 1) at 0x191"
check "the crashed thread's rip in no file" contains "$out" "thread 0: tid 101, signal 11, rip 0x191 (no file), rsp 0x7ff800"
check "the other thread's rip as file+offset, from its file page" contains "$out" "rip 0x400010 /lib/libfake.so+0x1010"
check "a return address on the stack, as file+offset" contains "$out" "rsp+0x0010 0x400123 /lib/libfake.so+0x1123"
check "a pointer into data is not listed" lacks "$out" "/bin/prog"
cut=$(python3 tests/gpu/core_stacks.py "$E2E_TMP/cut.core")
check "the cut core reads the same" [ "$cut" = "$out" ]
size=$(wc -c < "$E2E_TMP/cut.core")
check "the cut core leaves the far heap out ($size bytes)" [ "$size" -lt 65536 ]
err=$(python3 tests/gpu/core_stacks.py tests/e2e/lib.sh 2>&1)
rc=$?
check "not a core: one line naming the file ($err)" contains "$err" "core_stacks.py: tests/e2e/lib.sh: not a 64-bit ELF core"
check "and exit status 1" [ $rc -eq 1 ]
e2e_done
