-- POST /v1/review/cases/{id}/claim, each request a different case (ids from SVC_BENCH_IDS, one per
-- line): every claim is a durable append on its own case aggregate.
local key = os.getenv("SVC_BENCH_KEY")
local ids = {}
for line in io.lines(os.getenv("SVC_BENCH_IDS")) do ids[#ids + 1] = line end
local n = 0
local headers = {["Authorization"] = "Bearer " .. key}
function request()
  n = n % #ids + 1
  return wrk.format("POST", "/v1/review/cases/" .. ids[n] .. "/claim", headers, "")
end
