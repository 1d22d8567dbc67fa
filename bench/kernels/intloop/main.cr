# Benchmark kernel `intloop`: 100 million iterations of an integer recurrence
# mixing wrapping `*` and `+`, `^`, `>>` and `%` by a divisor that changes
# every iteration. Same algorithm as main.wo and main.c.
# `&*` / `&+` wrap like .wo Int; `remainder` truncates like .wo `%`
# (Crystal's own `%` is floored).

n = 100_000_000_i64
acc = 1_i64
i = 0_i64
while i < n
  d = (i & 1023) + 3
  acc = acc &* 2862933555777941757_i64 &+ i
  acc = acc ^ (acc >> 29)
  acc = acc &+ acc.remainder(d)
  i += 1
end
puts acc
