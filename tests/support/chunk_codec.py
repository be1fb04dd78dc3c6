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


def decode_chunk(data):
    """Decodes one smtop_block_chunk blob into (start, end, gridId, block)
    tuples on the %globaltimer clock."""
    version, shift = data[0], data[1]
    assert version == 1, f"chunk version {version}"
    count, i = varint(data, 2)
    start, i = varint(data, i)
    grid, slots, out = 0, {}, []
    for _ in range(count):
        d, i = varint(data, i)
        dur, i = varint(data, i)
        dg, i = varint(data, i)
        db, i = varint(data, i)
        start += d << shift
        grid = (grid + unzigzag(dg)) & ((1 << 64) - 1)
        slot = slots.get(grid % 8)
        ref = slot[1] if slot and slot[0] == grid else 0
        block = (ref + unzigzag(db)) & 0xFFFFFFFF
        slots[grid % 8] = (grid, block)
        out.append((start, start + (dur << shift), grid, block))
    return out


def encode_chunk(blocks):
    """The blob of (start, end, gridId, block) tuples, sorted by start."""
    blocks = sorted(blocks)
    bits = 0
    for s, e, _, _ in blocks:
        bits |= (s - blocks[0][0]) | (e - s)
    shift = (bits & -bits).bit_length() - 1 if bits else 0
    out = bytearray([1, shift]) + put_varint(len(blocks)) + put_varint(blocks[0][0])
    prev_start, prev_grid, slots = blocks[0][0], 0, {}
    for s, e, g, b in blocks:
        slot = slots.get(g % 8)
        ref = slot[1] if slot and slot[0] == g else 0
        d_block = (b - ref) & 0xFFFFFFFF
        if d_block >= 1 << 31:
            d_block -= 1 << 32
        out += put_varint((s - prev_start) >> shift) + put_varint((e - s) >> shift)
        out += put_varint(zigzag((g - prev_grid + (1 << 63)) % (1 << 64) - (1 << 63)))
        out += put_varint(zigzag(d_block))
        prev_start, prev_grid = s, g
        slots[g % 8] = (g, b)
    assert decode_chunk(bytes(out)) == blocks
    return bytes(out)
