"""What the soaks read about a server process from /proc (Linux)."""
import os


def rss_kb(pid):
    """Its resident set (VmRSS), in kB; -1 when /proc does not say."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def fds(pid):
    """How many file descriptors it has open."""
    return len(os.listdir("/proc/%d/fd" % pid))


def cpu_s(pid):
    """Its user + system CPU seconds so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
