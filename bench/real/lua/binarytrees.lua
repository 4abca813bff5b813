-- binarytrees.lua N: allocate and walk complete binary trees (tables, GC).
local N = tonumber(arg and arg[1]) or 12
local function make(d)
  if d == 0 then return { } end
  d = d - 1
  return { make(d), make(d) }
end
local function check(t)
  if t[1] then return 1 + check(t[1]) + check(t[2]) end
  return 1
end
local maxd = math.max(6, N)
print(("stretch tree of depth %d\t check: %d"):format(maxd + 1, check(make(maxd + 1))))
local long = make(maxd)
for d = 4, maxd, 2 do
  local iters, c = 1 << (maxd - d + 4), 0
  for _ = 1, iters do c = c + check(make(d)) end
  print(("%d\t trees of depth %d\t check: %d"):format(iters, d, c))
end
print(("long lived tree of depth %d\t check: %d"):format(maxd, check(long)))
