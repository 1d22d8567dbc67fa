// Go peer of the actor benchmark (bench/actors/run.sh): the same workloads
// as ../wo/*.wo, with goroutines as actors and channels as mailboxes.
//
//	actors WORKLOAD [ARGS]   WORKLOAD: pingpong N | oneway N | ring NODES LAPS |
//	                         skynet SIZE | spawn N | pairs P N
//
// Prints "ok OPS USEC" (operations done, microseconds they took) or, on a
// wrong total, a FAIL line on stderr and exit status 1.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

func fail(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "go: FAIL: "+format+"\n", a...)
	os.Exit(1)
}

func arg(i int, dflt int64) int64 {
	if len(os.Args) <= i+2 {
		return dflt
	}
	v, err := strconv.ParseInt(os.Args[i+2], 10, 64)
	if err != nil {
		fail("bad argument %q", os.Args[i+2])
	}
	return v
}

// pingpong: N request/response round trips over two unbuffered channels
// (woc's `call`: send, then wait for the receiver's reply).
func pingpong(n int64) (int64, time.Duration) {
	req, resp := make(chan int64), make(chan int64)
	go func() {
		for v := range req {
			resp <- v + 1
		}
	}()
	t0 := time.Now()
	var sum int64
	for i := int64(0); i < n; i++ {
		req <- i
		sum += <-resp
	}
	d := time.Since(t0)
	close(req)
	if sum != n*(n+1)/2 {
		fail("pingpong: sum of replies %d, expected %d", sum, n*(n+1)/2)
	}
	return n, d
}

// oneway: N sends into one receiver through a channel of capacity 1024
// (woc's bounded mailbox); the receiver reports its count and total once
// the channel is closed.
func oneway(n int64) (int64, time.Duration) {
	ch := make(chan int64, 1024)
	done := make(chan [2]int64)
	go func() {
		var count, total int64
		for v := range ch {
			count++
			total += v
		}
		done <- [2]int64{count, total}
	}()
	t0 := time.Now()
	for i := int64(0); i < n; i++ {
		ch <- i
	}
	close(ch)
	r := <-done
	d := time.Since(t0)
	if r[0] != n || r[1] != n*(n-1)/2 {
		fail("oneway: receiver took %d messages summing to %d, expected %d and %d", r[0], r[1], n, n*(n-1)/2)
	}
	return n, d
}

// ring: NODES goroutines, each forwarding the token to the next, LAPS times
// round; every node stops after LAPS tokens and reports how many it saw.
func ring(nodes, laps int64) (int64, time.Duration) {
	chans := make([]chan int64, nodes)
	for i := range chans {
		chans[i] = make(chan int64)
	}
	seen := make(chan int64, nodes)
	for i := int64(0); i < nodes; i++ {
		in, next := chans[i], chans[(i+1)%nodes]
		go func() {
			var c int64
			for c < laps {
				t := <-in
				c++
				if t > 0 {
					next <- t - 1
				}
			}
			seen <- c
		}()
	}
	hops := nodes * laps
	t0 := time.Now()
	chans[0] <- hops - 1
	var total int64
	for i := int64(0); i < nodes; i++ {
		c := <-seen
		if c != laps {
			fail("ring: a node saw %d tokens, expected %d", c, laps)
		}
		total += c
	}
	d := time.Since(t0)
	if total != hops {
		fail("ring: %d deliveries, expected %d", total, hops)
	}
	return hops, d
}

// skynet: the classic tree of goroutines, 10 children each, SIZE leaves.
func skynet(c chan int64, num, size int64) {
	if size == 1 {
		c <- num
		return
	}
	rc := make(chan int64)
	sub := size / 10
	for i := int64(0); i < 10; i++ {
		go skynet(rc, num+i*sub, sub)
	}
	var sum int64
	for i := 0; i < 10; i++ {
		sum += <-rc
	}
	c <- sum
}

func skynetRun(size int64) (int64, time.Duration) {
	actors, level := int64(0), int64(1)
	for level < size {
		actors += level
		level *= 10
	}
	if level != size {
		fail("skynet: the size must be a power of 10, got %d", size)
	}
	actors += size
	t0 := time.Now()
	c := make(chan int64)
	go skynet(c, 0, size)
	got := <-c
	d := time.Since(t0)
	if got != size*(size-1)/2 {
		fail("skynet: total %d, expected %d", got, size*(size-1)/2)
	}
	return actors, d
}

// spawn: N goroutines, each with its own channel (its mailbox), waiting
// for requests; timed: creating them; then each answers one request, and
// all stay alive and idle until the program exits.
func spawn(n int64) (int64, time.Duration) {
	mail := make([]chan int64, n)
	resp := make(chan int64)
	t0 := time.Now()
	for i := int64(0); i < n; i++ {
		c := make(chan int64)
		mail[i] = c
		id := i
		go func() {
			for v := range c {
				resp <- id + v
			}
		}()
	}
	d := time.Since(t0)
	var sum int64
	for _, c := range mail {
		c <- 1
		sum += <-resp
	}
	if sum != n*(n+1)/2 {
		fail("spawn: the goroutines answered %d in all, expected %d", sum, n*(n+1)/2)
	}
	runtime.KeepAlive(mail)
	return n, d
}

// pairs: P independent pinger/ponger pairs, N round trips each, at once.
func pairs(p, n int64) (int64, time.Duration) {
	sums := make([]int64, p)
	var wg sync.WaitGroup
	t0 := time.Now()
	for k := int64(0); k < p; k++ {
		wg.Add(1)
		req, resp := make(chan int64), make(chan int64)
		go func() {
			for v := range req {
				resp <- v + 1
			}
		}()
		go func(k int64) {
			defer wg.Done()
			var s int64
			for i := int64(0); i < n; i++ {
				req <- i
				s += <-resp
			}
			close(req)
			sums[k] = s
		}(k)
	}
	wg.Wait()
	d := time.Since(t0)
	for _, s := range sums {
		if s != n*(n+1)/2 {
			fail("pairs: a pinger's replies summed to %d, expected %d", s, n*(n+1)/2)
		}
	}
	return p * n, d
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: actors pingpong|oneway|ring|skynet|spawn|pairs [ARGS]")
	}
	var ops int64
	var d time.Duration
	switch os.Args[1] {
	case "pingpong":
		ops, d = pingpong(arg(0, 1000000))
	case "oneway":
		ops, d = oneway(arg(0, 2000000))
	case "ring":
		ops, d = ring(arg(0, 1000), arg(1, 1000))
	case "skynet":
		ops, d = skynetRun(arg(0, 1000000))
	case "spawn":
		ops, d = spawn(arg(0, 100000))
	case "pairs":
		ops, d = pairs(arg(0, 4), arg(1, 250000))
	default:
		fail("unknown workload %q", os.Args[1])
	}
	fmt.Printf("ok %d %d\n", ops, d.Microseconds())
}
