-- wrk script of bench/run-payment-creation (BENCH_CLIENT=wrk): POST /v1/payments with the body the
-- JDK client sends, each request under the next of the API keys in the file BENCH_KEYS_FILE (one
-- secret a line), and with BENCH_IDEMPOTENCY_KEYS=1 an Idempotency-Key of its own: BENCH_RUN_ID,
-- the thread's number and a counter, so no two requests of any level or run share one.

local body = '{"amount":100.00,"method":"ewallet1"}'
local keyed = os.getenv("BENCH_IDEMPOTENCY_KEYS") == "1"
local run = os.getenv("BENCH_RUN_ID") or tostring(os.time())

local keys = {}
for line in io.lines(os.getenv("BENCH_KEYS_FILE")) do
  if line ~= "" then
    keys[#keys + 1] = line
  end
end

-- setup runs in the main Lua state, once a thread; each thread's own state gets its number.
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

local sent = 0
local prefix

function init(args)
  prefix = "bench-" .. run .. "-" .. tostring(thread_number) .. "-"
end

function request()
  sent = sent + 1
  local headers = {
    ["Authorization"] = "Bearer " .. keys[(sent + thread_number) % #keys + 1],
    ["Content-Type"] = "application/json",
  }
  if keyed then
    headers["Idempotency-Key"] = prefix .. sent
  end
  return wrk.format("POST", "/v1/payments", headers, body)
end
