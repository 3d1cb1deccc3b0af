-- The rate-limit log as a ring (was a bigint[] rewritten whole on every request).
--
-- The rule is unchanged (V3, SlidingWindowLog): a key may have at most its limit of requests
-- admitted in any 60 seconds. V3 kept the key's admitted times in one array that every request
-- unnested, filtered, sorted and wrote back: O(limit) per request, up to 80 kB of row (TOASTed)
-- and WAL for a key with the 10,000-a-minute ceiling, and a key's cost grew with its traffic.
--
-- Now each admission time is a row of rate_limit_slots, written in a ring of ring_size slots, and
-- rate_limits holds the ring's head: next_slot (where the next admission goes) and live (how many
-- entries before it may still count). An entry stops counting 60 s after its time, and the ring is
-- in admission order, so expired entries are always the oldest: each request drops them from the
-- tail (every entry is dropped once, so O(1) amortised) and is admitted when fewer than the limit
-- remain live. A request reads and writes a few small rows whatever the limit.
--
-- ring_size is at least the limit. A raised limit lays the live entries out again in a larger
-- ring; a lowered one keeps the ring, so entries admitted under the old limit still count and the
-- key waits until enough have left (as V3 did).

CREATE TABLE rate_limit_slots (
  api_key_id  text   NOT NULL REFERENCES rate_limits (api_key_id) ON DELETE CASCADE,
  slot        int    NOT NULL,
  admitted_at bigint NOT NULL,
  PRIMARY KEY (api_key_id, slot)
) WITH (fillfactor = 70);

ALTER TABLE rate_limits
  ADD COLUMN ring_size int NOT NULL DEFAULT 0,
  ADD COLUMN next_slot int NOT NULL DEFAULT 0,
  ADD COLUMN live      int NOT NULL DEFAULT 0;

-- The logs in force move into rings of their own length (full, so the next slot is 0): no key's
-- window starts afresh on deploy. The first request with a larger limit widens the ring.
INSERT INTO rate_limit_slots (api_key_id, slot, admitted_at)
SELECT r.api_key_id, t.ord - 1, t.at
FROM rate_limits r, unnest(r.admitted_at) WITH ORDINALITY AS t(at, ord);

UPDATE rate_limits
SET ring_size = cardinality(admitted_at), next_slot = 0, live = cardinality(admitted_at);

-- Expand, not contract: gateways still on the old code during a rolling upgrade keep deciding on
-- their array (a key whose requests reach both kinds may get up to twice its limit in that minute,
-- never an error). Nothing reads the column any more; a later migration drops it, once no gateway
-- older than this one can be running.
ALTER TABLE rate_limits ALTER COLUMN admitted_at SET DEFAULT '{}';

-- One request of p_key at p_now (epoch ms, the gateway's clock) against p_limit per p_window ms.
-- Decides under the key's row lock, so every gateway replica's requests of one key are decided one
-- at a time; each statement here takes a fresh snapshot (READ COMMITTED), so after the lock it
-- sees what the previous holder committed. A refused request writes nothing.
--
-- admitted:           the request counts and goes through
-- remaining:          requests the key may still make now (after this one, when admitted)
-- reset_millis:       when the oldest request that counts leaves the window
-- retry_after_millis: when refused, how long until a request would be admitted (> 0); else 0
CREATE FUNCTION rate_limit_admit(p_key text, p_now bigint, p_limit int, p_window bigint,
                                 OUT admitted boolean, OUT remaining int,
                                 OUT reset_millis bigint, OUT retry_after_millis bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_size int;
  v_next int;
  v_live int;
  v_at   bigint;
  v_kept bigint[];
  -- Slot positions are (v_next - k + v_size) % v_size with 0 <= k <= v_size: never negative.
BEGIN
  -- Losing the last few milliseconds of admissions in a crash of PostgreSQL lets that many more
  -- requests in, never money; so the commit does not wait for the WAL flush.
  PERFORM set_config('synchronous_commit', 'off', true);

  LOOP
    SELECT ring_size, next_slot, live INTO v_size, v_next, v_live
    FROM rate_limits WHERE api_key_id = p_key FOR UPDATE;
    EXIT WHEN FOUND;
    -- A concurrent first request, or the idle purge, may win or undo this insert: look again.
    INSERT INTO rate_limits (api_key_id, last_admitted_millis, ring_size, next_slot, live)
    VALUES (p_key, p_now, 0, 0, 0) ON CONFLICT (api_key_id) DO NOTHING;
  END LOOP;

  -- Drop the entries that left the window, oldest first. When even the newest has left (a key
  -- idle for a minute) they all have, and none is read one by one.
  IF v_live > 0 THEN
    SELECT admitted_at INTO v_at FROM rate_limit_slots
    WHERE api_key_id = p_key AND slot = (v_next - 1 + v_size) % v_size;
    IF p_now - v_at >= p_window THEN
      v_live := 0;
    END IF;
  END IF;
  WHILE v_live > 0 LOOP
    SELECT admitted_at INTO v_at FROM rate_limit_slots
    WHERE api_key_id = p_key AND slot = (v_next - v_live + v_size) % v_size;
    EXIT WHEN p_now - v_at < p_window;
    v_live := v_live - 1;
  END LOOP;

  IF v_live >= p_limit THEN
    -- Refused. The oldest live entry sets the reset; a slot frees when the entry live - limit
    -- places after it leaves (the oldest itself, unless the limit was lowered).
    admitted := false;
    remaining := 0;
    SELECT admitted_at + p_window INTO reset_millis FROM rate_limit_slots
    WHERE api_key_id = p_key AND slot = (v_next - v_live + v_size) % v_size;
    SELECT greatest(1, admitted_at + p_window - p_now) INTO retry_after_millis
    FROM rate_limit_slots WHERE api_key_id = p_key AND slot = (v_next - p_limit + v_size) % v_size;
    RETURN;
  END IF;

  IF p_limit > v_size THEN
    -- A first request, or a raised limit: the live entries, oldest first, from slot 0 of a ring
    -- of p_limit slots.
    IF v_live > 0 THEN
      SELECT array_agg(admitted_at ORDER BY (slot - v_next + v_live + v_size) % v_size)
      INTO v_kept FROM rate_limit_slots
      WHERE api_key_id = p_key AND (slot - v_next + v_live + v_size) % v_size < v_live;
    END IF;
    DELETE FROM rate_limit_slots WHERE api_key_id = p_key;
    IF v_live > 0 THEN
      INSERT INTO rate_limit_slots (api_key_id, slot, admitted_at)
      SELECT p_key, k.ord - 1, k.at FROM unnest(v_kept) WITH ORDINALITY AS k(at, ord);
    END IF;
    v_size := p_limit;
    v_next := v_live;
  END IF;

  INSERT INTO rate_limit_slots (api_key_id, slot, admitted_at) VALUES (p_key, v_next, p_now)
  ON CONFLICT (api_key_id, slot) DO UPDATE SET admitted_at = excluded.admitted_at;
  v_next := (v_next + 1) % v_size;
  v_live := v_live + 1;
  UPDATE rate_limits
  SET ring_size = v_size, next_slot = v_next, live = v_live, last_admitted_millis = p_now
  WHERE api_key_id = p_key;

  admitted := true;
  remaining := p_limit - v_live;
  SELECT least(admitted_at, p_now) + p_window INTO reset_millis FROM rate_limit_slots
  WHERE api_key_id = p_key AND slot = (v_next - v_live + v_size) % v_size;
  retry_after_millis := 0;
END
$$;
