-- POST of a fixed JSON body (SVC_BENCH_BODY) to SVC_BENCH_PATH; with SVC_BENCH_RATE set, each
-- connection paces itself (wrk's delay()) so that all of them together send about that many
-- requests per second.
local key = os.getenv("SVC_BENCH_KEY")
local path = os.getenv("SVC_BENCH_PATH")
local body = os.getenv("SVC_BENCH_BODY")
local rate = tonumber(os.getenv("SVC_BENCH_RATE") or "0")
local conns = tonumber(os.getenv("SVC_BENCH_CONNS") or "1")
local headers = {["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json"}
function request()
  return wrk.format("POST", path, headers, body)
end
if rate > 0 then
  function delay()
    return math.floor(1000 * conns / rate)
  end
end
