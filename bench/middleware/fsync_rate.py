# Raw durable-write rate of the disk under DIR: appends of 64 bytes, each
# followed by fdatasync, from one writer for SECONDS; prints writes/s.
import os, sys, time
d, secs = sys.argv[1], float(sys.argv[2])
path = os.path.join(d, "fsync-probe")
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
n, end = 0, time.monotonic() + secs
while time.monotonic() < end:
    os.write(fd, b"x" * 64)
    os.fdatasync(fd)
    n += 1
os.close(fd)
os.unlink(path)
print(f"{n / secs:.0f}")
