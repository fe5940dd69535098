-- wrk script: GET one of the given paths at random as a browser asks for a page (HTML, gzip).
-- Args: <path> [<path> ...]
local paths = {}
local headers = {
  ["Accept"] = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  ["Accept-Encoding"] = "gzip, deflate, br",
}
function init(args)
  for i = 1, #args do paths[#paths + 1] = args[i] end
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
end
function request()
  return wrk.format("GET", paths[math.random(1, #paths)], headers)
end
