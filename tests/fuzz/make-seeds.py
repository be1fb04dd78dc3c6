#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses (tests/fuzz/corpus/<harness>/)
from the sessions recorded on the H200 (tests/fixtures) plus hand-made inputs.

  tests/fuzz/make-seeds.py            (from the repository root)

session/     trimmed copies of each fixture: the first few kernels, a few
             block chunks cut to a few blocks, 512-byte pages (a few KB to
             ~20 KB instead of MBs), and variants that reach other paths
             (no clock offset, a live session, a newer schema, an nsys file)
nsys/        SQL that builds an Nsight Systems export: the trimmed fixtures'
             nsys-named tables, and older export shapes
blockcodec/  chunk blobs from the fixtures cut to 1..200 blocks, and damage
cli/         command lines, arguments separated by NUL bytes
names/       kernel names of the fixtures (mangled and demangled) and odd ones
Run it again after a schema change; the harnesses' corpora grown by
`make fuzz` live in build-fuzz/corpus, not here.
"""
import os
import shutil
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from chunk_codec import decode_chunk, encode_chunk, put_varint  # noqa: E402

FIXTURES = "tests/fixtures"
OUT = "tests/fuzz/corpus"
KERNELS = 6          # kernels kept per trimmed session
CHUNKS = 3           # block chunks kept
CHUNK_BLOCKS = 12    # blocks kept per chunk
NSYS_TABLES = ["StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
               "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
               "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS", "TARGET_INFO_CUDA_STREAM",
               "TARGET_INFO_CUDA_CONTEXT_INFO", "TARGET_INFO_GPU"]


# ---- trimmed sessions ----

def tables(db):
    return [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]


def copy_rows(src, dst, table, where="", args=()):
    rows = src.execute(f'SELECT * FROM "{table}" {where}', args).fetchall()
    if rows:
        marks = ",".join("?" * len(rows[0]))
        dst.executemany(f'INSERT INTO "{table}" VALUES({marks})', rows)


# What the reader reads; a lean copy keeps only these tables and no indexes.
READ_TABLES = {"StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "TARGET_INFO_CUDA_STREAM", "TARGET_INFO_GPU",
               "smtop_meta", "smtop_process", "smtop_request", "smtop_block_chunk", "NVTX_EVENTS"}


def trim_session(src_path, dst_path, lean=False):
    """The first KERNELS kernels of src and what they need, in small pages."""
    src = sqlite3.connect(f"file:{src_path}?mode=ro", uri=True)
    if os.path.exists(dst_path):
        os.remove(dst_path)
    dst = sqlite3.connect(dst_path)
    dst.execute("PRAGMA page_size=512")
    dst.execute("PRAGMA journal_mode=DELETE")
    for sql, in src.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"
                            " AND name NOT LIKE 'sqlite_%' ORDER BY type DESC, rowid"):
        dst.execute(sql)
    kernels = src.execute("SELECT rowid, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL"
                          " ORDER BY start LIMIT ?", (KERNELS,)).fetchall()
    t0 = kernels[0][1]
    t1 = max(k[2] for k in kernels)
    copy_rows(src, dst, "CUPTI_ACTIVITY_KIND_KERNEL", "ORDER BY start LIMIT ?", (KERNELS,))
    names = set()
    for row in dst.execute("SELECT demangledName, shortName, mangledName FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        names.update(v for v in row if v is not None)
    for t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
              "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "smtop_request"):
        copy_rows(src, dst, t, "ORDER BY start LIMIT 2")
    copy_rows(src, dst, "CUPTI_ACTIVITY_KIND_RUNTIME", "ORDER BY start LIMIT 3")
    names.update(r[0] for r in dst.execute("SELECT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME"))
    copy_rows(src, dst, "StringIds", f"WHERE id IN ({','.join(map(str, names)) or 'NULL'})")
    streams = dst.execute("SELECT DISTINCT streamId FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    copy_rows(src, dst, "TARGET_INFO_CUDA_STREAM",
              f"WHERE streamId IN ({','.join(str(s[0]) for s in streams)}) OR rowid <= 2")
    for t in ("TARGET_INFO_CUDA_CONTEXT_INFO", "TARGET_INFO_GPU", "smtop_meta", "smtop_process"):
        copy_rows(src, dst, t)
    offset = src.execute("SELECT value FROM smtop_meta WHERE key='clock_offset_ns'").fetchone()
    offset = int(offset[0]) if offset else 0
    chunks = src.execute("SELECT id, globalPid, deviceId, contextId, sm, data FROM smtop_block_chunk"
                         " WHERE end > ? AND start < ? ORDER BY start LIMIT ?",
                         (t0 - offset, t1 - offset, CHUNKS)).fetchall()
    for cid, gpid, dev, ctx, sm, data in chunks:
        blocks = decode_chunk(data)[:CHUNK_BLOCKS]
        dst.execute("INSERT INTO smtop_block_chunk VALUES(?,?,?,?,?,?,?,?,?)",
                    (cid, gpid, dev, ctx, sm, min(b[0] for b in blocks), max(b[1] for b in blocks),
                     len(blocks), encode_chunk(blocks)))
    events = src.execute("SELECT id FROM smtop_events ORDER BY start LIMIT 2").fetchall() \
        if "smtop_events" in tables(src) else []
    for eid, in events:
        copy_rows(src, dst, "smtop_events", "WHERE id = ?", (eid,))
        copy_rows(src, dst, "smtop_event_culprits", "WHERE eventId = ?", (eid,))
    for pragma in ("user_version", "application_id"):
        dst.execute(f"PRAGMA {pragma}={src.execute(f'PRAGMA {pragma}').fetchone()[0]}")
    dst.commit()
    if lean:
        for t in tables(dst):
            if t not in READ_TABLES or not dst.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]:
                dst.execute(f'DROP TABLE "{t}"')
        for i, in dst.execute("SELECT name FROM sqlite_master WHERE type='index'"
                              " AND name NOT LIKE 'sqlite_%'").fetchall():
            dst.execute(f'DROP INDEX "{i}"')
        dst.commit()
    dst.execute("VACUUM")
    dst.close()
    src.close()


def variant(base, dst_path, *sql):
    shutil.copy(base, dst_path)
    db = sqlite3.connect(dst_path)
    for s in sql:
        db.execute(s)
    db.commit()
    db.execute("VACUUM")
    db.close()


NVTX_ROWS = [
    "INSERT INTO StringIds(id, value) VALUES(9001, 'train step'), (9002, 'infer')",
    "INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, domainId) VALUES"
    " (0, NULL, 75, 'torch', 0, 9003)",
    "INSERT INTO NVTX_EVENTS(start, end, eventType, color, text, globalTid, textId, domainId)"
    " SELECT min(start), max(end), 59, 4278190335, NULL, globalPid + 17, 9001, 9003"
    " FROM CUPTI_ACTIVITY_KIND_KERNEL",
    "INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, domainId)"
    " SELECT min(start), NULL, 34, 'mark', globalPid + 17, 0 FROM CUPTI_ACTIVITY_KIND_KERNEL",
]


def session_seeds(tmp):
    out = os.path.join(OUT, "session")
    trimmed = {}
    for f in sorted(os.listdir(FIXTURES)):
        if not f.endswith(".smtop"):
            continue
        name = f[:-len(".smtop")]
        trimmed[name] = os.path.join(tmp, name + ".smtop")
        trim_session(os.path.join(FIXTURES, f), trimmed[name])
        trim_session(os.path.join(FIXTURES, f), os.path.join(out, name + ".smtop"), lean=True)
    # every table and index, as recorded
    shutil.copy(trimmed["priority-vs-training"], os.path.join(out, "full-schema.smtop"))
    base = os.path.join(out, "head-of-line.smtop")
    variant(base, os.path.join(out, "no-clock-offset.smtop"),
            "DELETE FROM smtop_meta WHERE key LIKE 'clock_%'")
    variant(base, os.path.join(out, "live.smtop"),
            "UPDATE smtop_meta SET value = '0' WHERE key IN ('ended', 'ended_clean')",
            "UPDATE smtop_process SET status = 'running'")
    variant(base, os.path.join(out, "newer-schema.smtop"), "PRAGMA user_version=2")
    nvtx_table = sqlite3.connect(trimmed["smoke"]).execute(
        "SELECT sql FROM sqlite_master WHERE name = 'NVTX_EVENTS'").fetchone()[0]
    variant(os.path.join(out, "smoke.smtop"), os.path.join(out, "nvtx.smtop"), nvtx_table, *NVTX_ROWS)
    variant(os.path.join(out, "smoke.smtop"), os.path.join(out, "nsys-export.smtop"),
            "DROP TABLE smtop_meta", "DROP TABLE smtop_process", "PRAGMA application_id=0",
            "PRAGMA user_version=0")
    # the recorded two-GPU session's clock keys per device, damaged
    variant(os.path.join(out, "two-gpus.smtop"), os.path.join(out, "two-gpus-bad-clocks.smtop"),
            "UPDATE smtop_meta SET value = 'x9' WHERE key = 'clock_offset_ns.1'",
            "UPDATE smtop_meta SET value = '-9223372036854775808' WHERE key = 'clock_drift_ppb.0'",
            "INSERT OR REPLACE INTO smtop_meta(key, value) VALUES('clock_offset_ns.63', '5')")
    variant(os.path.join(out, "priority-vs-training.smtop"), os.path.join(out, "second-gpu.smtop"),
            "INSERT INTO TARGET_INFO_GPU(id, name, smCount, computeMajor, computeMinor,"
            " maxThreadsPerSm) VALUES(1, 'second', 8, 8, 0, 1536)",
            "UPDATE smtop_block_chunk SET deviceId = 1, sm = 7 WHERE id = (SELECT max(id) FROM smtop_block_chunk)")
    with open(os.path.join(out, "truncated.smtop"), "wb") as f:
        f.write(open(base, "rb").read()[:4096])
    empty = os.path.join(out, "empty-database.smtop")
    db = sqlite3.connect(empty)
    db.executescript("PRAGMA page_size=512; CREATE TABLE t(x);")
    db.close()
    return trimmed


# ---- Nsight Systems exports as SQL ----

def nsys_sql(src_path, rewrite=None):
    """SQL for the nsys-named tables of a session (rewrite may edit CREATEs)."""
    db = sqlite3.connect(f"file:{src_path}?mode=ro", uri=True)
    lines = []
    for line in db.iterdump():
        if line in ("BEGIN TRANSACTION;", "COMMIT;"):
            continue
        if line.startswith("CREATE TABLE"):
            name = line.split()[5 if "IF NOT EXISTS" in line else 2].strip('"').split("(")[0]
            keep = name in NSYS_TABLES
        elif line.startswith("INSERT INTO"):
            keep = line.split()[2].strip('"') in NSYS_TABLES
        elif line.startswith("CREATE"):
            keep = any(f"ON {t}(" in line or f'ON "{t}"' in line for t in NSYS_TABLES)
        else:
            keep = False
        if keep:
            lines.append(rewrite(line) if rewrite else line)
    db.close()
    return "\n".join(lines) + "\n"


def old_export(line):
    """An older nsys export: no smtop-only columns, no mangledName, no deviceId
    or correlationId on streams (the reader finds the device through the
    context table), a PROCESSES table."""
    for col in (" mangledName INTEGER,", " queued INTEGER, submitted INTEGER, isGraph INTEGER NOT NULL DEFAULT 0",
                ", deviceId INTEGER, correlationId INTEGER", ", maxThreadsPerSm INTEGER, globalPid INTEGER"):
        line = line.replace(col, "")
    return line.replace("sharedMemoryLimitConfig INTEGER,", "sharedMemoryLimitConfig INTEGER")


def nsys_seeds(trimmed, tmp):
    out = os.path.join(OUT, "nsys")
    for name, path in trimmed.items():
        with open(os.path.join(out, name + ".sql"), "w") as f:
            f.write(nsys_sql(path))
    # An older export shape, rebuilt with its own column lists.
    old = os.path.join(tmp, "old.smtop")
    db = sqlite3.connect(old)
    db.executescript("\n".join(l for l in nsys_sql(trimmed["smoke"], old_export).splitlines()
                               if not l.startswith("INSERT")))
    src = sqlite3.connect(f"file:{trimmed['smoke']}?mode=ro", uri=True)
    for t in NSYS_TABLES:
        cols = [r[1] for r in db.execute(f'PRAGMA table_info("{t}")')]
        if cols:
            names = ",".join(cols)
            db.executemany(f'INSERT INTO "{t}"({names}) VALUES({",".join("?" * len(cols))})',
                           src.execute(f'SELECT {names} FROM "{t}"').fetchall())
    src.close()
    db.execute("CREATE TABLE PROCESSES(globalPid INTEGER, pid INTEGER, name TEXT)")
    db.execute("INSERT INTO PROCESSES SELECT DISTINCT globalPid, globalPid >> 24, 'python3'"
               " FROM CUPTI_ACTIVITY_KIND_KERNEL")
    for s in NVTX_ROWS:
        db.execute(s)
    db.commit()
    db.close()
    with open(os.path.join(out, "older-export.sql"), "w") as f:
        f.write("\n".join(l for l in sqlite3.connect(old).iterdump()
                          if l not in ("BEGIN TRANSACTION;", "COMMIT;")) + "\n")
    # Hand-made: priorities stored unsigned, NULLs where nsys may leave them.
    with open(os.path.join(out, "minimal.sql"), "w") as f:
        f.write("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);\n"
                "INSERT INTO StringIds VALUES(1,'k');\n"
                "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
                " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
                " demangledName INTEGER, shortName INTEGER, registersPerThread INTEGER, gridX INTEGER,"
                " gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER,"
                " staticSharedMemory INTEGER, dynamicSharedMemory INTEGER, localMemoryPerThread INTEGER,"
                " gridId INTEGER, launchType INTEGER);\n"
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000,5000,0,1,7,1,16777216,1,1,32,4,1,1,"
                "128,1,1,0,0,0,1,NULL);\n"
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(2000,9000,0,1,13,2,16777216,1,1,32,264,1,1,"
                "256,1,1,0,0,0,2,0);\n"
                "CREATE TABLE TARGET_INFO_CUDA_STREAM(streamId INTEGER, hwId INTEGER, vmId INTEGER,"
                " processId INTEGER, contextId INTEGER, priority INTEGER, flag INTEGER);\n"
                "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(7,0,0,1,1,4294967291,1);\n"
                "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(13,0,0,1,1,0,NULL);\n"
                "CREATE TABLE TARGET_INFO_GPU(id INTEGER, name TEXT, smCount INTEGER,"
                " computeMajor INTEGER, computeMinor INTEGER);\n"
                "INSERT INTO TARGET_INFO_GPU VALUES(0,'NVIDIA H200',132,9,0);\n")


# ---- block chunks ----

def blockcodec_seeds():
    out = os.path.join(OUT, "blockcodec")
    for f in ("smoke", "head-of-line", "priority-vs-training"):
        db = sqlite3.connect(f"file:{FIXTURES}/{f}.smtop?mode=ro", uri=True)
        small = db.execute("SELECT data FROM smtop_block_chunk ORDER BY count LIMIT 1").fetchone()[0]
        big = db.execute("SELECT data FROM smtop_block_chunk ORDER BY count DESC LIMIT 1").fetchone()[0]
        db.close()
        with open(os.path.join(out, f"{f}-smallest.bin"), "wb") as o:
            o.write(small)
        blocks = decode_chunk(big)
        for n in (1, 5, 40, 200):
            with open(os.path.join(out, f"{f}-{n}.bin"), "wb") as o:
                o.write(encode_chunk(blocks[:n]))
    hand = {
        "empty.bin": b"",
        "header-only.bin": bytes([1, 5, 0, 0]),
        "newer-version.bin": bytes([2, 5, 1, 0, 0, 0, 0, 0]),
        "shift-63.bin": bytes([1, 63, 1, 0, 1, 1, 2, 0]),
        "count-4097.bin": bytes([1, 0]) + put_varint(4097) + put_varint(0),
        "long-varint.bin": bytes([1, 0, 1]) + bytes([0xFF] * 10) + bytes([1, 0, 0, 0, 0]),
        "interleaved-grids.bin": encode_chunk([(100 + 32 * i, 500 + 32 * i, 3 + i % 9, i // 9)
                                              for i in range(30)]),
        "wrapping-grid.bin": encode_chunk([(0, 32, (1 << 64) - 1, 4), (32, 64, 1, 1 << 31)]),
    }
    for name, data in hand.items():
        with open(os.path.join(out, name), "wb") as o:
            o.write(data)


# ---- command lines ----

CLI = [
    ["info", "s.smtop"], ["report", "s.smtop", "--json", "--top", "5"],
    ["report", "--threshold-us", "50.5", "-q", "s.smtop"], ["open", "--ascii", "s.smtop"],
    ["record", "-o", "x.smtop", "--", "sh", "-c", "exit 3"], ["record", "python3", "train.py"],
    ["run", "--output", "y.smtop", "--", "./a.out", "--flag"], ["demo", "--list"],
    ["demo", "priority-vs-training", "--seconds", "0.5"], ["--help"], ["--version"], ["help"],
    ["-q"], ["bogus"], ["info"], ["record", "--"], ["open", "a", "b"], ["report", "f", "--top", "0"],
    ["--threshold-us", "-1", "open", "f"], ["-o"], ["demo", "x", "--seconds", "1e400"],
]


def cli_seeds():
    out = os.path.join(OUT, "cli")
    for i, args in enumerate(CLI):
        with open(os.path.join(out, f"{i:02d}-{args[0].strip('-') or 'x'}"), "wb") as o:
            o.write(b"\0".join(a.encode() for a in args))


NAMES = ["_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
         "void (anonymous namespace)::softmax_warp_forward<float, 4>(float*, float const*, int)",
         "operator()(int) const", "_Z3fooPKc", "_ZN0E", "_ZN3abcI", "_Z999999999999999999999x",
         "a::b::c<d::e>::f<(g)1>", "(", ")", "<<>>", "kernel"]


def names_seeds():
    out = os.path.join(OUT, "names")
    names = set(NAMES)
    for f in sorted(os.listdir(FIXTURES)):
        if f.endswith(".smtop"):
            db = sqlite3.connect(f"file:{FIXTURES}/{f}?mode=ro", uri=True)
            rows = db.execute("SELECT s.value FROM StringIds s WHERE s.id IN"
                              " (SELECT mangledName FROM CUPTI_ACTIVITY_KIND_KERNEL UNION"
                              "  SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL)").fetchall()
            names.update(r[0] for r in rows)
            db.close()
    for i, n in enumerate(sorted(names)):
        with open(os.path.join(out, f"{i:03d}"), "w") as o:
            o.write(n)


def main():
    for h in ("session", "nsys", "blockcodec", "cli", "names"):
        d = os.path.join(OUT, h)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    with tempfile.TemporaryDirectory() as tmp:
        trimmed = session_seeds(tmp)
        nsys_seeds(trimmed, tmp)
    blockcodec_seeds()
    cli_seeds()
    names_seeds()
    for h in sorted(os.listdir(OUT)):
        files = os.listdir(os.path.join(OUT, h))
        size = sum(os.path.getsize(os.path.join(OUT, h, f)) for f in files)
        print(f"{OUT}/{h}: {len(files)} files, {size} bytes")


if __name__ == "__main__":
    main()
