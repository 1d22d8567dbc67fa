# Benchmark kernel `wordcount`: a map-heavy word count over generated text.
# A vocabulary of 1,000 distinct words is built from 10 syllables; a linear
# congruential generator picks 2,000,000 of them (skewed towards the first
# words) into a text joined with spaces; the text is split back into words
# and counted in a Hash(String, Int64). Prints the number of distinct words,
# the counts of four fixed words, and an order-independent checksum over
# every entry. Same work as main.wo and main.cpp (`&*`/`&+` wrap like .wo Int).

syl = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "we", "zu"]
vocab = [] of String
k = 0
while k < 1000
  w = syl[k % 10] + syl[(k // 10) % 10]
  w = w + syl[k // 100] if k >= 100
  vocab << w
  k += 1
end

n = 2_000_000
parts = [] of String
x = 12345_i64
i = 0
while i < n
  x = x &* 6364136223846793005_i64 &+ 1442695040888963407_i64
  r = (x >> 33) & 2147483647_i64
  idx = ((r % 1000) * ((r >> 10) % 1000)) // 1000
  parts << vocab[idx]
  i += 1
end
text = parts.join(" ")

counts = Hash(String, Int64).new
text.split(' ').each do |w|
  c = counts[w]?
  if c.nil?
    counts[w] = 1_i64
  else
    counts[w] = c + 1
  end
end

puts text.bytesize
puts counts.size
puts counts[vocab[0]]
puts counts[vocab[7]]
puts counts[vocab[123]]
puts counts[vocab[900]]
sum = 0_i64
counts.each do |key, v|
  sum += v * v + key.bytesize * v
end
puts sum
