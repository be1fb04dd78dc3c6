"""The block chunk format of smtop sessions (docs/session-format.md), in
Python, for the test and bench scripts that read or write chunk blobs."""


def varint(buf, i):
    """The LEB128 value at buf[i:], and the index past it."""
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def put_varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zigzag(v):
    return ((v << 1) ^ (v >> 63)) & ((1 << 64) - 1)


def unzigzag(v):
    return (v >> 1) ^ -(v & 1)


def decode_chunk(data, flags=False):
    """Decodes one smtop_block_chunk blob into (start, end, gridId, block)
    tuples on the %globaltimer clock; with flags, (start, end, gridId,
    block, bound) where bound is 1 when the end is an upper bound (version 2
    chunks, `--sm entry`)."""
    version, shift = data[0], data[1]
    assert version in (1, 2), f"chunk version {version}"
    count, i = varint(data, 2)
    start, i = varint(data, i)
    grid, slots, out = 0, {}, []
    for _ in range(count):
        d, i = varint(data, i)
        dur, i = varint(data, i)
        dg, i = varint(data, i)
        db, i = varint(data, i)
        bound = db & 1 if version == 2 else 0
        db = db >> 1 if version == 2 else db
        start += d << shift
        grid = (grid + unzigzag(dg)) & ((1 << 64) - 1)
        slot = slots.get(grid % 8)
        ref = slot[1] if slot and slot[0] == grid else 0
        block = (ref + unzigzag(db)) & 0xFFFFFFFF
        slots[grid % 8] = (grid, block)
        b = (start, start + (dur << shift), grid, block)
        out.append(b + (bound,) if flags else b)
    return out


def encode_chunk(blocks):
    """The blob of (start, end, gridId, block) tuples, sorted by start; a
    fifth element, when given, is the bound flag (version 2 if any is 1)."""
    blocks = sorted(tuple(b) + (0,) * (5 - len(b)) for b in blocks)
    bounds = any(b[4] for b in blocks)
    bits = 0
    for s, e, _, _, _ in blocks:
        bits |= (s - blocks[0][0]) | (e - s)
    shift = (bits & -bits).bit_length() - 1 if bits else 0
    out = bytearray([2 if bounds else 1, shift]) + put_varint(len(blocks)) + put_varint(blocks[0][0])
    prev_start, prev_grid, slots = blocks[0][0], 0, {}
    for s, e, g, b, f in blocks:
        slot = slots.get(g % 8)
        ref = slot[1] if slot and slot[0] == g else 0
        d_block = (b - ref) & 0xFFFFFFFF
        if d_block >= 1 << 31:
            d_block -= 1 << 32
        out += put_varint((s - prev_start) >> shift) + put_varint((e - s) >> shift)
        out += put_varint(zigzag((g - prev_grid + (1 << 63)) % (1 << 64) - (1 << 63)))
        out += put_varint(zigzag(d_block) << 1 | f if bounds else zigzag(d_block))
        prev_start, prev_grid = s, g
        slots[g % 8] = (g, b)
    assert decode_chunk(bytes(out), flags=True) == blocks
    return bytes(out)
