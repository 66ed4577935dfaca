-- Sluice limiter: one atomic decision for every policy of one key's plan (SPEC §3.3, §3.14).
-- Mirrors dev.sluice.limiter.gcra.Gcra and dev.sluice.limiter.quota.QuotaCounter with integers only.
-- Lua 5.1 numbers are doubles: every value here is an integer below 2^53 (the Java side refuses a
-- burst policy whose capacity in ticks exceeds 2^51; microseconds since 1970 stay below 2^53 until
-- the year 2255), so +, -, * and the corrected division below are exact.
--
-- KEYS[i]  state of policy i (plan order); all share one hash tag, so one cluster slot
-- ARGV[1]  'D' decide | 'U' usage (charges nothing) | 'R' refund | 'L' release concurrency slots
-- ARGV[2]  now in microseconds since 1970, or '' to read the server's TIME (production)
-- ARGV[3]  the smallest TTL in milliseconds any written key gets
-- then five per policy:
--   'B', k (ticks per microsecond), T (emission ticks), C (capacity ticks), cost
--   'Q', q (quota), anchor day (0 = daily), charged window id (refund; else 0), cost
--   'C', q (requests in flight), lease in microseconds, permit id, cost (1)
-- Stored values (strings, so no float formatting loses digits):
--   burst: "<tat micros>:<tat remainder ticks>"  i.e. TAT = micros * k + remainder, 0 <= remainder < k
--   quota: "<window id>:<used>"
--   concurrency: a sorted set, member = permit id, score = the permit's expiry in micros (now + lease);
--   a permit whose expiry is <= now is not counted (a replica that died without releasing) and is
--   trimmed by the next admission or release
-- Reply: { admitted 1|0 (usage, refund, release: 1), now micros, then two per policy:
--   burst: backlog ticks, 0   quota: effective window id, effective used   concurrency: in flight, 0 }
-- A decide reply carries the states after the charge when admitted, the unchanged states otherwise.
--
-- Cost: Redis runs scripts on its one thread, and each redis.call, each closure, table and string made
-- here is paid per decision (plus the garbage collector's share). So a decision whose policies are all
-- burst or daily-quota policies (the common plans) takes the straight path below: one GET per key,
-- one SET per charged key, no per-policy tables, and the helper
-- functions of the general part are never created. It computes exactly what the general part computes
-- (same admissions, replies, stored values and expiries); a decision with a concurrency or a monthly
-- policy, and every usage read, refund and release, takes the general part.

local floor = math.floor

-- floor(a / b) for integers 0 <= a, 0 < b below 2^53, corrected for the double division's rounding
local function idiv(a, b)
  local q = floor(a / b)
  if q * b > a then
    q = q - 1
  elseif (q + 1) * b <= a then
    q = q + 1
  end
  return q
end

local op = ARGV[1]
local n = #KEYS
local now
if ARGV[2] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[2])
end

-- The straight path: a decision over burst and daily-quota policies only (see the cost note above).
-- Each step is the general part's, inlined (burst_backlog, quota_effective, burst_write, quota_write,
-- and on a denial ensure_ttl); every argument is converted once, into one table of five per policy
-- (p1, p2, p3, cost, whether the key existed). '%d' formats exactly as fmt does: every value
-- formatted is an integer below 2^53 and Lua 5.1 formats '%d' as a C long.
local straight = op == 'D'
local argv = ARGV
for i = 1, n do
  local base = (i - 1) * 5
  local kind = argv[base + 4]
  if not (kind == 'B' or (kind == 'Q' and argv[base + 6] == '0')) then
    straight = false
    break
  end
