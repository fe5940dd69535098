-- wrk: GET each path given after `--` in turn (the repository browser's pages under load).
local paths = {}
local i = 0

function init(args)
  for _, p in ipairs(args) do
    table.insert(paths, p)
  end
end

function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
