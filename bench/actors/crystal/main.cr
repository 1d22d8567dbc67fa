# Crystal peer of the actor benchmark (bench/actors/run.sh): the same
# workloads as ../wo/*.wo, with fibers (spawn) as actors and Channels as
# mailboxes. Built with `crystal build --release` and no -Dpreview_mt, i.e.
# Crystal's default: every fiber on one thread.
#
#   main WORKLOAD [ARGS]   WORKLOAD: pingpong N | oneway N | ring NODES LAPS |
#                          skynet SIZE | spawn N | pairs P N
#
# Prints "ok OPS USEC" (operations done, microseconds they took) or, on a
# wrong total, a FAIL line on stderr and exit status 1.

def fail(msg : String) : NoReturn
  STDERR.puts "crystal: FAIL: #{msg}"
  exit 1
end

def arg(i : Int32, dflt : Int64) : Int64
  ARGV.size > i + 1 ? ARGV[i + 1].to_i64 : dflt
end

def usec(t0 : Time::Span) : Int64
  (Time.monotonic - t0).total_microseconds.to_i64
end

# pingpong: N request/response round trips over two unbuffered channels.
def pingpong(n : Int64) : {Int64, Int64}
  req = Channel(Int64).new
  resp = Channel(Int64).new
  spawn do
    while v = req.receive?
      resp.send(v + 1)
    end
  end
  t0 = Time.monotonic
  sum = 0_i64
  i = 0_i64
  while i < n
    req.send(i)
    sum += resp.receive
    i += 1
  end
  us = usec(t0)
  req.close
  fail("pingpong: sum of replies #{sum}, expected #{n * (n + 1) // 2}") unless sum == n * (n + 1) // 2
  {n, us}
end

# oneway: N sends into one receiver through a channel of capacity 1024.
def oneway(n : Int64) : {Int64, Int64}
  ch = Channel(Int64).new(1024)
  done = Channel({Int64, Int64}).new
  spawn do
    count = 0_i64
    total = 0_i64
    while v = ch.receive?
      count += 1
      total += v
    end
    done.send({count, total})
  end
  t0 = Time.monotonic
  i = 0_i64
  while i < n
    ch.send(i)
    i += 1
  end
  ch.close
  count, total = done.receive
  us = usec(t0)
  unless count == n && total == n * (n - 1) // 2
    fail("oneway: receiver took #{count} messages summing to #{total}, expected #{n} and #{n * (n - 1) // 2}")
  end
  {n, us}
end

# ring: NODES fibers, each forwarding the token to the next, LAPS times
# round; every node stops after LAPS tokens and reports how many it saw.
def ring(nodes : Int64, laps : Int64) : {Int64, Int64}
  chans = Array(Channel(Int64)).new(nodes) { Channel(Int64).new }
  seen = Channel(Int64).new(nodes.to_i32)
  nodes.times do |i|
    inbox = chans[i]
    nxt = chans[(i + 1) % nodes]
    spawn do
      c = 0_i64
      while c < laps
        t = inbox.receive
        c += 1
        nxt.send(t - 1) if t > 0
      end
      seen.send(c)
    end
  end
  hops = nodes * laps
  t0 = Time.monotonic
  chans[0].send(hops - 1)
  total = 0_i64
  nodes.times do
    c = seen.receive
    fail("ring: a node saw #{c} tokens, expected #{laps}") unless c == laps
    total += c
  end
  us = usec(t0)
  fail("ring: #{total} deliveries, expected #{hops}") unless total == hops
  {hops, us}
end

# skynet: the classic tree of fibers, 10 children each, SIZE leaves.
def skynet(c : Channel(Int64), num : Int64, size : Int64) : Nil
  if size == 1
    c.send(num)
    return
  end
  rc = Channel(Int64).new
  sub = size // 10
  10.times do |i|
    spawn skynet(rc, num + i * sub, sub)
  end
  sum = 0_i64
  10.times { sum += rc.receive }
  c.send(sum)
end

def skynet_run(size : Int64) : {Int64, Int64}
  actors = 0_i64
  level = 1_i64
  while level < size
    actors += level
    level *= 10
  end
  fail("skynet: the size must be a power of 10, got #{size}") unless level == size
  actors += size
  t0 = Time.monotonic
  c = Channel(Int64).new
  spawn skynet(c, 0_i64, size)
  got = c.receive
  us = usec(t0)
  fail("skynet: total #{got}, expected #{size * (size - 1) // 2}") unless got == size * (size - 1) // 2
  {actors, us}
end

# spawn: N fibers, each with its own channel (its mailbox), waiting for
# requests; timed: creating them; then each answers one request, and all
# stay alive and idle until the program exits.
def spawn_idle(n : Int64) : {Int64, Int64}
  mail = Array(Channel(Int64)).new(n)
  resp = Channel(Int64).new
  t0 = Time.monotonic
  n.times do |i|
    c = Channel(Int64).new
    mail << c
    spawn do
      while v = c.receive?
        resp.send(i + v)
      end
    end
  end
  us = usec(t0)
  sum = 0_i64
  mail.each do |c|
    c.send(1_i64)
    sum += resp.receive
  end
  fail("spawn: the fibers answered #{sum} in all, expected #{n * (n + 1) // 2}") unless sum == n * (n + 1) // 2
  {n, us}
end

# pairs: P independent pinger/ponger pairs, N round trips each, at once.
def pairs(p : Int64, n : Int64) : {Int64, Int64}
  sums = Channel(Int64).new(p.to_i32)
  t0 = Time.monotonic
  p.times do
    req = Channel(Int64).new
    resp = Channel(Int64).new
    spawn do
      while v = req.receive?
        resp.send(v + 1)
      end
    end
    spawn do
      s = 0_i64
      i = 0_i64
      while i < n
        req.send(i)
        s += resp.receive
        i += 1
      end
      req.close
      sums.send(s)
    end
  end
  p.times do
    s = sums.receive
    fail("pairs: a pinger's replies summed to #{s}, expected #{n * (n + 1) // 2}") unless s == n * (n + 1) // 2
  end
  {p * n, usec(t0)}
end

ops, us = case ARGV[0]?
          when "pingpong" then pingpong(arg(0, 1_000_000))
          when "oneway"   then oneway(arg(0, 2_000_000))
          when "ring"     then ring(arg(0, 1000), arg(1, 1000))
          when "skynet"   then skynet_run(arg(0, 1_000_000))
          when "spawn"    then spawn_idle(arg(0, 100_000))
          when "pairs"    then pairs(arg(0, 4), arg(1, 250_000))
          else                 fail("usage: main pingpong|oneway|ring|skynet|spawn|pairs [ARGS]")
          end
puts "ok #{ops} #{us}"