end
if straight then
  local tonumber, format, call = tonumber, string.format, redis.call
  local min_ttl = tonumber(argv[3])
  local day = floor(idiv(now, 1000000) / 86400)
  local reply = { 1, now }
  local par = {}
  local admitted = true
  for i = 1, n do
    local base = (i - 1) * 5
    local v = call('GET', KEYS[i])
    local x, y
    if v then
      x, y = string.match(v, '^(%-?%d+):(%d+)$')
    end
    local p1, p2, cost = tonumber(argv[base + 5]), tonumber(argv[base + 6]), tonumber(argv[base + 8])
    local at = (i - 1) * 5
    par[at + 1], par[at + 2], par[at + 4], par[at + 5] = p1, p2, cost, v
    if argv[base + 4] == 'B' then
      local k, t, cap = p1, p2, tonumber(argv[base + 7])
      par[at + 3] = cap
      local bl = 0
      if x then
        local d = tonumber(x) - now
        if d >= 0 then
          if d > idiv(cap, k) + 1 then
            bl = cap
          else
            bl = d * k + tonumber(y)
            if bl > cap then
              bl = cap
            end
          end
        end
      end
      reply[2 * i + 1], reply[2 * i + 2] = bl, 0
      if bl + cost * t > cap then
        admitted = false
      end
    else
      local win, used = day, 0
      if x then
        local w = tonumber(x)
        if w >= day then
          win, used = w, tonumber(y)
        end
      end
      reply[2 * i + 1], reply[2 * i + 2] = win, used
      if cost > p1 - used then
        admitted = false
      end
    end
  end
  for i = 1, n do
    local at = (i - 1) * 5
    local key = KEYS[i]
    local burst = argv[at + 4] == 'B'
    local a, b = reply[2 * i + 1], reply[2 * i + 2]
    local k = par[at + 1]
    if admitted then
      local cost = par[at + 4]
      local value, ttl
      if burst then
        a = a + cost * par[at + 2]
        reply[2 * i + 1] = a
        if a > 0 then
          local whole = idiv(a, k)
          value = format('%d:%d', now + whole, a - whole * k)
          ttl = idiv(idiv(a + k - 1, k) + 999, 1000) + 1
        end
      else
        b = b + cost
        reply[2 * i + 2] = b
        if b > 0 then
          value = format('%d:%d', a, b)
          ttl = idiv((a + 1) * 86400000000 - now + 999, 1000) + 1
          if ttl < 1 then
            ttl = 1
          end
        end
      end
      if value then
        if ttl < min_ttl then
          ttl = min_ttl
        end
        call('SET', key, value, 'PX', format('%d', ttl))
      else
        call('DEL', key)
      end
    elseif par[at + 5] then
      -- a denial writes no state, but repairs a missing expiry (R16)
      local ttl
      if burst then
        ttl = idiv(idiv(a + k - 1, k) + 999, 1000) + 1
      else
        ttl = idiv((a + 1) * 86400000000 - now + 999, 1000) + 1
        if ttl < 1 then
          ttl = 1
        end
      end
      if ttl < min_ttl then
        ttl = min_ttl
      end
      if call('PTTL', key) == -1 then
        call('PEXPIRE', key, format('%d', ttl))
      end
    end
  end
  reply[1] = admitted and 1 or 0
  return reply
end

-- The general part: every op and every kind of policy.

local function fmt(n)
  return string.format('%.0f', n)
end

local function parse_pair(v)
  if not v then
    return nil
  end
  local a, b = string.match(v, '^(%-?%d+):(%d+)$')
  if not a then
    return nil -- not ours or damaged: read as absent (full); the next charge overwrites it
  end
  return tonumber(a), tonumber(b)
end

-- Gcra.backlogTicks: ticks until the bucket is full; 0 when the TAT is in the past.
-- Clamped to C: the server's TIME is a wall clock and may step back; a stepped-back reading makes
-- the bucket look empty at worst, never fuller (R15). With a clock that only moves forwards the
-- clamp never applies (every stored backlog is <= C when written).
local function burst_backlog(v, now, k, cap)
  local tat_us, rem = parse_pair(v)
  if not tat_us then
    return 0
  end
  local d = tat_us - now
  if d < 0 then
    return 0 -- TAT = tat_us*k + rem < now*k since rem < k
  end
  if d > idiv(cap, k) + 1 then
    return cap
  end
  local b = d * k + rem
  if b > cap then
    return cap
  end
  return b
end

-- ms a burst key must live for its backlog to drain: ceil(ceil(b / k) us / 1000) + 1 ms, the +1
-- because Redis counts expiry from its millisecond clock while now has microseconds
local function burst_ttl_ms(b, k)
  local us = idiv(b + k - 1, k)
  return idiv(us + 999, 1000) + 1
end

