-- wrk script: GET /v1/search with a mix of queries over the seeded bots: a common word (many
-- matches, first page), a rare id fragment (few matches), a capability filter and both.
-- Args: <comma-separated words>
local words = {}
function init(args)
  for w in string.gmatch(args[1], "[^,]+") do words[#words + 1] = w end
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
end
local caps = { "deploy", "review", "triage", "build", "release", "chat", "monitor", "index" }
function request()
  local kind = math.random(1, 4)
  local path
  if kind == 1 then
    path = "/v1/search?q=" .. words[math.random(1, #words)]
  elseif kind == 2 then
    path = string.format("/v1/search?q=seed-%05d", math.random(0, 9999))
  elseif kind == 3 then
    path = "/v1/search?capability=" .. caps[math.random(1, #caps)]
  else
    path = "/v1/search?q=" .. words[math.random(1, #words)] .. "&capability=" ..
      caps[math.random(1, #caps)] .. "&status=active"
  end
  return wrk.format("GET", path)
end
