# Benchmark kernel `alloc`: builds and drops 3,000,000 small objects (a class
# with an Int64, a Float64 and a String field). Each object is pushed into a
# short Array batch; every 100 objects the batch is summed into a checksum
# and cleared, so the 100 objects become garbage (Crystal's GC reclaims them).
# Prints the checksum and the number of batches. Same work as main.wo and
# main.cpp.

class Obj
  getter id : Int64
  getter w : Float64
  getter tag : String

  def initialize(@id : Int64, @w : Float64, @tag : String)
  end
end

n = 3_000_000_i64
tags = ["alpha", "beta", "gamma", "delta"]
batch = [] of Obj
sum = 0_i64
batches = 0_i64
i = 0_i64
while i < n
  batch << Obj.new(i, i.to_f64 * 0.5 + 0.25, tags[i % 4])
  if batch.size == 100
    batch.each do |o|
      sum += o.id * 3 + o.w.to_i64 + o.tag.bytesize
    end
    batch.clear
    batches += 1
  end
  i += 1
end
puts sum
puts batches
