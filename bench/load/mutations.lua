-- wrk script: POSTs pre-signed mutations from a file, each once, then stops the thread.
-- Args: <file of "<path>\t<body>" lines>
local items = {}
local sent = 0
local done = 0
function init(args)
  for line in io.lines(args[1]) do
    local tab = string.find(line, "\t", 1, true)
    if tab then items[#items + 1] = { string.sub(line, 1, tab - 1), string.sub(line, tab + 1) } end
  end
end
local headers = { ["Content-Type"] = "application/json" }
function request()
  sent = sent + 1
  -- Connections still open after the last body send a cheap GET (never a replayed mutation).
  if sent > #items then return wrk.format("GET", "/health") end
  local item = items[sent]
  return wrk.format("POST", item[1], headers, item[2])
end
function response(status, hdrs, body)
  done = done + 1
  if done >= #items then wrk.thread:stop() end
end
