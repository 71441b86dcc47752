-- wrk script of the service rows (Benchmarks/Sources/PictorBenchmarks/Service).
--   wrk … -s wrk_urls.lua URL -- MODE PREFIX SUFFIX NONCE DISTINCT FILE…
-- Each request asks for PREFIX .. NAME .. "/" .. FILE .. SUFFIX, FILE cycling through the files.
--   MODE cold: NAME is NONCE-<thread>-<counter>, so no two requests of a run (or of two runs
--              with different nonces) share a source URL, and every one is a miss for every peer.
--   MODE warm: NAME is NONCE-<counter mod DISTINCT>: a fixed set of URLs, asked over and over.
-- done() prints one `wrk-result` line with the counts and latency percentiles (µs) the harness
-- reads, since wrk's own report has no 95th percentile.
local threads = {}
function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

local mode, prefix, suffix, nonce, distinct, files
local counter = 0
function init(args)
  mode, prefix, suffix, nonce, distinct = args[1], args[2], args[3], args[4], tonumber(args[5])
  files = {}
  for i = 6, #args do files[#files + 1] = args[i] end
end

function request()
  counter = counter + 1
  local name
  if mode == "cold" then
    name = nonce .. "-" .. id .. "-" .. counter
  else
    name = nonce .. "-" .. (counter % distinct)
  end
  return wrk.format("GET", prefix .. name .. "/" .. files[(counter % #files) + 1] .. suffix)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "wrk-result requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d p50_us=%d p95_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max))
end
