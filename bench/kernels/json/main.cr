# Benchmark kernel `json`: a JSON encode/decode round trip. Builds 100,000
# records (Int64, Float64, String, Bool and an Array(Int64) of 0 to 4
# elements) in a wrapper object, encodes the whole list with to_json (one
# ~8 MB text), decodes it back with Batch.from_json, and sums the fields of
# the decoded records. Prints the byte length of the JSON text, the number of
# decoded records and the checksum. Same work as main.wo and main.cpp.
require "json"

class Rec
  include JSON::Serializable

  getter id : Int64
  getter score : Float64
  getter name : String
  getter ok : Bool
  getter tags : Array(Int64)

  def initialize(@id, @score, @name, @ok, @tags)
  end
end

class Batch
  include JSON::Serializable

  getter recs : Array(Rec)

  def initialize(@recs)
  end
end

n = 100_000_i64
b = Batch.new([] of Rec)
i = 0_i64
while i < n
  tags = [] of Int64
  j = 0_i64
  while j < i % 5
    tags << i * 7 + j
    j += 1
  end
  b.recs << Rec.new(i, i.to_f64 * 0.25, "r\"#{i}", i % 3 == 0, tags)
  i += 1
end
text = b.to_json
puts text.bytesize

back = begin
  Batch.from_json(text)
rescue JSON::ParseException
  nil
end
if back.nil?
  puts "decode failed"
  exit 0
end
sum = 0_i64
back.recs.each do |r|
  sum += r.id + (r.score * 4.0).to_i64 + r.name.bytesize
  sum += 1 if r.ok
  r.tags.each { |t| sum += t }
end
puts back.recs.size
puts sum
