# Raw durable-write rate of the disk under DIR: appends of 64 bytes, each
# followed by fdatasync, from one writer for SECONDS; prints writes/s.
# With a third argument `cpu`, also the CPU time (user + sys of this
# process, µs) each append + fdatasync cost: what a group-commit round
# spends on the disk, shared by the records of its batch (cpu.sh).
import os, sys, time
d, secs = sys.argv[1], float(sys.argv[2])
path = os.path.join(d, "fsync-probe")
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
n, end = 0, time.monotonic() + secs
cpu0 = time.process_time()
while time.monotonic() < end:
    os.write(fd, b"x" * 64)
    os.fdatasync(fd)
    n += 1
cpu = time.process_time() - cpu0
os.close(fd)
os.unlink(path)
if len(sys.argv) > 3 and sys.argv[3] == "cpu":
    print(f"{n / secs:.0f} {cpu * 1e6 / max(n, 1):.1f}")
else:
    print(f"{n / secs:.0f}")
