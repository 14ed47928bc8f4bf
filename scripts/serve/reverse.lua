-- wrk script for `scripts/checks/load-test.sh`: GET /reverse with a different coordinate each request,
-- from a seeded generator (the same sequence every run): half uniform in Türkiye's box, half
-- uniform over the world (latitude by area), format=json, keep-alive.
local seed = 20261123
local function random()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end

request = function()
  local lat, lon
  if random() < 0.5 then
    lat = 35.8 + random() * (42.1 - 35.8)
    lon = 25.6 + random() * (44.8 - 25.6)
  else
    lat = math.deg(math.asin(2 * random() - 1))
    lon = -180 + random() * 360
  end
  return wrk.format("GET", string.format("/reverse?lat=%.5f&lon=%.5f&format=json", lat, lon))
end

local answered, unable, other = 0, 0, 0
response = function(status, headers, body)
  if status == 200 then
    if string.find(body, "Unable to geocode", 1, true) then unable = unable + 1 else answered = answered + 1 end
  else
    other = other + 1
  end
end
