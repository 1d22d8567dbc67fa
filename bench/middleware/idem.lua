-- wrk script: POST /products with a fresh Idempotency-Key per request
-- (thread id + counter, so no two requests of a run share a key).
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
local n = 0
function request()
  n = n + 1
  return wrk.format("POST", "/products",
    { ["Idempotency-Key"] = "k" .. tid .. "-" .. n, ["Content-Type"] = "text/plain" }, "x")
end
