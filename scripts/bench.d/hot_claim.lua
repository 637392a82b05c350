-- POST SVC_BENCH_PATH (one case's claim) with a different reviewer's key each request (keys from
-- SVC_BENCH_KEYS, one per line): the first claim wins, every other one is 409 CASE_ALREADY_CLAIMED.
local path = os.getenv("SVC_BENCH_PATH")
local keys = {}
for line in io.lines(os.getenv("SVC_BENCH_KEYS")) do keys[#keys + 1] = line end
local n = 0
function request()
  n = n % #keys + 1
  return wrk.format("POST", path, {["Authorization"] = "Bearer " .. keys[n]}, "")
end
