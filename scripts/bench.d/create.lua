-- POST /v1/verification-sessions with a unique Idempotency-Key per request. SVC_BENCH_SALT tells
-- apart several wrk processes started in the same second (overhead.sh runs one per node).
local counter = 0
local salt = os.getenv("SVC_BENCH_SALT") or ""
local thread_id = 0
local key = os.getenv("SVC_BENCH_KEY")
function setup(thread)
  thread:set("tid", thread_id)
  thread_id = thread_id + 1
end
function request()
  counter = counter + 1
  local headers = {
    ["Authorization"] = "Bearer " .. key,
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = string.format("bench-%s-%d-%d-%d", salt, os.time(), tid or 0, counter),
  }
  return wrk.format("POST", "/v1/verification-sessions", headers, '{"channel":"api","clientReference":"bench"}')
end