local function burst_write(key, now, b, k, min_ttl)
  if b <= 0 then
    redis.call('DEL', key) -- a full bucket needs no state: absent reads as full
    return
  end
  local whole = idiv(b, k)
  local ttl = burst_ttl_ms(b, k)
  if ttl < min_ttl then
    ttl = min_ttl
  end
  redis.call('SET', key, fmt(now + whole) .. ':' .. fmt(b - whole * k), 'PX', fmt(ttl))
end

-- Calendar windows (CalendarWindow.Daily / Monthly), from days since 1970 (civil calendar, UTC)
local function days_from_civil(y, m, d)
  if m <= 2 then
    y = y - 1
  end
  local era = floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

local function civil_from_days(z)
  z = z + 719468
  local era = floor(z / 146097)
  local doe = z - era * 146097
  local yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365)
  local y = yoe + era * 400
  local doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100))
  local mp = floor((5 * doy + 2) / 153)
  local d = doy - floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  if m <= 2 then
    y = y + 1
  end
  return y, m, d
end

local function month_length(y, m)
  if m == 2 then
    if (y % 4 == 0 and y % 100 ~= 0) or y % 400 == 0 then
      return 29
    end
    return 28
  end
  if m == 4 or m == 6 or m == 9 or m == 11 then
    return 30
  end
  return 31
end

-- CalendarWindow.startEpochSecond: the one boundary function
local function window_start(id, anchor)
  if anchor == 0 then
    return id * 86400
  end
  local y = 1970 + floor(id / 12)
  local m = id % 12 + 1
  local d = anchor
  local len = month_length(y, m)
  if d > len then
    d = len
  end
  return days_from_civil(y, m, d) * 86400
end

-- CalendarWindow.windowIdAt
local function window_at(sec, anchor)
  if anchor == 0 then
    return floor(sec / 86400)
  end
  local y, m = civil_from_days(floor(sec / 86400))
  local id = (y - 1970) * 12 + m - 1
  if sec < window_start(id, anchor) then
    id = id - 1
  end
  return id
end

-- QuotaCounter.effectiveWindow / effectiveUsed: an older stored window is a fresh one; a newer one
-- (the wall clock stepped back) keeps counting against that newer window
local function quota_effective(v, cur)
  local win, used = parse_pair(v)
  if not win or win < cur then
    return cur, 0
  end
  return win, used
end

-- ms until the end of window win (the state is full again then), + 1 ms as for bursts
local function quota_ttl_ms(win, anchor, now)
  local end_us = window_start(win + 1, anchor) * 1000000
  local ms = idiv(end_us - now + 999, 1000) + 1
  if ms < 1 then
    ms = 1
  end
  return ms
end

local function quota_write(key, win, used, anchor, now, min_ttl)
  if used <= 0 then
    redis.call('DEL', key)
    return
  end
  local ttl = quota_ttl_ms(win, anchor, now)
  if ttl < min_ttl then
    ttl = min_ttl
  end
  redis.call('SET', key, fmt(win) .. ':' .. fmt(used), 'PX', fmt(ttl))
end

-- R16: a key found without an expiry (written by an older version, or by hand) gets one
local function ensure_ttl(key, ttl)
  if redis.call('PTTL', key) == -1 then
    redis.call('PEXPIRE', key, fmt(ttl))
  end
end

-- Concurrency slots: permits alive at now (expiry > now)
local function slots_in_flight(key, now)
  return redis.call('ZCOUNT', key, '(' .. fmt(now), '+inf')
end

-- the set lives as long as its longest permit (+1 ms), never less than min_ttl; never shortened
local function slots_expire(key, lease, min_ttl)
  local ttl = idiv(lease + 999, 1000) + 1
  if ttl < min_ttl then
    ttl = min_ttl
  end
  if redis.call('PTTL', key) < ttl then
    redis.call('PEXPIRE', key, fmt(ttl))
  end
end

local min_ttl = tonumber(ARGV[3])
local sec = idiv(now, 1000000)

