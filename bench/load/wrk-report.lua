-- SPDX-License-Identifier: GPL-3.0-or-later
-- wrk script for bench/load/wrk-store.sh: optional PROPFIND Depth 1 (WRK_METHOD=PROPFIND in
-- the environment), and a one-line machine-readable summary at the end.
local method = os.getenv("WRK_METHOD") or "GET"
if method == "PROPFIND" then
  wrk.method = "PROPFIND"
  wrk.headers["Depth"] = "1"
  wrk.headers["Content-Type"] = "application/xml"
  wrk.body = '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>'
end

-- Count statuses outside 2xx ourselves: wrk's summary.errors.status counts only >= 400.
non2xx = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  non2xx = 0
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do
    bad = bad + (t:get("non2xx") or 0)
  end
  local e = summary.errors
  local secs = summary.duration / 1e6
  io.write(string.format(
    "RESULT method=%s requests=%d rps=%.1f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f " ..
    "connect_err=%d read_err=%d write_err=%d timeout_err=%d non2xx=%d\n",
    method, summary.requests, summary.requests / secs,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.connect, e.read, e.write, e.timeout, bad))
end
