-- POST /v1/persons with 10 PII fields; every person has its own valid CURP (check digit computed
-- here), so no create is refused as a CURP conflict.
local counter = 0
local thread_id = 0
local key = os.getenv("SVC_BENCH_KEY")
local alphabet = "0123456789ABCDEFGHIJKLMN_OPQRSTUVWXYZ"  -- "_" stands for Ñ (never used here)
function setup(thread)
  thread:set("tid", thread_id)
  thread_id = thread_id + 1
end
local function value_of(c) return string.find(alphabet, c, 1, true) - 1 end
local function curp(n)
  -- [A-Z][AEIOUX][A-Z]{2} as a CURP's first four characters are: 3,380 combinations per day.
  local vowels = "AEIOU"
  local k = n % 3380
  local v = k % 5 + 1
  k = math.floor(k / 5)
  local letters = vowels:sub(v, v) .. string.char(65 + math.floor(k / 26) % 26) .. string.char(65 + k % 26)
  local day = math.floor(n / 3380) % 21900  -- 1940-01-01 + day: born before 2000 (homoclave digit)
  local born = os.date("!%y%m%d", -946771200 + day * 86400)
  -- "Z" first: no word RENAPO replaces starts with it (a "B" made BUEY, BACA, … which are refused).
  local first17 = "Z" .. letters .. born .. "HDFRRN0"
  local sum = 0
  for i = 1, 17 do sum = sum + value_of(first17:sub(i, i)) * (19 - i) end
  return first17 .. tostring((10 - sum % 10) % 10)
end
function request()
  counter = counter + 1
  local n = (tid or 0) * 10000000 + counter + (tonumber(os.getenv("SVC_BENCH_SEED") or "0"))
  local body = string.format(
    '{"pii":{"curp":"%s","fullName":"Bench Person %d","givenName":"Bench","surname":"Person %d",' ..
    '"email":"bench%d@example.mx","phone":"55%08d","birthDate":"1980-01-01","sex":"M","state":"DF",' ..
    '"nationality":"MEX"}}', curp(n), n, n, n, n % 100000000)
  local headers = {["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json"}
  return wrk.format("POST", "/v1/persons", headers, body)
end
-- The first refusal is printed (a benchmark of errors is no benchmark).
local reported = false
function response(status, headers, body)
  if status >= 300 and not reported then
    reported = true
    print("first refusal: " .. status .. " " .. body)
  end
end
