-- sort.lua N: table.sort with a Lua comparator over objects with metatables.
local N = tonumber(arg and arg[1]) or 10000
local Point = {}
Point.__index = Point
Point.__lt = function(a, b) return a:key() < b:key() end
function Point.new(x, y) return setmetatable({ x = x, y = y }, Point) end
function Point:key() return self.x * 3 + self.y end
local seed = 42
local function rnd() seed = (seed * 1103515245 + 12345) % 2147483648; return seed end
local a = {}
for i = 1, N do a[i] = Point.new(rnd() % 100000, rnd() % 1000) end
table.sort(a, function(p, q) return p < q end)
local b = {}
for i = 1, N do b[i] = a[i].x ~ a[i].y end
table.sort(b)
local h = 0
for i = 1, N, 97 do h = (h + a[i]:key() * i + b[i]) % 1000000007 end
print(h)
