-- wrk script of bench/run-webhooks (BENCH_CLIENT=wrk): POST /v1/test_helpers/payments/{id}/succeed
-- once for each line "payment-id api-key" of the file BENCH_PAYMENTS_FILE, at BENCH_RATE calls a
-- second in all (BENCH_WRK_THREADS: wrk's -t), on a fixed schedule (open loop up to the
-- connections in flight: a call whose slot has passed goes at once). Thread n of N takes lines n,
-- n + N, …; once its lines are used its connections wait past the run's end, so each payment is
-- succeeded at most once.

local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec *now);
]]
local clock = ffi.new("bench_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, clock) -- CLOCK_MONOTONIC
  return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
end

local rate = tonumber(os.getenv("BENCH_RATE"))

-- setup runs in the main Lua state, once a thread; each thread's own state gets its number.
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

local calls = {}
local interval_ms
local started_ms
local scheduled = 0
local sent = 0

function init(args)
  local line_number = 0
  local thread_count = tonumber(os.getenv("BENCH_WRK_THREADS"))
  for line in io.lines(os.getenv("BENCH_PAYMENTS_FILE")) do
    if line ~= "" then
      line_number = line_number + 1
      if (line_number - 1) % thread_count == thread_number - 1 then
        local id, key = line:match("^(%S+)%s+(%S+)$")
        calls[#calls + 1] = wrk.format(
          "POST",
          "/v1/test_helpers/payments/" .. id .. "/succeed",
          { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" },
          "{}"
        )
      end
    end
  end
  interval_ms = 1000 * thread_count / rate
end

-- Called before each request of a connection: wait for the next slot of this thread's schedule.
function delay()
  local now = now_ms()
  if started_ms == nil then
    started_ms = now
  end
  if scheduled >= #calls then
    return 3600 * 1000 -- nothing left: past the run's end
  end
  local slot = started_ms + scheduled * interval_ms
  scheduled = scheduled + 1
  return math.max(0, math.floor(slot - now))
end

-- Each request sends the call of the slot its connection's delay() took. wrk also calls request()
-- once before the run to check the script; that one is not sent and takes no call.
function request()
  if sent < scheduled then
    sent = sent + 1
    return calls[sent]
  end
  return calls[1]
end

-- A call that did not succeed is worth seeing (wrk only counts them).
function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("succeed answered " .. status .. ": " .. body .. "\n")
  end
end
