# Benchmark kernel `textbuild`: builds 1,000,000 small strings (about 30
# bytes each) by interpolating ints and floats and concatenating with `+`,
# pushes them into an Array(String), joins them with "|" and prints the byte
# length of the result and a checksum over every 97th byte.
# Same work as main.wo and main.c. The floats are all k + 0.25 or k + 0.75.

n = 1_000_000_i64
parts = [] of String
i = 0_i64
while i < n
  f = i.to_f64 * 0.5 + 0.25
  head = "item #{i}: "
  s = head + "v=#{f}" + ";k=" + ((i * 7) % 1000).to_s + ","
  parts << s
  i += 1
end
all = parts.join("|")
puts all.bytesize
sum = 0_i64
j = 0_i64
while j < all.bytesize
  sum += all.byte_at(j).to_i64 * ((j % 7) + 1)
  j += 97
end
puts sum
