-- wrk script: GET /v1/bots/<random seeded id>. Args: <number of seeded bots>
local n = 1
function init(args)
  n = tonumber(args[1])
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
end
function request()
  return wrk.format("GET", string.format("/v1/bots/seed-%06d", math.random(0, n - 1)))
end
