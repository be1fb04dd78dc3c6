"""Which launch of a grid id a block belongs to, for the scripts that
rewrite sessions: a graph replayed launches its kernel nodes again with the
same grid ids, and a block goes to the launch whose interval holds its
start, else to the nearest."""
import bisect


def launch_at(spans, starts, t):
    """The index in spans ((start, end, ...) of one grid id's launches,
    sorted by start; starts: their starts) of the launch that holds time t,
    else the nearest; None when there is none."""
    if not spans:
        return None
    i = bisect.bisect_right(starts, t) - 1
    cands = [j for j in (i, i + 1) if 0 <= j < len(spans)]
    return min(cands, key=lambda j: 0 if spans[j][0] <= t <= spans[j][1]
               else min(abs(t - spans[j][0]), abs(t - spans[j][1])))
