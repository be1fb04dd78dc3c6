"""Sends one line to a collector's control socket and prints the answer, as
any client of the documented protocol would (tests/e2e/test_alongside.sh).
    ctl.py SOCKET LINE"""
import socket
import sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(30)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect: %s" % e.strerror)
    sys.exit(1)
try:
    s.sendall(sys.argv[2].encode() + b"\n")
except BrokenPipeError:
    pass  # a refused peer's answer may come before its request is read

data = b""
while not data.endswith(b"\n"):
    try:
        chunk = s.recv(65536)
    except ConnectionResetError:
        break
    if not chunk:
        break
    data += chunk
print(data.decode().rstrip("\n"))