local kinds, p1, p2, p3, cost, before, a, b = {}, {}, {}, {}, {}, {}, {}, {}
local admitted = true
for i = 1, n do
  local base = 3 + (i - 1) * 5
  kinds[i] = ARGV[base + 1]
  p1[i] = tonumber(ARGV[base + 2])
  p2[i] = tonumber(ARGV[base + 3])
  p3[i] = tonumber(ARGV[base + 4])
  cost[i] = tonumber(ARGV[base + 5])
  if kinds[i] == 'C' then
    p3[i] = ARGV[base + 4] -- the permit id: a string
    before[i] = redis.call('EXISTS', KEYS[i]) == 1
    local inflight = 0
    if before[i] then
      inflight = slots_in_flight(KEYS[i], now)
    end
    a[i], b[i] = inflight, 0
    -- admitted iff in flight + cost <= q (the cost is one slot)
    if op == 'D' and inflight + cost[i] > p1[i] then
      admitted = false
    end
  elseif kinds[i] == 'B' then
    before[i] = redis.call('GET', KEYS[i])
    local k, t, cap = p1[i], p2[i], p3[i]
    local bl = burst_backlog(before[i], now, k, cap)
    a[i], b[i] = bl, 0
    -- Gcra.admit: admitted iff backlog + cost*T <= C
    if op == 'D' and bl + cost[i] * t > cap then
      admitted = false
    end
  else
    before[i] = redis.call('GET', KEYS[i])
    local q, anchor = p1[i], p2[i]
    local win, used = quota_effective(before[i], window_at(sec, anchor))
    a[i], b[i] = win, used
    -- QuotaCounter.admit: admitted iff cost <= q - used
    if op == 'D' and cost[i] > q - used then
      admitted = false
    end
  end
end

if op == 'D' and admitted then
  for i = 1, n do
    if kinds[i] == 'C' then
      redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', fmt(now)) -- expired permits of dead replicas
      redis.call('ZADD', KEYS[i], fmt(now + p2[i]), p3[i])
      slots_expire(KEYS[i], p2[i], min_ttl)
      a[i] = a[i] + cost[i]
    elseif kinds[i] == 'B' then
      a[i] = a[i] + cost[i] * p2[i]
      burst_write(KEYS[i], now, a[i], p1[i], min_ttl)
    else
      b[i] = b[i] + cost[i]
      quota_write(KEYS[i], a[i], b[i], p2[i], now, min_ttl)
    end
  end
elseif op == 'L' then
  -- release: remove this request's permit (a second release finds nothing: never below zero)
  for i = 1, n do
    if kinds[i] == 'C' and before[i] then
      redis.call('ZREM', KEYS[i], p3[i])
      redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', fmt(now))
      a[i] = slots_in_flight(KEYS[i], now)
    end
  end
elseif op == 'R' then
  for i = 1, n do
    if before[i] and kinds[i] ~= 'C' then -- slots come back by release, never by refund
      if kinds[i] == 'B' then
        -- Gcra.refund: nothing when full; never below full
        if a[i] > 0 then
          local back = a[i] - cost[i] * p2[i]
          if back < 0 then
            back = 0
          end
          a[i] = back
          burst_write(KEYS[i], now, back, p1[i], min_ttl)
        end
      else
        -- QuotaCounter.refund: only the window that was charged
        local win, used = parse_pair(before[i])
        if win and win == p3[i] then
          local left = used - cost[i]
          if left < 0 then
            left = 0
          end
          quota_write(KEYS[i], win, left, p2[i], now, min_ttl)
          if win >= a[i] then
            a[i], b[i] = win, left
          end
        end
      end
    end
  end
else
  -- a denial or a usage read writes no state, but repairs a missing expiry (R16)
  for i = 1, n do
    if before[i] then
      local ttl
      if kinds[i] == 'C' then
        ttl = idiv(p2[i] + 999, 1000) + 1
      elseif kinds[i] == 'B' then
        ttl = burst_ttl_ms(a[i], p1[i])
      else
        ttl = quota_ttl_ms(a[i], p2[i], now)
      end
      if ttl < min_ttl then
        ttl = min_ttl
      end
      ensure_ttl(KEYS[i], ttl)
    end
  end
end

local reply = { admitted and 1 or 0, now }
for i = 1, n do
  reply[2 + 2 * i - 1] = a[i]
  reply[2 + 2 * i] = b[i]
end
return reply
