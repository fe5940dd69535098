-- wrk script: GET one of the given paths at random, with the admin key.
-- Args: <admin key> <path> [<path> ...]
local paths = {}
local headers = {}
function init(args)
  headers["Authorization"] = "Bearer " .. args[1]
  for i = 2, #args do paths[#paths + 1] = args[i] end
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
end
function request()
  return wrk.format("GET", paths[math.random(1, #paths)], headers)
end
