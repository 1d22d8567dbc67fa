// peak_rss FILE COMMAND [ARGS...]: runs COMMAND, writes its peak resident set
// size in KiB (wait4's ru_maxrss) to FILE and exits with COMMAND's status
// (128 + N when signal N ended it). /usr/bin/time -f %M does the same but is a
// package `make test` would have to install; this is 40 lines.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: peak_rss FILE COMMAND [ARGS...]\n");
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("peak_rss: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    std::fprintf(stderr, "peak_rss: cannot run %s: %s\n", argv[2], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) {
      std::perror("peak_rss: wait4");
      return 2;
    }
  }
  if (FILE* f = std::fopen(argv[1], "w")) {
    std::fprintf(f, "%ld\n", ru.ru_maxrss);
    std::fclose(f);
  } else {
    std::fprintf(stderr, "peak_rss: cannot write %s\n", argv[1]);
    return 2;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 2;
}
