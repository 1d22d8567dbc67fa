/* Benchmark kernel `fib`: naive doubly recursive Fibonacci of 32.
   Same algorithm as main.wo and main.cr; prints 2178309. */
#include <stdint.h>
#include <stdio.h>

static int64_t fib(int64_t n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}

int main(void) {
  printf("%lld\n", (long long)fib(32));
  return 0;
}
