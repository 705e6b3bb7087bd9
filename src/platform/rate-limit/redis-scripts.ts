/*
 * The shared counters as Lua scripts: each runs atomically in Redis, so concurrent decisions of
 * several instances never both take the last place. Time is Redis's own (`TIME`), one clock for
 * every instance, unless the caller hands in `now` (tests with a manual clock).
 */

const NOW = `
local now = tonumber(ARGV[2])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * A sliding log in a sorted set (score = time): the exact rolling window of SlidingWindowLog.
 * KEYS[1] the set. ARGV: op (check | acquire | record), now or '', windowMs, max, member.
 * Returns { allowed 0/1, count after the operation, retryAfterMs }.
 */
export const ROLLING_WINDOW_LUA = `${NOW}
local key = KEYS[1]
local op = ARGV[1]
local window = tonumber(ARGV[3])
local max = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local retry = 0
if count >= max then
  local oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
  -- A clock set backwards leaves entries "in the future": never promise more than one window.
  retry = math.min(window, math.max(1, oldest + window - now))
end
if op == 'check' then
  return { count < max and 1 or 0, count, retry }
end
if op == 'acquire' then
  if count >= max then return { 0, count, retry } end
  redis.call('ZADD', key, now, ARGV[5])
  redis.call('PEXPIRE', key, window)
  return { 1, count + 1, 0 }
end
-- record: counted whatever the count (failures), only the newest max kept; the decision is from before.
redis.call('ZADD', key, now, ARGV[5])
redis.call('ZREMRANGEBYRANK', key, 0, -(max + 1))
redis.call('PEXPIRE', key, window)
return { count < max and 1 or 0, count, retry }
`;

/**
 * FailureBackoff in a hash (failures f, lockedUntil l, lastFailureAt t) and a sorted set of the
 * reservations in flight (member = ticket, score = when it lapses: a reservation of an instance
 * that died mid-check counts as a failure until then, never for ever).
 * KEYS[1] the hash, KEYS[2] the reservations. ARGV: op (reserve | release | succeeded | failed),
 * now or '', free, baseLockMs, maxLockMs, forgetAfterMs, resetOnSuccess 0/1, reservationMs, ticket.
 * Returns { allowed 0/1, retryAfterMs }.
 */
export const FAILURE_LOCK_LUA = `${NOW}
local op = ARGV[1]
local free = tonumber(ARGV[3])
local base = tonumber(ARGV[4])
local maxLock = tonumber(ARGV[5])
local forget = tonumber(ARGV[6])
local resetOnSuccess = ARGV[7] == '1'
local reservationMs = tonumber(ARGV[8])
local ticket = ARGV[9]
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local h = redis.call('HMGET', KEYS[1], 'f', 'l', 't')
local failures = tonumber(h[1]) or 0
local lockedUntil = tonumber(h[2]) or 0
local last = tonumber(h[3]) or now
local pending = redis.call('ZCARD', KEYS[2])
-- A clock stepped backwards never stretches a lock past its bound, nor makes failures "future".
if lockedUntil > now + maxLock then lockedUntil = now + maxLock end
if last > now then last = now end
if pending == 0 and now >= lockedUntil and now - last >= forget then
  failures = 0
  lockedUntil = 0
end
local result = { 1, 0 }
if op == 'reserve' then
  if now < lockedUntil then
    result = { 0, lockedUntil - now }
  elseif failures + pending >= free and pending > 0 then
    -- The attempt in flight may be the one that locks: wait for it.
    result = { 0, base }
  else
    redis.call('ZADD', KEYS[2], now + reservationMs, ticket)
    pending = pending + 1
  end
elseif op == 'release' then
  redis.call('ZREM', KEYS[2], ticket)
elseif op == 'succeeded' then
  redis.call('ZREM', KEYS[2], ticket)
  if resetOnSuccess then
    failures = 0
    lockedUntil = 0
  end
elseif op == 'failed' then
  redis.call('ZREM', KEYS[2], ticket)
  failures = failures + 1
  last = now
  local over = failures - free
  if over >= 0 then
    local lock = math.min(maxLock, base * math.pow(2, math.min(over, 30)))
    lockedUntil = math.max(lockedUntil, now + lock)
  end
end
if failures == 0 and lockedUntil == 0 then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'f', failures, 'l', lockedUntil, 't', last)
  -- Kept while it matters: until the lock has ended and the failures are forgotten.
  redis.call('PEXPIRE', KEYS[1], math.max(1, math.max(lockedUntil, last + forget) - now))
end
if pending > 0 then redis.call('PEXPIRE', KEYS[2], reservationMs) end
return result
`;
