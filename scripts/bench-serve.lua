-- wrk script of scripts/bench-serve.sh: every request is a JSON-RPC 2.0 `SendMessage` (A2A 1.0)
-- to the served `echo` agent, as the scenario caller `load`. A response that is not HTTP 200 or
-- carries a JSON-RPC error is counted and reported at the end (wrk itself counts only non-2xx).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-A2A-Sim-Caller"] = "load"
wrk.headers["A2A-Version"] = "1.0"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":'
  .. '{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"ping"}]}}}'

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  errors = 0
end

function response(status, headers, body)
  if status ~= 200 or string.find(body, '"error"', 1, true) then
    errors = errors + 1
    if errors == 1 then
      io.stderr:write("first bad answer (HTTP " .. status .. "): " .. string.sub(body, 1, 300) .. "\n")
    end
  end
end

function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do
    bad = bad + (t:get("errors") or 0)
  end
  local secs = summary.duration / 1e6
  io.write(string.format("requests %d in %.2f s: %.0f req/s; answers with an error: %d; p50 %.2f ms, p99 %.2f ms\n",
    summary.requests, secs, summary.requests / secs, bad,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
