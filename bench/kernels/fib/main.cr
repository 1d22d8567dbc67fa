# Benchmark kernel `fib`: naive doubly recursive Fibonacci of 32.
# Same algorithm as main.wo and main.c; prints 2178309.

def fib(n : Int64) : Int64
  return n if n < 2
  fib(n - 1) + fib(n - 2)
end

puts fib(32_i64)
