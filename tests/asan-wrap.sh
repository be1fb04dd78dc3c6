#!/bin/sh
# Runs a command for tests/asan.sh, keeping a copy of its stderr in
# $SMTOP_SAN_LOGS: gcc's UndefinedBehaviorSanitizer, next to AddressSanitizer,
# writes its reports to stderr whatever log_path says, and the end-to-end
# scripts often swallow stderr or leave it in a tmux pane.  The last exec
# keeps the pid, so signals the scripts send reach the command itself.
#   asan-wrap.sh CMD [ARGS...]
fifo=$SMTOP_SAN_LOGS/fifo.$$
mkfifo "$fifo" || exit 125
tee -a "$SMTOP_SAN_LOGS/stderr.$$" < "$fifo" >&2 &
exec 2> "$fifo"
rm -f "$fifo"
exec "$@"
